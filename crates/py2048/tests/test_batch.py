"""Batched afterstates, packing, the text form, and bad input."""

import numpy as np
import pytest

import py2048

BOARD = "2 2 0 0/0 4 0 4/0 0 0 0/8 0 0 8"


def packed(text):
    return py2048.pack(py2048.parse_board(text))


def test_pack_and_unpack_round_trip():
    exps = py2048.parse_board(BOARD)
    assert exps.tolist() == [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 0, 0], [3, 0, 0, 3]]
    board = py2048.pack(exps)
    assert isinstance(board, int)
    # Cell (r, c) in nibble 4 * (4r + c).
    assert board & 0xF == 1 and (board >> (4 * 12)) & 0xF == 3
    np.testing.assert_array_equal(py2048.unpack(board), exps)
    assert py2048.format_board(board) == BOARD
    many = py2048.pack(np.stack([exps, exps[::-1]]))
    assert many.shape == (2,) and many.dtype == np.uint64


def test_apply_action_in_each_direction():
    board = packed(BOARD)
    after, rewards, legal = py2048.apply_action(np.full(4, board, dtype=np.uint64), np.arange(4))
    got = [py2048.format_board(int(a)) for a in after]
    assert got == [
        "2 2 0 4/8 4 0 8/0 0 0 0/0 0 0 0",  # up
        "0 0 0 4/0 0 0 8/0 0 0 0/0 0 0 16",  # right
        "0 0 0 0/0 0 0 0/2 2 0 4/8 4 0 8",  # down
        "4 0 0 0/8 0 0 0/0 0 0 0/16 0 0 0",  # left
    ]
    assert rewards.tolist() == [0, 4 + 8 + 16, 0, 4 + 8 + 16]
    assert legal.all()


def test_apply_action_keeps_shapes_and_broadcasts_one_action():
    boards = np.full((2, 3), packed(BOARD), dtype=np.uint64)
    after, rewards, legal = py2048.apply_action(boards, 1)
    assert after.shape == rewards.shape == legal.shape == (2, 3)
    assert py2048.encode(boards).shape == (2, 3, 4, 4, 16)
    assert py2048.legal_actions(boards).shape == (2, 3, 4)


def test_an_illegal_action_leaves_the_board():
    corner = packed("0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2")
    after, rewards, legal = py2048.apply_action([corner], [1])
    assert after[0] == corner and rewards[0] == 0 and not legal[0]


def test_large_batches_match_one_at_a_time():
    rng = np.random.default_rng(0)
    boards = rng.integers(0, 2**63, size=5000, dtype=np.uint64) & np.uint64(0x3333_3333_3333_3333)
    actions = rng.integers(0, 4, size=5000)
    after, rewards, legal = py2048.apply_action(boards, actions)
    for i in range(0, 5000, 499):
        a, r, l = py2048.apply_action(boards[i : i + 1], actions[i : i + 1])
        assert (a[0], r[0], l[0]) == (after[i], rewards[i], legal[i])


@pytest.mark.parametrize(
    "text",
    ["", "2 2/2", "2 3 0 0/0 0 0 0/0 0 0 0/0 0 0 0", "a b/c d", "2 2 2/2 2", "1 0/0 0", "67108864 0/0 0", "+2 0/0 0"],
)
def test_malformed_board_strings_are_value_errors(text):
    with pytest.raises(ValueError, match="cannot read the board"):
        py2048.parse_board(text)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: py2048.apply_action([1.5], [0]), TypeError, "boards"),
        (lambda: py2048.apply_action([1], [0.0]), TypeError, "actions"),
        (lambda: py2048.apply_action([-1], [0]), ValueError, "negative"),
        (lambda: py2048.apply_action([1, 2], [0, 1, 2]), ValueError, "one action per board"),
        (lambda: py2048.apply_action([1], [4]), ValueError, "action 4 at index 0"),
        (lambda: py2048.apply_action([1], [-1]), ValueError, "action -1"),
        (lambda: py2048.apply_action(["x"], [0]), TypeError, "boards"),
        (lambda: py2048.apply_action([True], [0]), TypeError, "boards"),
        # An int no uint64 holds is out of range, as for Env2048.step.
        (lambda: py2048.apply_action([2**64], [0]), ValueError, "boards"),
        (lambda: py2048.pack(np.zeros((3, 3), dtype=int)), ValueError, r"\(\.\.\., 4, 4\)"),
        (lambda: py2048.pack(np.full((4, 4), 16)), ValueError, "0 \\(empty\\) to 15"),
        (lambda: py2048.encode([1], max_pow=1), ValueError, "max_pow"),
        (lambda: py2048.encode([1], obs_mode="rgb"), ValueError, "obs_mode"),
        (lambda: py2048.parse_board(42), TypeError, "str"),
        (lambda: py2048.format_board(np.zeros((3, 4), dtype=np.uint8)), ValueError, "shape"),
        (lambda: py2048.format_board(np.zeros((9, 9), dtype=np.uint8)), ValueError, "9"),
    ],
)
def test_bad_input_raises_a_clear_exception(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "action, error",
    [(4, ValueError), (-1, ValueError), (1.5, TypeError), ("up", TypeError), (np.array([0, 1]), TypeError), (np.float32(1), TypeError)],
)
def test_bad_env_actions_raise(action, error):
    env = py2048.Env2048()
    env.reset(seed=0)
    with pytest.raises(error):
        env.step(action)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"size": 1}, "size"),
        ({"size": 9}, "size"),
        ({"four_probability": 1.5}, "probability"),
        ({"obs_mode": "rgb"}, "obs_mode"),
        ({"max_pow": 0}, "max_pow"),
        ({"render_mode": "window"}, "render_mode"),
    ],
)
def test_bad_env_settings_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        py2048.Env2048(**kwargs)
