"""What a program written for gymnasium-2048 uses: the board functions, a
settable board, int rewards, pickling and copying, the class name and id,
and the terminal render; and the whole game past 32768 on every entry point.

Such a program must run unchanged on py2048, so each thing it relies on
is checked here: gymnasium-2048's attributes, env.board edited in place,
its rgb_array frame, its play script.
"""

import copy
import pickle
import sys

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


def test_human_render_prints_the_board_without_pygame(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # `import pygame` fails
    env = Env2048(render_mode="human")
    env.reset(seed=0)
    env.step(0)
    out = capsys.readouterr().out
    assert out.count("Score: ") == 2 and out.count("+--------+--------+--------+--------+\n") == 10
    assert env.render() is None
    assert capsys.readouterr().out.count("Score: ") == 1
    # gymnasium-2048's frame clock is there all the same.
    assert env.clock.tick(1000) >= 0


def test_gymnasium_2048s_attributes_follow_the_game():
    # What gymnasium-2048's environment has as attributes, and its scripts
    # read: they must follow the game here too.
    env = Env2048()
    _, info = env.reset(seed=5)
    assert (env.total_score, env.step_score, env.is_legal, env.illegal_count) == (0, 0, True, 0)
    assert env.clock is None  # as gymnasium-2048's outside its human mode
    rng = np.random.default_rng(0)
    seen_illegal = False
    for _ in range(300):
        _, reward, terminated, _, info = env.step(int(rng.integers(4)))
        assert env.total_score == info["total_score"] == env.score
        assert env.step_score == info["step_score"] == reward
        assert env.is_legal == info["is_legal"]
        assert env.illegal_count == info["illegal_count"]
        seen_illegal |= not env.is_legal
        if terminated:
            break
    assert seen_illegal and env.illegal_count > 0
    env.reset()
    assert (env.total_score, env.step_score, env.is_legal, env.illegal_count) == (0, 0, True, 0)


def test_gymnasium_2048s_attributes_can_be_assigned():
    # (gymnasium-2048's are plain attributes; ours
    # were read-only properties). The score and the illegal count are the
    # game's: what the next steps add counts on from the value assigned.
    env = Env2048(obs_mode="exponents")
    env.reset(seed=3)
    env.board = py2048.parse_board("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0")
    env.total_score, env.illegal_count = 1000, 7
    env.step_score, env.is_legal = 12, False
    assert (env.total_score, env.score, env.illegal_count) == (1000, 1000, 7)
    assert (env.step_score, env.is_legal) == (12, False)
    _, reward, _, _, info = env.step(3)
    assert reward == 4 and info["total_score"] == env.total_score == 1004
    assert (env.step_score, env.is_legal) == (4, True)
    env.board = py2048.parse_board("2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0")
    info = env.step(0)[4]  # up: nothing moves
    assert info["illegal_count"] == env.illegal_count == 8
    # A copy keeps what was assigned.
    env.step_score = 9
    twin = copy.deepcopy(env)
    assert (twin.total_score, twin.step_score, twin.illegal_count) == (1004, 9, 8)
    # The values are checked as the constructor's are.
    for name, bad, error in [
        ("total_score", -1, ValueError), ("total_score", 2**64, ValueError),
        ("total_score", 1.5, TypeError), ("step_score", -4, ValueError),
        ("step_score", "4", TypeError), ("illegal_count", True, TypeError),
        ("illegal_count", -1, ValueError), ("is_legal", 1, TypeError),
        ("is_legal", None, TypeError),
    ]:
        with pytest.raises(error, match=name):
            setattr(env, name, bad)
    assert (env.total_score, env.step_score, env.is_legal, env.illegal_count) == (1004, 9, False, 8)
    env.reset()
    assert (env.total_score, env.step_score, env.is_legal, env.illegal_count) == (0, 0, True, 0)


def test_the_frame_font_draws_each_letter_as_itself():
    # The e of "Score" was as tall as the S, so the
    # word read "ScorE". Lower-case letters stand on the x-height (the top
    # row empty), capitals and digits fill all five rows.
    text = "Score: 0123456789"
    image = np.zeros((5, 4 * len(text), 3), dtype=np.uint8)
    py2048.render._draw_text(image, text, 0, 0, 1, (255, 255, 255))
    drawn = {
        ch: tuple("".join("#" if image[y, 4 * k + x, 0] else "." for x in range(3)) for y in range(5))
        for k, ch in enumerate(text)
    }
    expected = {
        "S": (".##", "#..", ".#.", "..#", "##."),
        "c": ("...", "###", "#..", "#..", "###"),
        "o": ("...", "###", "#.#", "#.#", "###"),
        "r": ("...", "##.", "#.#", "#..", "#.."),
        "e": ("...", ".#.", "###", "#..", ".##"),
        ":": ("...", ".#.", "...", ".#.", "..."),
        " ": ("...",) * 5,
        "0": ("###", "#.#", "#.#", "#.#", "###"),
        "1": (".#.", "##.", ".#.", ".#.", "###"),
        "2": ("###", "..#", "###", "#..", "###"),
        "3": ("###", "..#", "###", "..#", "###"),
        "4": ("#.#", "#.#", "###", "..#", "..#"),
        "5": ("###", "#..", "###", "..#", "###"),
        "6": ("###", "#..", "###", "#.#", "###"),
        "7": ("###", "..#", ".#.", ".#.", ".#."),
        "8": ("###", "#.#", "###", "#.#", "###"),
        "9": ("###", "#.#", "###", "..#", "###"),
    }
    assert drawn == expected
    for ch, rows in drawn.items():
        if ch.islower():
            assert rows[0] == "...", f"{ch!r} stands above the x-height"
        elif ch.isalnum():
            assert "#" in rows[0] and "#" in rows[4], f"{ch!r} is not full height"


def test_editing_env_board_in_place_changes_the_game():
    # gymnasium-2048's env.board is the game's, and programs edit it in
    # place to set up a position.
    env = Env2048(obs_mode="exponents")
    env.reset(seed=2)
    board = env.board
    board[:] = py2048.parse_board("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0")
    assert env.board is board  # the same array until the next step
    assert env.render() is None and env.action_masks().tolist() == [False, True, True, True]
    obs, reward, _, _, info = env.step(3)
    assert reward == 4 and info["board"][0, 0] == 2 and obs[0, 0] == 2
    # The step left that array behind: editing it now changes nothing.
    board[:] = 0
    assert env.board[0, 0] == 2 and env.board is not board
    # One cell, as gymnasium-2048's users write it.
    env.board[3, 3] = 11
    assert env.step(0)[4]["max"] == 11
    # An edit the game cannot hold is refused at the next use.
    env.board[0, 0] = 40
    with pytest.raises(ValueError, match="env.board was edited"):
        env.step(0)
    # A reset leaves the array behind too.
    env.board[0, 0] = 1
    kept = env.board
    env.reset()
    kept[:] = 5
    assert not (env.board == 5).all()


@pytest.mark.parametrize("size", [4, 5, 3])
def test_rgb_array_is_gymnasium_2048s_frame_with_the_score(size):
    # gymnasium-2048's rgb_array is 400 wide and 460 high, the score in the
    # band under the board, whatever the size; code that records or crops
    # its frames expects that shape.
    env = Env2048(render_mode="rgb_array", size=size)
    env.reset(seed=1)
    env.board = np.zeros((size, size), dtype=np.uint8)
    frame = env.render()
    assert frame.shape == (460, 400, 3) and frame.dtype == np.uint8
    window, board, empty = (250, 248, 238), (186, 172, 160), (204, 193, 178)
    assert tuple(frame[5, 5]) == window and tuple(frame[440, 395]) == window
    assert tuple(frame[25, 25]) == board and tuple(frame[375, 375]) == board
    # Rounded corners: the board's very corner pixel is the window's.
    assert tuple(frame[20, 20]) == window and tuple(frame[22, 22]) == board
    cell = 350 // size
    for r in range(size):
        for c in range(size):
            y, x = 30 + r * cell + (cell - 10) // 2, 30 + c * cell + (cell - 10) // 2
            assert tuple(frame[y, x]) == empty
    band = frame[400:]
    assert (band == 0).all(axis=-1).sum() > 50  # "Score: 0" in black
    pair = np.zeros((size, size), dtype=np.uint8)
    pair[0, :2] = 1
    env.board = pair
    assert env.step(3)[1] == 4
    assert not np.array_equal(env.render()[400:], band)  # the score went up
    assert not np.array_equal(env.render()[:400], frame[:400])


def test_gymnasium_2048s_play_script_runs(monkeypatch):
    # The loop of gymnasium-2048's scripts/play.py
    # (keys read with pygame, the window's clock ticked) on py2048's
    # environment, with SDL's dummy video driver standing in for a display.
    pygame = pytest.importorskip("pygame", reason="the human window needs pygame (ci-requirements has it)")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make("py2048/TwentyFortyEight-v0", size=4, render_mode="human")
    try:
        _, info = env.reset(seed=0)
        assert pygame.display.get_surface().get_size() == (400, 460)
        assert pygame.display.get_caption()[0] == "2048"
        terminated = truncated = False
        for action in [0, 1, 2, 3]:
            for event in pygame.event.get():
                truncated |= event.type == pygame.QUIT
            pygame.key.get_pressed()
            _, _, terminated, truncated, info = env.step(action)
            env.unwrapped.clock.tick(30)
        # The window shows the rgb_array frame.
        shown = np.transpose(pygame.surfarray.array3d(pygame.display.get_surface()), (1, 0, 2))
        frame = py2048.render.rgb(env.unwrapped.board, info["total_score"])
        np.testing.assert_array_equal(shown, frame)
    finally:
        env.close()
    assert not pygame.display.get_init()


@pytest.mark.parametrize("driver", [None, "no-such-video-driver"])
def test_human_mode_without_a_display_warns_and_prints(monkeypatch, capsys, driver):
    pygame = pytest.importorskip("pygame", reason="the human window needs pygame (ci-requirements has it)")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    if driver:
        monkeypatch.setenv("SDL_VIDEODRIVER", driver)
    env = Env2048(render_mode="human")
    with pytest.warns(RuntimeWarning, match="no window for render_mode='human'"):
        env.reset(seed=0)
    env.step(0)
    assert capsys.readouterr().out.count("Score: ") == 2
    env.close()
    assert not pygame.display.get_init()
