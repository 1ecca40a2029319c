"""Who plays a distributed run's games: the options of ``lab tournament``
as a plain, picklable :class:`Player`, and the native player it builds on
each worker."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from py2048 import _native
from py2048.board import whole
from py2048.solver import PRESETS, SETTINGS, shipped_weights


@dataclass(frozen=True, init=False)
class Player:
    """Who plays: the options of ``lab tournament``.

    Args:
        preset: one of :data:`py2048.PRESETS`.
        time_ms, settings: the search settings over the preset's, by name
            (any of :data:`py2048.SETTINGS`: ``depth=2``, ``threads=1``, ...,
            as ``--depth 2 --threads 1``); the engine checks each name, type
            and range. Read back as attributes (``player.depth``: ``None``
            where not given).
        weights: a learned preset's weights file on the driver (default: the
            shipped one); it reaches every node through Ray's object store.
        endgame: play the endgame tables' move on late-game chains (the
            corner preset's corner tables for it, which it needs).
        tables: the tables' folder on each node (default: its cache
            folder); ``tables_max_states`` only the tables that small.
        size, four_probability: the rules (4x4, a 4 one spawn in ten).

    A player is plain data: it pickles, and each worker process builds the
    native player once and keeps it for every game it plays.
    """

    preset: str
    #: The settings given, as ``(name, value)`` pairs in the engine's order.
    settings: tuple[tuple[str, int | float], ...]
    weights: str | None
    endgame: bool
    tables: str | None
    tables_max_states: int | None
    size: int
    four_probability: float

    def __init__(
        self,
        preset: str = _native.DEFAULT_PRESET,
        time_ms: int | None = None,
        *,
        weights: str | os.PathLike[str] | None = None,
        endgame: bool = False,
        tables: str | os.PathLike[str] | None = None,
        tables_max_states: int | None = None,
        size: int = 4,
        four_probability: float = 0.1,
        **settings: int | float | None,
    ) -> None:
        if not isinstance(preset, str):
            raise TypeError(f"preset must be a str, got {type(preset).__name__}")
        try:
            preset = _native.preset_name(preset)
        except ValueError:
            raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}") from None
        given = {"time_ms": time_ms, **settings}
        # The engine checks names, types and ranges (a TypeError or a
        # ValueError naming the setting).
        _native.setting_options(given)
        pairs = tuple((name, given[name]) for name in SETTINGS if given.get(name) is not None)
        if tables_max_states is not None:
            tables_max_states = whole(tables_max_states, "tables_max_states", minimum=1)
        size = whole(size, "size", minimum=2, maximum=8)
        if isinstance(four_probability, bool) or not isinstance(four_probability, (int, float)):
            raise TypeError(f"four_probability must be a number, got {type(four_probability).__name__}")
        if not 0 <= four_probability <= 1:
            raise ValueError(f"four_probability must lie in 0 to 1, got {four_probability}")
        if not endgame and (tables is not None or tables_max_states is not None):
            raise ValueError("tables= and tables_max_states= need endgame=True")
        if _native.uses_corner_tables(preset) and not endgame:
            raise ValueError(f"the {preset} preset plays by the corner tables: endgame=True")
        fields = {
            "preset": preset,
            "settings": pairs,
            "weights": None if weights is None else os.fspath(weights),
            "endgame": bool(endgame),
            "tables": None if tables is None else os.fspath(tables),
            "tables_max_states": tables_max_states,
            "size": size,
            "four_probability": float(four_probability),
        }
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        """A search setting by its name: its value, ``None`` where not given."""
        if name in SETTINGS:
            return dict(self.settings).get(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def with_settings(self, **changes: int | float | None) -> Player:
        """This player with ``changes`` over its settings (``None`` drops one)."""
        settings = {**dict(self.settings), **changes}
        return Player(
            self.preset,
            weights=self.weights,
            endgame=self.endgame,
            tables=self.tables,
            tables_max_states=self.tables_max_states,
            size=self.size,
            four_probability=self.four_probability,
            **settings,
        )

    @property
    def tables_preset(self) -> str:
        """The preset whose tables this player plays by: its own for a
        corner preset (Rust says which), the chains' (the heuristic's) for
        every other."""
        return self.preset if _native.uses_corner_tables(self.preset) else "heuristic"

    @property
    def learned(self) -> bool:
        """Whether the preset searches with the learned network."""
        return bool(_native.is_learned(self.preset))

    def weights_path(self) -> str | None:
        """The weights file a learned player loads on the driver."""
        if not self.learned:
            return None
        return shipped_weights() if self.weights is None else self.weights

    def options(self) -> str:
        """The options of ``lab tournament`` that give this player."""
        parts = [f"--preset {self.preset}"]
        settings = _native.setting_options(dict(self.settings))
        if settings:
            parts.append(settings)
        if self.weights is not None:
            parts.append(f"--weights {self.weights}")
        if self.endgame:
            parts.append("--endgame")
            if self.tables is not None:
                parts.append(f"--tables {self.tables}")
            if self.tables_max_states is not None:
                parts.append(f"--tables-max-states {self.tables_max_states}")
        if self.size != 4:
            parts.append(f"--size {self.size}")
        if self.four_probability != 0.1:
            parts.append(f"--four-probability {_probability(self.four_probability)}")
        return " ".join(parts)

    def settings_line(self, max_moves: int | None) -> str:
        """The settings that decide this player's games, as ``lab
        tournament`` names them in a records file: a file one of them wrote
        resumes in the other."""
        return _native.settings_line(
            self.preset,
            weights=self.weights_path(),
            endgame=self.endgame,
            tables_max_states=self.tables_max_states,
            settings=dict(self.settings),
            size=self.size,
            four_probability=self.four_probability,
            max_moves=max_moves,
        )

    def _native(self, weights: str | None, tables: bool = True) -> Any:
        """The native player, with the network from ``weights`` and, with
        ``tables``, its endgame tables."""
        if self.endgame:
            _native.check_endgame_rules(self.size, self.four_probability)
        tables_of = None
        if self.endgame and tables:
            tables_of = _tables(self.tables, self.tables_max_states, self.tables_preset)
        return _native.GamePlayer(
            self.preset, weights, tables_of, dict(self.settings), self.size, self.four_probability
        )


def _probability(value: float) -> str:
    """The probability of a 4 as the lab's settings line writes it: Rust's
    ``Display`` of the ``f64``, the shortest digits that give it back, never
    an exponent."""
    return np.format_float_positional(np.float64(value), trim="-")


@functools.lru_cache(maxsize=2)
def _tables(path: str | None, max_states: int | None, preset: str) -> Any:
    """A process's endgame tables of a preset, read (or built) once."""
    return _native.EndgameTables(path, max_states, preset)
