"""The expectimax solver and the learned evaluator from Python."""

from __future__ import annotations

import functools
import os
import warnings
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from py2048 import _native
from py2048.board import ACTION_NAMES, as_boards, as_exponents, pack, whole

#: The most search threads (the engine's bound): more threads than cores
#: only slow a search down.
MAX_THREADS: int = _native.MAX_THREADS

#: The presets, as the engine lists them (``default`` and ``max``, the old
#: names of ``heuristic`` and ``heuristic-max``, still work).
PRESETS: tuple[str, ...] = tuple(_native.PRESETS)

#: The search settings a :class:`Solver` takes over its preset's, by name,
#: each with what it does: the engine's list, so that a setting added there
#: is a keyword here.
SETTINGS: dict[str, str] = dict(_native.settings())

#: The preset played when none is named (on 4x4 boards; the heuristic on
#: other sizes, which the learned network does not play).
DEFAULT_PRESET: str = _native.DEFAULT_PRESET

#: The weights file the learned presets load by default: the one the wheel
#: carries (``py2048/weights/``; in a source checkout, a link to the
#: repository's).
SHIPPED_WEIGHTS: str = str(Path(__file__).parent / "weights" / "4x6.n2048")


def shipped_weights() -> str:
    """:data:`SHIPPED_WEIGHTS`, or a ``FileNotFoundError`` that says to
    reinstall py2048 when this installation lacks it."""
    if not os.path.isfile(SHIPPED_WEIGHTS):
        raise FileNotFoundError(
            f"py2048's shipped network {SHIPPED_WEIGHTS} is missing from this installation:"
            " reinstall py2048 (pip install --force-reinstall py2048, or pip install"
            " ./crates/py2048 from a clone of the repository), or pass weights=PATH to a"
            " weights file"
        )
    return SHIPPED_WEIGHTS


def _weights(weights: str | os.PathLike[str] | None) -> str:
    """The weights file to load: ``weights``, or the shipped one."""
    return shipped_weights() if weights is None else os.fspath(weights)


@dataclass(frozen=True)
class Decision:
    """A solver's choice for one board."""

    #: The best action: 0 up, 1 right, 2 down, 3 left.
    action: int
    #: Each action's value (expected score from there, in the search's
    #: units), ``None`` for an action that changes nothing.
    values: tuple[float | None, float | None, float | None, float | None]
    #: The depth searched.
    depth: int
    #: Seconds the search took.
    seconds: float
    #: The endgame table that decided (``"chain of 10 ending in 32"``), or
    #: ``None`` when the search did. A table's ``values`` are each action's
    #: odds of building the chain's next tile (0 to 1), and ``depth`` is 0.
    endgame: str | None = None

    @property
    def direction(self) -> str:
        """The best action's name: ``"up"``, ``"right"``, ``"down"`` or ``"left"``."""
        return ACTION_NAMES[self.action]


class EndgameTables:
    """The endgame tables (docs/endgame.md): the exact odds of building a
    late-game chain's next tile, which a solver made with ``endgame=`` plays
    by where one applies.

    Args:
        path: their folder (default: ``cli-ascii-2048/endgame`` in the
            user's cache folder, which ``lab tables build`` fills).
        max_states: only the tables of at most this many states (for the
            corner preset, the largest step and block within it; default:
            all, 0.8 GB, built in about two minutes on two cores).
        preset: the preset whose tables these are: ``"corner"`` for the
            corner preset's corner tables (6.7 GB, about fifteen minutes to
            build), ``"corner-big"`` for those with the big step table (26
            GB, about fifteen minutes more), which they need; the chains'
            for every other.

    Tables missing from the folder, or damaged, are built there first (a
    line on stderr for each); ``OSError`` if the folder cannot be written.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_states: int | None = None,
        preset: str | None = None,
    ) -> None:
        if max_states is not None:
            max_states = whole(max_states, "max_states", minimum=1, maximum=2**64 - 1)
        folder = None if path is None else os.fspath(path)
        self._tables = _native.EndgameTables(folder, max_states, preset)
        #: The folder.
        self.path: str = self._tables.path
        #: How many tables.
        self.count: int = self._tables.count
        #: Their bytes in memory.
        self.nbytes: int = self._tables.nbytes

    def __repr__(self) -> str:
        return f"EndgameTables({self.path!r}: {self.count} tables, {self.nbytes} bytes)"


class Solver:
    """A solver made once and reused (its transposition table stays warm
    between decisions).

    Args:
        preset: one of :data:`PRESETS` (default: :data:`DEFAULT_PRESET`).
        time_ms: a time budget per decision (the search deepens until it runs out).
        weights: the learned presets' weights file (default:
            :data:`SHIPPED_WEIGHTS`; ``FileNotFoundError`` if absent).
        endgame: :class:`EndgameTables` to play by on late-game chains (4x4
            boards, a 4 one spawn in ten); the search decides elsewhere.
        settings: the search settings over the preset's, by name: any of
            :data:`SETTINGS` (``depth=6``, ``threads=1``, ``prob_cutoff=1e-3``,
            ``depth_bonus=1``, ...; ``cli-ascii``'s options of the same
            names); ``None`` keeps the preset's. A ``TypeError`` for an
            unknown name or a value of the wrong type, a ``ValueError`` for
            one out of range or where the preset has no such setting. More
            ``threads`` than the machine's cores gives a ``RuntimeWarning``.

    Note that ``heuristic`` allocates a 256 MB table and ``heuristic-max`` 1 GB.
    """

    def __init__(
        self,
        preset: str | None = None,
        time_ms: int | None = None,
        *,
        weights: str | os.PathLike[str] | None = None,
        endgame: EndgameTables | None = None,
        **settings: int | float | None,
    ) -> None:
        if endgame is not None and not isinstance(endgame, EndgameTables):
            raise TypeError(f"endgame= takes py2048.EndgameTables, not {type(endgame).__name__}")
        settings = {"time_ms": time_ms, **settings}
        threads = settings.get("threads")
        if preset is None:
            preset = DEFAULT_PRESET
        self.preset = preset
        if weights is None and _native.is_learned(preset):
            weights = shipped_weights()
        tables = None if endgame is None else endgame._tables
        self._solver = _native.Solver(preset, weights, tables, settings)
        cores = os.cpu_count() or 1
        if isinstance(threads, int) and threads > cores:
            warnings.warn(
                f"threads={threads} is more than this machine's {cores} core(s):"
                " the extra threads only slow the search",
                RuntimeWarning,
                stacklevel=2,
            )

    def decide(self, board: Any, four_probability: float = 0.1) -> Decision:
        """The best action for ``board``: its text (``"2 0 0 2/..."``), a
        packed ``int``, exponents ``(n, n)`` or a one-hot observation.

        Raises ``ValueError`` when no action changes the board.
        """
        action, values, depth, seconds, endgame = self._solver.decide(
            as_exponents(board), float(four_probability)
        )
        return Decision(action, tuple(values), depth, seconds, endgame)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=4)
def _solver(
    preset: str,
    weights: str | None,
    endgame: EndgameTables | None,
    settings: tuple[tuple[str, Any], ...],
) -> Solver:
    return Solver(preset, weights=weights, endgame=endgame, **dict(settings))


def decide(
    board: Any,
    preset: str | None = None,
    time_ms: int | None = None,
    *,
    weights: str | os.PathLike[str] | None = None,
    endgame: EndgameTables | None = None,
    four_probability: float = 0.1,
    **settings: int | float | None,
) -> Decision:
    """The best action for ``board`` and each action's value, by a solver of
    ``preset`` with ``settings`` (kept for the next call with the same
    ones). See :class:`Solver`. Without ``preset``: :data:`DEFAULT_PRESET`
    on 4x4 boards, the heuristic on other sizes."""
    if preset is None:
        preset = _native.default_preset(as_exponents(board).shape[0])
    path = None if weights is None else os.fspath(weights)
    given = tuple(sorted({"time_ms": time_ms, **settings}.items()))
    try:
        solver = _solver(preset, path, endgame, given)
    except TypeError as err:
        # An unhashable value: no cached solver, and the same checks.
        if "unhashable" not in str(err):
            raise
        solver = Solver(preset, weights=path, endgame=endgame, **dict(given))
    return solver.decide(board, four_probability)


class Network:
    """The learned n-tuple network (``weights``: a weights file; default
    :data:`SHIPPED_WEIGHTS`, ``FileNotFoundError`` if absent). Networks and
    solvers of one file share one copy while any of them lives; besides
    those, the two files used last stay loaded, and :func:`decide` and
    :func:`value` keep their last four solvers and networks. A loop over
    many files thus holds a few networks, not all of them."""

    def __init__(self, weights: str | os.PathLike[str] | None = None) -> None:
        self._net = _native.Network(_weights(weights))
        self.path: str = self._net.path

    def value(self, boards: Any) -> npt.NDArray[np.float32] | float:
        """The value of afterstates (boards after a move, before the spawn):
        the score the network expects from there. ``boards``: packed boards
        (any shape: an array of the same shape), or one board as text or
        exponents ``(4, 4)`` (a ``float``)."""
        if isinstance(boards, str) or _one_board(boards):
            exps = as_exponents(boards)
            if exps.shape != (4, 4):
                raise ValueError(f"the network values 4x4 boards, not {exps.shape[0]}x{exps.shape[1]}")
            boards = pack(exps)
        b = as_boards(boards)
        values = self._net.value(b.reshape(-1)).reshape(b.shape)
        return float(values) if values.ndim == 0 else values


def _one_board(boards: Any) -> bool:
    """Whether an array is one board of exponents ``(n, n)`` (n from 2 to
    8, values that are exponents) rather than packed boards of that shape:
    packed boards that small would hold tiles only in their first cells."""
    if not isinstance(boards, np.ndarray) or boards.ndim != 2:
        return False
    n = boards.shape[0]
    if boards.shape != (n, n) or not 2 <= n <= 8 or not np.issubdtype(boards.dtype, np.integer):
        return False
    return bool(boards.size == 0 or boards.max() <= _native.MAX_EXPONENT)


@functools.lru_cache(maxsize=4)
def _network(weights: str | None) -> Network:
    return Network(weights)


def value(boards: Any, weights: str | os.PathLike[str] | None = None) -> npt.NDArray[np.float32] | float:
    """The learned network's value of afterstates; see :meth:`Network.value`."""
    return _network(None if weights is None else os.fspath(weights)).value(boards)
