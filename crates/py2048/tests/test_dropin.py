"""What a program written for gymnasium-2048 uses: the board functions, a
settable board, int rewards, pickling and copying, the class name and id,
and the terminal render; and the whole game past 32768 on every entry point.

See: issue 35, items 1 and 2.
"""

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import py2048
from py2048 import Env2048


def slide_left_reference(row):
    """One row slid left, the obvious way: tiles pulled together, equal
    neighbours merged once, left to right. Returns the row and the score."""
    tiles = [int(e) for e in row if e]
    out, score, i = [], 0, 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(tiles[i] + 1)
            score += 2 ** (tiles[i] + 1)
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (len(row) - len(out)), score


def apply_reference(board, action):
    """gymnasium-2048's apply_action, by rotating the board so that the
    action becomes a slide to the left (0 up, 1 right, 2 down, 3 left)."""
    turns = {0: 1, 1: 2, 2: 3, 3: 0}[action]
    b = np.rot90(board, turns)
    rows, score = [], 0
    for row in b:
        r, s = slide_left_reference(list(row))
        rows.append(r)
        score += s
    after = np.rot90(np.array(rows, dtype=np.uint8), -turns)
    return after, score, not np.array_equal(after, board)


def random_boards(rng, size, count, top):
    """Boards with random exponents 0 to ``top``, half of them empty cells,
    with equal neighbours planted so that merges happen."""
    for _ in range(count):
        b = rng.integers(1, top + 1, size=(size, size)).astype(np.uint8)
        b[rng.random((size, size)) < 0.4] = 0
        r, c = rng.integers(0, size, 2)
        b[r, (c + 1) % size] = b[r, c]
        yield b


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8])
def test_env_apply_action_matches_the_reference_on_any_size_and_past_32768(size):
    rng = np.random.default_rng(size)
    top = min(size * size + 1, py2048.MAX_EXPONENT) - 1
    for board in random_boards(rng, size, 400, top):
        for action in range(4):
            after, score, legal = Env2048.apply_action(board, action)
            want, want_score, want_legal = apply_reference(board, action)
            np.testing.assert_array_equal(after, want)
            assert (score, legal) == (want_score, want_legal)
            assert type(score) is int and type(legal) is bool
            assert Env2048.is_terminated(board) == (
                not any(apply_reference(board, a)[2] for a in range(4))
            )


def test_two_32768s_make_65536_or_an_exception_never_a_32768():
    text = "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0"
    exps = py2048.parse_board(text)
    packed = py2048.pack(exps)
    # The packed form cannot hold a 65536: it refuses, naming the way out.
    with pytest.raises(ValueError, match="65536.*packed uint64.*Env2048.apply_action"):
        py2048.apply_action(packed, 3)
    with pytest.raises(ValueError, match="board 1"):
        py2048.apply_action(np.array([0, packed], dtype=np.uint64), np.array([3, 3]))
    # A 32768 made from two 16384s still packs.
    after, reward, legal = py2048.apply_action(py2048.pack(py2048.parse_board(
        "16384 16384 0 0/0 0 0 0/0 0 0 0/0 0 0 0")), 3)
    assert py2048.unpack(after)[0, 0] == 15 and reward == 32768 and legal
    # Moves that merge nothing past 32768 are fine on a board that holds two.
    after, reward, legal = py2048.apply_action(packed, 0)
    assert not legal and reward == 0 and after == packed
    # The board functions and the environment play it exactly.
    after, score, legal = Env2048.apply_action(exps, 3)
    assert after[0, 0] == 16 and score == 65536 and legal
    env = Env2048(obs_mode="exponents")
    env.reset(seed=0)
    env.board = text
    obs, reward, *_ = env.step(3)
    assert obs[0, 0] == 16 and reward == 65536 and env.score == 65536
    with pytest.raises(ValueError, match="past 32768"):
        env.packed_board
    assert py2048.encode(py2048.pack(py2048.parse_board("0 0 0 2/0 0 0 0/0 0 0 0/0 0 0 0"))).shape
    # pack itself refuses what a uint64 cannot hold.
    with pytest.raises(ValueError, match="0 \\(empty\\) to 15"):
        py2048.pack(np.full((4, 4), 16))


def test_the_board_can_be_set_and_the_game_goes_on():
    env = Env2048()
    env.reset(seed=3)
    env.step(0)
    score, moves_before = env.score, 1
    env.board = "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0"
    np.testing.assert_array_equal(env.board, py2048.parse_board("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0"))
    assert env.score == score
    _, reward, _, _, info = env.step(3)
    assert reward == 4 and info["total_score"] == score + 4
    assert moves_before == 1
    # Every board form is accepted; a wrong size or a bad value is refused.
    env.board = np.zeros((4, 4), dtype=np.uint8) + np.eye(4, dtype=np.uint8)
    env.board = py2048.pack(py2048.parse_board("4 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"))
    with pytest.raises(ValueError, match="5x5 but this environment plays 4x4"):
        env.board = np.zeros((5, 5), dtype=np.uint8)
    with pytest.raises(ValueError, match="exponents"):
        env.board = np.full((4, 4), 30)
    # The setter draws no spawn: two environments given the same board after
    # the same seed play on alike.
    a, b = Env2048(), Env2048()
    a.reset(seed=9)
    b.reset(seed=9)
    a.board = b.board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
    for action in [0, 1, 2, 3] * 5:
        assert np.array_equal(a.step(action)[0], b.step(action)[0])


def test_rewards_are_ints_but_for_a_penalty():
    env = Env2048()
    env.reset(seed=0)
    env.board = "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0"
    _, reward, *_ = env.step(3)
    assert type(reward) is int and reward == 4
    env.board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"
    _, reward, *_ = env.step(3)  # illegal, no-op rule
    assert type(reward) is int and reward == 0
    env = Env2048(illegal_action="penalty", illegal_penalty=2.5)
    env.reset(seed=0)
    env.board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"
    assert env.step(3)[1] == -2.5


@pytest.mark.parametrize("kwargs", [{}, {"size": 5, "obs_mode": "exponents"}, {"illegal_action": "penalty"}])
def test_a_pickled_or_copied_env_plays_on_exactly(kwargs):
    env = Env2048(**kwargs)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for action in rng.integers(0, 4, 60):
        env.step(int(action))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    actions = [int(a) for a in rng.integers(0, 4, 300)]
    for other in copies:
        assert other.score == env.score
        np.testing.assert_array_equal(other.board, env.board)
    trace = lambda e: [(e.step(a)[0].tobytes(), e.score) for a in actions] + [
        e.reset()[0].tobytes()
    ]
    want = trace(copy.deepcopy(env))
    for other in copies:
        assert trace(other) == want
    assert trace(env) == want
    # The copies are independent of the original.
    env.board = np.zeros(env.board.shape, dtype=np.uint8)
    assert copies[0].board.any()


def test_the_gymnasium_2048_name_and_id():
    assert issubclass(py2048.TwentyFortyEightEnv, Env2048)
    assert py2048.TwentyFortyEightEnv.__name__ == "TwentyFortyEightEnv"
    env = gym.make("py2048/TwentyFortyEight-v0")
    assert env.spec.max_episode_steps is None
    obs, info = env.reset(seed=0)
    assert obs.shape == (4, 4, 16) and obs.dtype == np.uint8
    for key in ["board", "step_score", "total_score", "max", "is_legal", "illegal_count"]:
        assert key in info
    # gymnasium-2048's agents call the board functions on the class.
    after, reward, legal = py2048.TwentyFortyEightEnv.apply_action(board=info["board"], action=0)
    assert after.shape == (4, 4)
    check_env(py2048.TwentyFortyEightEnv(), skip_render_check=True)


def test_human_render_prints_the_board_without_pygame(capsys):
    env = Env2048(render_mode="human")
    env.reset(seed=0)
    env.step(0)
    out = capsys.readouterr().out
    assert out.count("Score: ") == 2 and out.count("+--------+--------+--------+--------+\n") == 10
    assert env.render() is None
    assert capsys.readouterr().out.count("Score: ") == 1
    assert "pygame" not in __import__("sys").modules
