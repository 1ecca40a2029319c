"""Type stubs of the native module ``py2048._native`` (Rust, PyO3).

The pure-Python modules of the package wrap these; prefer them. Actions are
gymnasium-2048's (0 up, 1 right, 2 down, 3 left) and a packed board is a
``uint64`` whose nibble ``4 * (4 * r + c)`` holds the exponent of cell
``(r, c)``.
"""

import os

import numpy as np
import numpy.typing as npt

SHIPPED_WEIGHTS: str
MAX_EXPONENT: int

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

_VecStep = tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int8],
    npt.NDArray[np.uint64],
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
    ) -> None: ...
    def __len__(self) -> int: ...
    def seed(self, seeds: list[int]) -> None: ...
    def reset(self) -> _VecStep: ...
    def step(self, actions: npt.NDArray[np.int64]) -> _VecStep: ...
    def boards(self) -> npt.NDArray[np.uint64]: ...
    def masks(self) -> npt.NDArray[np.int8]: ...

class Solver:
    def __init__(
        self,
        preset: str,
        time_ms: int | None = None,
        depth: int | None = None,
        threads: int | None = None,
        weights: str | os.PathLike[str] | None = None,
    ) -> None: ...
    def decide(
        self, exponents: npt.NDArray[np.uint8], four_probability: float = 0.1
    ) -> tuple[int, list[float | None], int, float]: ...

class Network:
    path: str
    def __init__(self, weights: str | os.PathLike[str] | None = None) -> None: ...
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
