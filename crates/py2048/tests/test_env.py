"""Env2048 through gymnasium's own checkers, seeding, observations, render."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.utils.env_match import check_environments_match

import py2048


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"obs_mode": "exponents"},
        {"max_pow": 12},
        {"size": 3},
        {"size": 6, "four_probability": 0.5},
        {"illegal_action": "penalty"},
        {"illegal_action": "terminate"},
    ],
)
def test_check_env_passes(kwargs):
    check_env(py2048.Env2048(**kwargs), skip_render_check=True)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_check_env_passes_when_made_with_render_modes(render_mode):
    env = gym.make(py2048.ENV_ID, render_mode=render_mode)
    check_env(env.unwrapped)
    assert env.spec.max_episode_steps == py2048.MAX_EPISODE_STEPS


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_two_seeded_instances_match(render_mode):
    a = py2048.Env2048(render_mode=render_mode)
    b = py2048.Env2048(render_mode=render_mode)
    check_environments_match(a, b, num_steps=300, seed=11)


def play(env, seed, n_steps, action_seed=0):
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    trace = [(obs.copy(), info["board"].copy())]
    for _ in range(n_steps):
        obs, reward, terminated, truncated, info = env.step(int(rng.integers(4)))
        trace.append((obs.copy(), reward, terminated, info["board"].copy()))
        if terminated:
            obs, info = env.reset()
            trace.append((obs.copy(), info["board"].copy()))
    return trace


def equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


def test_the_same_seed_replays_the_same_games_after_anything():
    env = py2048.Env2048()
    first = play(env, 5, 500)
    play(env, 99, 37)  # something else in between
    equal(first, play(env, 5, 500))
    # A new instance too, and resets without a seed continue the same stream.
    equal(first, play(py2048.Env2048(), 5, 500))


def test_different_seeds_give_different_games():
    env = py2048.Env2048()
    boards = {env.reset(seed=s)[1]["board"].tobytes() for s in range(20)}
    assert len(boards) > 5


def test_unseeded_resets_follow_gymnasiums_np_random():
    a, b = py2048.Env2048(), py2048.Env2048()
    a.reset(seed=3)
    b.reset(seed=3)
    assert a.reset()[1]["board"].tobytes() == b.reset()[1]["board"].tobytes()


def test_observations_are_one_hot_and_match_the_board():
    env = py2048.Env2048()
    obs, info = env.reset(seed=1)
    for _ in range(50):
        assert obs.shape == (4, 4, 16) and obs.dtype == np.uint8
        assert (obs.sum(axis=-1) == 1).all()
        np.testing.assert_array_equal(obs.argmax(axis=-1), info["board"])
        assert env.observation_space.contains(obs)
        obs, _, terminated, _, info = env.step(int(np.argmax(info["action_mask"])))
        if terminated:
            break


def test_exponent_observations_and_small_max_pow():
    env = py2048.Env2048(obs_mode="exponents")
    obs, info = env.reset(seed=2)
    assert obs.shape == (4, 4)
    np.testing.assert_array_equal(obs, info["board"])
    small = py2048.Env2048(max_pow=2)
    obs, info = small.reset(seed=2)
    assert obs.shape == (4, 4, 2)
    # Exponents past the last channel light the last one.
    np.testing.assert_array_equal(obs[..., 1], (info["board"] >= 1).astype(np.uint8))


def test_info_has_gymnasium_2048s_keys_and_fresh_arrays():
    env = py2048.Env2048()
    obs, info = env.reset(seed=4)
    assert set(info) >= {"board", "step_score", "total_score", "max", "is_legal", "illegal_count", "action_mask"}
    kept_obs, kept_board, kept_mask = obs, info["board"], info["action_mask"]
    snapshot = (obs.copy(), info["board"].copy(), info["action_mask"].copy())
    total = 0
    for _ in range(30):
        obs2, reward, terminated, _, info2 = env.step(int(np.argmax(info["action_mask"])))
        assert obs2 is not kept_obs and info2["board"] is not kept_board
        total += reward
        assert info2["total_score"] == total == env.score
        assert info2["step_score"] == reward
        assert info2["max"] == info2["board"].max()
        info = info2
        if terminated:
            break
    np.testing.assert_array_equal(kept_obs, snapshot[0])
    np.testing.assert_array_equal(kept_board, snapshot[1])
    np.testing.assert_array_equal(kept_mask, snapshot[2])


def test_a_game_ends_with_terminated_and_no_legal_action():
    env = py2048.Env2048()
    obs, info = env.reset(seed=8)
    for _ in range(5000):
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        assert not truncated
        if terminated:
            break
    assert terminated
    assert not info["action_mask"].any()
    assert not env.action_masks().any()


def test_four_probability_one_spawns_only_fours():
    env = py2048.Env2048(obs_mode="exponents", four_probability=1.0)
    _, info = env.reset(seed=1)
    assert sorted(info["board"].ravel())[-2:] == [2, 2]


def test_render_modes():
    env = py2048.Env2048(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text.startswith("+--------+") and text.endswith("Score: 0\n")
    assert text.count("\n") == 18
    env = py2048.Env2048(render_mode="rgb_array", size=5)
    env.reset(seed=1)
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (460, 400, 3)  # gymnasium-2048's frame
    assert py2048.Env2048().render() is None


def test_registered_with_a_step_limit():
    env = gym.make(py2048.ENV_ID, max_episode_steps=3, illegal_action="noop")
    env.reset(seed=1)
    truncated = [env.step(0)[3] for _ in range(3)]
    assert truncated == [False, False, True]
