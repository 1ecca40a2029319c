"""``Env2048``: one game of 2048 as a gymnasium environment, stepped by the
Rust engine, compatible with gymnasium-2048's conventions."""

from __future__ import annotations

import time
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from py2048 import _native, render
from py2048.board import ObsMode, as_exponents, whole

#: The largest exponent a board holds: 25, the 2^25 tile, the engine's cap
#: (a 4x4 game reaches at most 17, the 131072 tile).
MAX_EXPONENT: int = _native.MAX_EXPONENT

ILLEGAL_ACTIONS = ("noop", "penalty", "terminate")


def observation_space(size: int, obs_mode: str, max_pow: int) -> spaces.Box:
    """The space of one board's observation."""
    if obs_mode == "onehot":
        return spaces.Box(low=0, high=1, shape=(size, size, max_pow), dtype=np.uint8)
    return spaces.Box(low=0, high=MAX_EXPONENT, shape=(size, size), dtype=np.uint8)


def _as_action(action: Any) -> int:
    """An action as an int from 0 to 3: a ``TypeError`` for what is not an
    integer (a bool included), a ``ValueError`` for any other integer."""
    if isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            raise TypeError(
                f"an action is one integer 0 to 3, got an array of shape {action.shape}"
                f" and dtype {action.dtype}"
            )
        action = int(action)
    elif isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is one integer 0 to 3, got {type(action).__name__}")
    if not 0 <= action <= 3:
        raise ValueError(f"action {action} is not one of 0 (up), 1 (right), 2 (down), 3 (left)")
    return int(action)


class FrameClock:
    """What ``pygame.time.Clock`` offers code written for gymnasium-2048
    (its ``env.unwrapped.clock.tick(fps)``), without pygame: ``tick`` holds
    the calls to at most ``framerate`` a second."""

    def __init__(self) -> None:
        self._last: float | None = None
        self._time = 0

    def tick(self, framerate: float = 0) -> int:
        """Waits until ``1 / framerate`` seconds have passed since the last
        call (not at all for 0); the milliseconds since that call."""
        now = time.monotonic()
        if self._last is not None and framerate > 0:
            wait = self._last + 1 / framerate - now
            if wait > 0:
                time.sleep(wait)
                now = time.monotonic()
        self._time = 0 if self._last is None else round(1000 * (now - self._last))
        self._last = now
        return self._time

    def get_time(self) -> int:
        """The milliseconds between the last two calls of :meth:`tick`."""
        return self._time


class Env2048(gym.Env[npt.NDArray[np.uint8], int]):
    """One game of 2048.

    Actions: 0 up, 1 right, 2 down, 3 left (gymnasium-2048's). The reward is
    the sum of the tiles merged by the move; ``terminated`` when no action
    changes the board.

    Args:
        render_mode: ``"ansi"`` (the bordered board as text),
            ``"rgb_array"`` (gymnasium-2048's picture, ``(460, 400, 3)``: the
            board and the score beneath, drawn with numpy), ``"human"``
            (after every reset and step, that picture in a pygame window at
            ``render_fps`` frames a second, as gymnasium-2048 shows it; with
            no pygame, or no display for its window, the ``"ansi"`` text
            printed to the terminal) or ``None``.
        size: rows and columns, 2 to 8 (4 is the packed fast path).
        max_pow: one-hot channels (gymnasium-2048's option): channel ``e`` is
            lit for exponent ``e`` (0 empty); exponents at or above
            ``max_pow - 1`` light the last channel.
        obs_mode: ``"onehot"`` (``(size, size, max_pow)`` uint8, the
            default) or ``"exponents"`` (``(size, size)`` uint8, 0 to
            ``MAX_EXPONENT``; 16 is the 65536 tile).
        four_probability: the probability that a spawned tile is a 4.
        illegal_action: what an action that changes nothing does:
            ``"noop"`` (nothing, reward 0: gymnasium-2048's rule),
            ``"penalty"`` (nothing, reward ``-illegal_penalty``) or
            ``"terminate"`` (the episode ends, reward ``-illegal_penalty``).
        illegal_penalty: see ``illegal_action``.

    ``info`` holds gymnasium-2048's keys (``board``: the exponents,
    ``step_score``, ``total_score``, ``max``: the largest exponent,
    ``is_legal``, ``illegal_count``) and ``action_mask``: int8, which actions
    change the board the agent now sees. Every array is new on every call.
    The same figures are attributes, as gymnasium-2048's environment has
    them: :attr:`total_score`, :attr:`step_score`, :attr:`is_legal`,
    :attr:`illegal_count` (all four assignable, checked), and :attr:`board`;
    and :attr:`clock` in human mode.

    ``reset(seed=s)`` starts a stream of episode seeds: the same seed gives
    the same games, whatever else happened before.

    The reward is an ``int`` (the merged tiles' sum), a ``float`` only for an
    illegal action's penalty. ``env.board = b`` sets the board mid-game (the
    score and the spawns go on); :meth:`apply_action` and
    :meth:`is_terminated` are gymnasium-2048's board functions, exact past
    32768 and on any size. An environment pickles and ``copy.deepcopy``-s:
    the copy plays on exactly as the original would.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        render_mode: str | None = None,
        size: int = 4,
        max_pow: int = 16,
        obs_mode: ObsMode = "onehot",
        four_probability: float = 0.1,
        illegal_action: str = "noop",
        illegal_penalty: float = 1.0,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None, 'ansi', 'rgb_array' or 'human', got {render_mode!r}"
            )
        size = whole(size, "size")
        max_pow = whole(max_pow, "max_pow")
        self._core = _native.EnvCore(
            size, float(four_probability), obs_mode, max_pow,
            illegal_action, float(illegal_penalty),
        )
        self.render_mode = render_mode
        self.size = size
        self.observation_space = observation_space(self.size, obs_mode, max_pow)
        self.action_space = spaces.Discrete(4)
        self._seeded = False
        self._step_score = 0
        self._is_legal = True
        # The array env.board handed out, and what it held then: edits made
        # in place reach the game before it is next read or stepped.
        self._board: npt.NDArray[np.uint8] | None = None
        self._board_was: npt.NDArray[np.uint8] | None = None
        self._window: render.Window | None = None
        #: gymnasium-2048's frame clock in human mode (``tick(fps)``), else
        #: ``None`` as there.
        self.clock: FrameClock | None = FrameClock() if render_mode == "human" else None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        if seed is not None:
            seed = whole(seed, "seed")
        super().reset(seed=seed)
        if seed is not None:
            self._core.seed(seed)
            self._seeded = True
        elif not self._seeded:
            self._core.seed(int(self.np_random.integers(0, 2**63)))
            self._seeded = True
        obs = self._core.reset()
        self._board = self._board_was = None
        self._step_score, self._is_legal = 0, True
        info = {
            "board": self._core.exponents(),
            "step_score": 0,
            "total_score": 0,
            "max": self._core.max_exponent(),
            "is_legal": True,
            "illegal_count": 0,
            "action_mask": self._core.action_mask(),
        }
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(
        self, action: int
    ) -> tuple[npt.NDArray[np.uint8], SupportsFloat, bool, bool, dict[str, Any]]:
        if type(action) is not int:
            action = _as_action(action)
        if self._board is not None:
            self._take_board_edits()
            self._board = self._board_was = None
        try:
            obs, reward, terminated, legal, gained, mask, board, total, top, n_illegal = (
                self._core.step(action)
            )
        except OverflowError:
            _as_action(action)  # a ValueError for an int past the engine's
            raise
        self._step_score, self._is_legal = gained, legal
        info = {
            "board": board,
            "step_score": gained,
            "total_score": total,
            "max": top,
            "is_legal": legal,
            "illegal_count": n_illegal,
            "action_mask": mask,
        }
        if legal or reward == 0:
            # The merged tiles' sum, an int as gymnasium-2048 gives it.
            reward = gained
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Which actions change the board now, as booleans (the method
        sb3-contrib's MaskablePPO calls)."""
        self._take_board_edits()
        return self._core.action_mask().astype(np.bool_)

    @property
    def board(self) -> npt.NDArray[np.uint8]:
        """The exponents of the board, ``(size, size)`` uint8, as
        gymnasium-2048's ``env.board``: an edit made in place
        (``env.board[0, 0] = 11``) is the game's board from then on, until
        the next step or reset, which leave this array behind (read
        ``env.board`` again). A value that is no exponent raises a
        ``ValueError`` at the next use. The score, the move count and the
        spawns go on from the board as edited."""
        self._take_board_edits()
        if self._board is None:
            self._board = self._core.exponents()
            self._board_was = self._board.copy()
        return self._board

    @board.setter
    def board(self, board: Any) -> None:
        """Puts a board in the game (exponents ``(size, size)``, its text, a
        packed ``int`` or a one-hot observation); the score, the move count
        and the spawns go on from there."""
        self._core.set_board(as_exponents(board))
        self._board = self._board_was = None

    def _take_board_edits(self) -> None:
        """Puts in the game what was written into :attr:`board`'s array in
        place since it was handed out."""
        if self._board is None or np.array_equal(self._board, self._board_was):
            return
        try:
            self._core.set_board(as_exponents(self._board))
        except (TypeError, ValueError) as e:
            # The game keeps its board; env.board reads it afresh.
            self._board = self._board_was = None
            raise ValueError(f"env.board was edited into a board the game cannot hold: {e}") from e
        self._board_was = self._board.copy()

    @property
    def total_score(self) -> int:
        """The episode's score so far (gymnasium-2048's name; as :attr:`score`).
        Assigning it sets the game's score (a whole number of 0 or more), from
        which the next merges count on, as gymnasium-2048's attribute does."""
        return self._core.score()

    @total_score.setter
    def total_score(self, value: int) -> None:
        self._core.set_score(whole(value, "total_score"))

    @property
    def step_score(self) -> int:
        """What the last step's merges scored (0 after a reset); assignable
        (a whole number of 0 or more) until the next step or reset."""
        return self._step_score

    @step_score.setter
    def step_score(self, value: int) -> None:
        self._step_score = whole(value, "step_score")

    @property
    def is_legal(self) -> bool:
        """Whether the last step's action changed the board (``True`` after
        a reset); assignable (a bool) until the next step or reset."""
        return self._is_legal

    @is_legal.setter
    def is_legal(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"is_legal must be a bool, got {type(value).__name__}")
        self._is_legal = bool(value)

    @property
    def illegal_count(self) -> int:
        """The episode's illegal actions so far; assigning it (a whole number
        of 0 or more) sets the count the next illegal actions add to."""
        return self._core.illegal_count()

    @illegal_count.setter
    def illegal_count(self, value: int) -> None:
        self._core.set_illegal_count(whole(value, "illegal_count"))

    @staticmethod
    def apply_action(board: Any, action: int) -> tuple[npt.NDArray[np.uint8], int, bool]:
        """``board`` (exponents ``(n, n)``, any size, tiles past 32768
        included) moved by ``action`` without a spawn: ``(next_board,
        score gained, whether the action changed the board)``, as
        gymnasium-2048's ``TwentyFortyEightEnv.apply_action``."""
        next_board, gained, legal = _native.slide_board(as_exponents(board), _as_action(action))
        return next_board, gained, legal

    @staticmethod
    def is_terminated(board: Any) -> bool:
        """Whether no action changes ``board`` (exponents ``(n, n)``)."""
        return _native.board_over(as_exponents(board))

    @property
    def packed_board(self) -> int:
        """The packed board (4x4 only), for :func:`py2048.apply_action`."""
        self._take_board_edits()
        packed = self._core.packed()
        if packed is None and self.size == 4:
            raise ValueError("this board holds a tile past 32768, which a packed int cannot")
        if packed is None:
            raise ValueError(f"only 4x4 boards pack into an int, this one is {self.size}x{self.size}")
        return packed

    @property
    def score(self) -> int:
        """The score of the episode so far."""
        return self._core.score()

    def render(self) -> str | npt.NDArray[np.uint8] | None:  # type: ignore[override]
        self._take_board_edits()
        if self.render_mode == "ansi":
            return render.ansi(self._core.exponents(), self._core.score())
        if self.render_mode == "rgb_array":
            return render.rgb(self._core.exponents(), self._core.score())
        if self.render_mode == "human":
            if self._window is None:
                self._window = render.Window()
            frame = render.rgb(self._core.exponents(), self._core.score())
            if self._window.show(frame):
                assert self.clock is not None
                self.clock.tick(self.metadata["render_fps"])
            else:
                print(render.ansi(self._core.exponents(), self._core.score()), flush=True)
        return None

    def close(self) -> None:
        """Closes the human mode's window, if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        # A copy opens a window of its own when it renders.
        state = self.__dict__.copy()
        state["_window"] = None
        return state


class TwentyFortyEightEnv(Env2048):
    """:class:`Env2048` under gymnasium-2048's class name, so that a program
    written for it switches by one import (``from py2048 import
    TwentyFortyEightEnv``); registered as ``py2048/TwentyFortyEight-v0``,
    with no step limit, as gymnasium-2048's own id has none."""
