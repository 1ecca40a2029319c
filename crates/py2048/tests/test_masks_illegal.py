"""Action masks and what an illegal action does."""

import numpy as np
import pytest

import py2048

# A lone 2 in the bottom-right corner moves up and left only.
CORNER = "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"


def test_masks_say_which_actions_change_the_board():
    env = py2048.Env2048()
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        board = py2048.pack(info["board"])
        after, _, legal = py2048.apply_action(np.full(4, board, dtype=np.uint64), np.arange(4))
        assert info["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(info["action_mask"], legal.astype(np.int8))
        np.testing.assert_array_equal(env.action_masks(), legal)
        np.testing.assert_array_equal(py2048.legal_actions(board), legal.astype(np.int8))
        _, _, terminated, _, info = env.step(int(rng.integers(4)))
        if terminated:
            _, info = env.reset()


def test_the_corner_board_masks_right_and_down():
    board = py2048.pack(py2048.parse_board(CORNER))
    assert py2048.legal_actions(board).tolist() == [1, 0, 0, 1]


def illegal_step(mode, penalty=1.0):
    env = py2048.Env2048(illegal_action=mode, illegal_penalty=penalty)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = info["board"].copy()
    _, reward, terminated, truncated, info = env.step(illegal)
    return before, reward, terminated, truncated, info


def test_noop_leaves_the_board_and_gives_nothing():
    before, reward, terminated, truncated, info = illegal_step("noop")
    np.testing.assert_array_equal(info["board"], before)
    assert (reward, terminated, truncated) == (0, False, False)
    assert info["is_legal"] is False and info["illegal_count"] == 1


def test_penalty_leaves_the_board_and_costs_the_penalty():
    before, reward, terminated, _, info = illegal_step("penalty", penalty=2.5)
    np.testing.assert_array_equal(info["board"], before)
    assert (reward, terminated) == (-2.5, False)


def test_terminate_ends_the_episode():
    before, reward, terminated, _, info = illegal_step("terminate", penalty=0.0)
    np.testing.assert_array_equal(info["board"], before)
    assert (reward, terminated) == (0.0, True)


def test_illegal_modes_in_the_vector_env():
    for mode, expected in [("noop", (0.0, False)), ("penalty", (-1.0, False)), ("terminate", (-1.0, True))]:
        env = py2048.VectorEnv2048(num_envs=1, illegal_action=mode)
        _, infos = env.reset(seed=1)
        illegal = int(np.flatnonzero(infos["action_mask"][0] == 0)[0])
        _, rewards, terminated, _, _ = env.step(np.array([illegal]))
        assert (rewards[0], terminated[0]) == expected, mode


@pytest.mark.parametrize("kwargs", [{"illegal_action": "explode"}, {"illegal_penalty": float("nan"), "illegal_action": "penalty"}])
def test_bad_illegal_settings_are_value_errors(kwargs):
    with pytest.raises(ValueError, match="illegal"):
        py2048.Env2048(**kwargs)
