"""VectorEnv2048: next-step autoreset, truncation, registration, and the
same games as single environments."""

import gymnasium as gym
import numpy as np
import pytest

import py2048


def test_make_vec_uses_the_vector_entry_point():
    envs = gym.make_vec(py2048.ENV_ID, num_envs=8, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, py2048.VectorEnv2048)
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, 4, 4, 16) and envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (8, 4) and infos["action_mask"].dtype == np.int8
    obs, rewards, terminated, truncated, infos = envs.step(envs.action_space.sample())
    assert rewards.dtype == np.float64 and terminated.shape == truncated.shape == (8,)


def test_next_step_autoreset():
    env = py2048.VectorEnv2048(num_envs=4, obs_mode="exponents")
    obs, _ = env.reset(seed=10)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        obs, rewards, terminated, truncated, infos = env.step(rng.integers(0, 4, size=4))
        for i in np.flatnonzero(terminated):
            ended += 1
            # The next step ignores the action and resets: reward 0, a fresh
            # board of two tiles, nothing ended.
            nxt = env.step(rng.integers(0, 4, size=4))
            assert nxt[1][i] == 0 and not nxt[2][i] and not nxt[3][i]
            assert np.count_nonzero(nxt[0][i]) == 2
            assert nxt[4]["score"][i] == 0
            break
    assert ended >= 3


def test_env_i_plays_the_games_of_a_single_env_seeded_s_plus_i():
    n, seed = 3, 40
    vec = py2048.VectorEnv2048(num_envs=n, obs_mode="exponents")
    singles = [py2048.Env2048(obs_mode="exponents") for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    single_obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    pending = [False] * n
    rng = np.random.default_rng(2)
    for _ in range(1500):
        for i in range(n):
            np.testing.assert_array_equal(obs[i], single_obs[i])
        actions = rng.integers(0, 4, size=n)
        obs, rewards, terminated, _, _ = vec.step(actions)
        for i, e in enumerate(singles):
            if pending[i]:
                single_obs[i], _ = e.reset()
                pending[i] = False
                assert rewards[i] == 0
            else:
                single_obs[i], r, t, _, _ = e.step(int(actions[i]))
                assert r == rewards[i] and t == terminated[i]
                pending[i] = t


def test_truncation_after_max_episode_steps():
    env = py2048.VectorEnv2048(num_envs=2, max_episode_steps=5)
    env.reset(seed=0)
    truncs = [env.step(np.array([0, 3]))[3].tolist() for _ in range(6)]
    assert truncs[4] == [True, True]
    assert truncs[5] == [False, False]  # the autoreset step


def test_seeds_as_a_list_and_reproducible_resets():
    env = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents")
    a, _ = env.reset(seed=[5, 9])
    b, _ = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents").reset(seed=5)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="3 seeds for 2"):
        env.reset(seed=[1, 2, 3])


def test_render_and_masks():
    env = py2048.VectorEnv2048(num_envs=2, render_mode="ansi")
    _, infos = env.reset(seed=0)
    frames = env.render()
    assert len(frames) == 2 and frames[0].startswith("+--------+")
    np.testing.assert_array_equal(env.action_masks(), infos["action_mask"].astype(bool))
    assert py2048.VectorEnv2048(num_envs=1, render_mode="rgb_array").render()[0].shape == (400, 400, 3)


@pytest.mark.parametrize(
    "actions, error",
    [
        (np.array([0, 1, 2]), ValueError),
        (np.array([[0, 1]]), ValueError),
        (np.array([0, 4]), ValueError),
        (np.array([-1, 0]), ValueError),
        (np.array([0.0, 1.0]), TypeError),
        (np.array([True, False]), TypeError),
        (np.array(["up", "left"]), TypeError),
    ],
)
def test_bad_actions_raise(actions, error):
    env = py2048.VectorEnv2048(num_envs=2)
    env.reset(seed=0)
    with pytest.raises(error):
        env.step(actions)


def test_bad_settings_raise():
    with pytest.raises(ValueError, match="num_envs"):
        py2048.VectorEnv2048(num_envs=0)
    with pytest.raises(ValueError, match="4x4"):
        py2048.VectorEnv2048(num_envs=2, size=5)
    with pytest.raises(ValueError, match="obs_mode"):
        py2048.VectorEnv2048(num_envs=2, obs_mode="pixels")
