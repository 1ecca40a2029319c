"""Type stubs of the native module ``py2048._native`` (Rust, PyO3).

The pure-Python modules of the package wrap these; prefer them. Actions are
gymnasium-2048's (0 up, 1 right, 2 down, 3 left) and a packed board is a
``uint64`` whose nibble ``4 * (4 * r + c)`` holds the exponent of cell
``(r, c)``.
"""

import os
from typing import Any

import numpy as np
import numpy.typing as npt

MAX_EXPONENT: int
MAX_THREADS: int

class EnvCore:
    def __init__(
        self,
        size: int,
        four_probability: float,
        obs_mode: str,
        max_pow: int,
        illegal_action: str,
        illegal_penalty: float,
    ) -> None: ...
    def __getnewargs__(self) -> tuple[int, float, str, int, str, float]: ...
    def __getstate__(self) -> tuple[bytes, bytes, int, int, int, bytes, int]: ...
    def __setstate__(self, state: tuple[bytes, bytes, int, int, int, bytes, int]) -> None: ...
    def set_board(self, exponents: npt.NDArray[np.uint8]) -> None: ...
    def set_score(self, score: int) -> None: ...
    def set_illegal_count(self, count: int) -> None: ...
    def seed(self, seed: int) -> None: ...
    def reset(self) -> npt.NDArray[np.uint8]: ...
    def step(
        self, action: int
    ) -> tuple[
        npt.NDArray[np.uint8],
        float,
        bool,
        bool,
        int,
        npt.NDArray[np.int8],
        npt.NDArray[np.uint8],
        int,
        int,
        int,
    ]: ...
    def observation(self) -> npt.NDArray[np.uint8]: ...
    def exponents(self) -> npt.NDArray[np.uint8]: ...
    def action_mask(self) -> npt.NDArray[np.int8]: ...
    def is_over(self) -> bool: ...
    def score(self) -> int: ...
    def moves(self) -> int: ...
    def illegal_count(self) -> int: ...
    def max_exponent(self) -> int: ...
    def board_text(self) -> str: ...
    def packed(self) -> int | None: ...

# Per environment: action mask, score, legal, score gained, largest
# exponent, illegal actions this episode.
_VecInfos = tuple[
    npt.NDArray[np.int8],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]
# Same-step autoreset: ended environments, their last observations and infos.
_VecEnded = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint8], _VecInfos]
_VecStep = tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    _VecInfos,
    _VecEnded,
]

class VecCore:
    def __init__(
        self,
        num_envs: int,
        four_probability: float,
        obs_mode: str,
        max_pow: int,
        illegal_action: str,
        illegal_penalty: float,
        max_steps: int | None,
        autoreset: str = "NextStep",
    ) -> None: ...
    def __len__(self) -> int: ...
    def __getnewargs__(self) -> tuple[int, float, str, int, str, float, int | None, str]: ...
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: bytes) -> None: ...
    def seed(self, seeds: list[int | None]) -> None: ...
    def reset(self, mask: list[bool] | None = None) -> _VecStep: ...
    def step(self, actions: npt.NDArray[np.int64]) -> _VecStep: ...
    def step_into(
        self,
        actions: npt.NDArray[np.int64],
        obs: npt.NDArray[np.uint8],
        rewards: npt.NDArray[np.float64],
        terminated: npt.NDArray[np.bool_],
        truncated: npt.NDArray[np.bool_],
        masks: npt.NDArray[np.int8],
    ) -> None: ...
    def boards(self) -> npt.NDArray[np.uint64]: ...
    def scores(self) -> npt.NDArray[np.uint64]: ...
    def exponents(self) -> npt.NDArray[np.uint8]: ...
    def masks(self) -> npt.NDArray[np.int8]: ...

class Solver:
    def __init__(
        self,
        preset: str,
        time_ms: int | None = None,
        depth: int | None = None,
        threads: int | None = None,
        weights: str | os.PathLike[str] | None = None,
        endgame: EndgameTables | None = None,
        prob_cutoff: float | None = None,
        depth_bonus: int | None = None,
        heuristic: float | None = None,
    ) -> None: ...
    def decide(
        self, exponents: npt.NDArray[np.uint8], four_probability: float = 0.1
    ) -> tuple[int, list[float | None], int, float, str | None]: ...

class EndgameTables:
    path: str
    count: int
    nbytes: int
    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        max_states: int | None = None,
        preset: str | None = None,
    ) -> None: ...

class Network:
    path: str
    def __init__(self, weights: str | os.PathLike[str]) -> None: ...
    def value(self, boards: npt.NDArray[np.uint64]) -> npt.NDArray[np.float32]: ...

def apply_action(
    boards: npt.NDArray[np.uint64], actions: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
def legal_actions(boards: npt.NDArray[np.uint64]) -> npt.NDArray[np.int8]: ...
def encode(
    boards: npt.NDArray[np.uint64], obs_mode: str, max_pow: int
) -> npt.NDArray[np.uint8]: ...
def pack(exponents: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint64]: ...
def parse_board(text: str) -> npt.NDArray[np.uint8]: ...
def format_board(exponents: npt.NDArray[np.uint8]) -> str: ...
def slide_board(
    exponents: npt.NDArray[np.uint8], action: int
) -> tuple[npt.NDArray[np.uint8], int, bool]: ...
def board_over(exponents: npt.NDArray[np.uint8]) -> bool: ...
def is_learned(preset: str) -> bool: ...
def uses_corner_tables(preset: str) -> bool: ...
def preset_name(name: str) -> str: ...
def default_preset(size: int) -> str: ...

# py2048.distributed's native half (src/games.rs).
MILESTONES: list[int]
DEFAULT_PRESET: str
PRESETS: list[str]
_RecordTuple = tuple[int, int, int, int, float, int | None, int | None]
_SprtTuple = tuple[float, float, float, float]

class GamePlayer:
    threads: int
    def __init__(
        self,
        preset: str,
        time_ms: int | None = None,
        depth: int | None = None,
        threads: int | None = None,
        weights: str | os.PathLike[str] | None = None,
        endgame: EndgameTables | None = None,
        prob_cutoff: float | None = None,
        depth_bonus: int | None = None,
        heuristic: float | None = None,
        size: int = 4,
        four_probability: float = 0.1,
    ) -> None: ...
    def play(self, seed: int, max_moves: int | None = None) -> _RecordTuple: ...

class RecordsLog:
    def __init__(
        self, path: str | os.PathLike[str], resume: bool, force: bool, settings: str
    ) -> None: ...
    @property
    def earlier(self) -> list[_RecordTuple]: ...
    @property
    def dropped(self) -> str | None: ...
    def append(self, record: _RecordTuple) -> None: ...
    def close(self) -> None: ...

def endgame_table_count(max_states: int | None = None, preset: str | None = None) -> int: ...
def check_endgame_rules(size: int, four_probability: float) -> None: ...
def weights_checksum(path: str | os.PathLike[str]) -> int: ...
def settings_line(
    preset: str,
    time_ms: int | None = None,
    depth: int | None = None,
    threads: int | None = None,
    weights: str | os.PathLike[str] | None = None,
    endgame: bool = False,
    tables_max_states: int | None = None,
    prob_cutoff: float | None = None,
    depth_bonus: int | None = None,
    heuristic: float | None = None,
    size: int = 4,
    four_probability: float = 0.1,
    max_moves: int | None = None,
) -> str: ...
def read_csv(text: str) -> list[_RecordTuple]: ...
def made_by(text: str) -> str | None: ...
def check_sprt(sprt: _SprtTuple) -> None: ...
def paired(
    a: list[_RecordTuple], b: list[_RecordTuple], tile: int, sprt: _SprtTuple | None = None
) -> dict[str, Any]: ...
def compare_report(
    a_name: str,
    b_name: str,
    first_seed: int,
    tile: int,
    a: list[_RecordTuple],
    b: list[_RecordTuple],
    sprt: _SprtTuple | None = None,
) -> str: ...
def summary(records: list[_RecordTuple], tiles: list[int]) -> dict[str, Any]: ...
