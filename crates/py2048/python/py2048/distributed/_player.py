"""Who plays a distributed run's games: the options of ``lab tournament``
as a plain, picklable :class:`Player`, and the native player it builds on
each worker."""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from py2048 import _native
from py2048.board import whole
from py2048.solver import PRESETS, shipped_weights


@dataclass(frozen=True)
class Player:
    """Who plays: the options of ``lab tournament`` as fields.

    Args:
        preset: one of :data:`py2048.PRESETS`.
        time_ms, depth, threads, prob_cutoff, depth_bonus, heuristic: the
            search settings over the preset's (``--time-ms`` and so on).
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

    preset: str = _native.DEFAULT_PRESET
    time_ms: int | None = None
    depth: int | None = None
    threads: int | None = None
    weights: str | None = None
    endgame: bool = False
    tables: str | None = None
    tables_max_states: int | None = None
    prob_cutoff: float | None = None
    depth_bonus: int | None = None
    heuristic: float | None = None
    size: int = 4
    four_probability: float = 0.1

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str):
            raise TypeError(f"preset must be a str, got {type(self.preset).__name__}")
        try:
            object.__setattr__(self, "preset", _native.preset_name(self.preset))
        except ValueError:
            raise ValueError(
                f"preset must be one of {', '.join(PRESETS)}, got {self.preset!r}"
            ) from None
        ints = {
            "time_ms": (1, 2**64 - 1),
            "depth": (1, 2**32 - 1),
            "threads": (1, _native.MAX_THREADS),
            "tables_max_states": (1, 2**64 - 1),
            "depth_bonus": (-12, 12),
            "size": (2, 8),
        }
        for name, (low, high) in ints.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, whole(value, name, minimum=low, maximum=high))
        for name in ("prob_cutoff", "heuristic", "four_probability"):
            value = getattr(self, name)
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError(f"{name} must be a number, got {type(value).__name__}")
                if not math.isfinite(value) or value < 0:
                    raise ValueError(f"{name} must be a finite number of 0 or more, got {value}")
                object.__setattr__(self, name, float(value))
        if self.prob_cutoff is not None and self.prob_cutoff > 1:
            raise ValueError(f"prob_cutoff must lie in 0 to 1, got {self.prob_cutoff}")
        if self.weights is not None:
            object.__setattr__(self, "weights", os.fspath(self.weights))
        if self.tables is not None:
            object.__setattr__(self, "tables", os.fspath(self.tables))
        if not self.endgame and (self.tables is not None or self.tables_max_states is not None):
            raise ValueError("tables= and tables_max_states= need endgame=True")
        if _native.uses_corner_tables(self.preset) and not self.endgame:
            raise ValueError(
                f"the {self.preset} preset plays by the corner tables: endgame=True"
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
        for name in ("depth", "time_ms", "threads", "prob_cutoff", "depth_bonus", "heuristic"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"--{name.replace('_', '-')} {_number(value, name)}")
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
            parts.append(f"--four-probability {_number(self.four_probability, 'four_probability')}")
        return " ".join(parts)

    def settings_line(self, max_moves: int | None) -> str:
        """The settings that decide this player's games, as ``lab
        tournament`` names them in a records file: a file one of them wrote
        resumes in the other."""
        return _native.settings_line(
            self.preset,
            time_ms=self.time_ms,
            depth=self.depth,
            threads=self.threads,
            weights=self.weights_path(),
            endgame=self.endgame,
            tables_max_states=self.tables_max_states,
            prob_cutoff=self.prob_cutoff,
            depth_bonus=self.depth_bonus,
            heuristic=self.heuristic,
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
            self.preset,
            self.time_ms,
            self.depth,
            self.threads,
            weights,
            tables_of,
            self.prob_cutoff,
            self.depth_bonus,
            self.heuristic,
            self.size,
            self.four_probability,
        )


def _number(value: float | int, name: str) -> str:
    """A setting as the lab's records settings line writes it: Rust's ``Display``
    of the value the engine uses (an ``f32`` for the search settings, an
    ``f64`` for the rules): the shortest digits that give it back, never an
    exponent (``0.00002``, not ``2e-05``)."""
    if isinstance(value, int):
        return str(value)
    kind = np.float64 if name == "four_probability" else np.float32
    return np.format_float_positional(kind(value), trim="-")


@functools.lru_cache(maxsize=2)
def _tables(path: str | None, max_states: int | None, preset: str) -> Any:
    """A process's endgame tables of a preset, read (or built) once."""
    return _native.EndgameTables(path, max_states, preset)
