"""Boards and batches of boards: afterstates, masks, encodings, text.

A 4x4 board is *packed* in a ``uint64``: cell ``(r, c)`` holds its exponent
(0 empty, 1 the 2 tile, ..., 15 the 32768 tile) in bits ``4 * (4 * r + c)``
to ``4 * (4 * r + c) + 3``, as in the Rust engine. Actions are
gymnasium-2048's: 0 up, 1 right, 2 down, 3 left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from py2048 import _native

#: The name of each action, by its number.
ACTION_NAMES: tuple[str, str, str, str] = ("up", "right", "down", "left")

ObsMode = Literal["onehot", "exponents"]


def _integers(
    values: Any, name: str, out_of_range: Callable[[int], str] | None = None
) -> npt.NDArray[Any]:
    """``values`` as an integer array, or a ``TypeError`` naming it; Python
    ints past 64 bits (which numpy keeps as objects) are a ``ValueError``,
    worded by ``out_of_range`` for the first of them, as the single
    environment's ``step`` words an action out of range."""
    arr = np.asarray(values)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        big = _too_wide(values, arr)
        if big is not None:
            message = out_of_range(big) if out_of_range else (
                f"{name} must fit in 64 bits, got {big}"
            )
            raise ValueError(message)
        raise TypeError(f"{name} must be integers, got an array of dtype {arr.dtype}")
    return arr


def _too_wide(values: Any, arr: npt.NDArray[Any]) -> int | None:
    """The first int no 64-bit integer holds when ``values`` are all ints
    (not bools), else ``None``: numpy reads such values as objects, or as
    floats where they mix negatives and values past 2**63."""
    if arr.dtype != object and (isinstance(values, np.ndarray) or arr.dtype.kind != "f"):
        return None
    items = np.asarray(values, dtype=object).ravel()
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in items):
        return None
    wide = [int(v) for v in items if not -(2**63) <= v < 2**64]
    if wide:
        return wide[0]
    # Negatives beside values past 2**63: no one dtype holds both.
    return next((int(v) for v in items if v < 0), None)


def whole(value: Any, name: str, minimum: int = 0, maximum: int = 2**64 - 1) -> int:
    """An integer setting, or a ``TypeError`` / ``ValueError`` naming it (a
    negative number would otherwise reach the engine as an
    ``OverflowError``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum}, got {value}")
    return int(value)


def as_boards(boards: Any) -> npt.NDArray[np.uint64]:
    """Packed boards as a ``uint64`` array of the same shape.

    Raises ``TypeError`` for a non-integer input and ``ValueError`` for a
    negative one.
    """
    arr = _integers(
        boards, "boards (packed uint64 boards)",
        lambda v: f"boards must be packed uint64 boards (0 to 2**64 - 1), got {v}",
    )
    if arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        raise ValueError("boards must be packed uint64 boards, got a negative value")
    return np.asarray(arr, dtype=np.uint64, order="C")


def as_actions(actions: Any) -> npt.NDArray[np.int64]:
    """Actions as an ``int64`` array (the range is checked by the engine)."""
    arr = _integers(actions, "actions", _bad_action)
    if arr.dtype == np.uint64 and arr.size and arr.max() > 3:
        raise ValueError(_bad_action(int(arr.max())))
    return np.asarray(arr, dtype=np.int64, order="C")


def _bad_action(action: int) -> str:
    return f"action {action} is not one of 0 (up), 1 (right), 2 (down), 3 (left)"


def apply_action(
    boards: Any, actions: Any
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Each board moved by its action, without a spawn: the operation
    afterstate (n-tuple) learners need.

    Args:
        boards: packed boards, any shape.
        actions: one action per board (same shape), or one for all.

    Returns:
        ``(afterstates, rewards, legal)`` of the boards' shape: the packed
        afterstates, the merged tile sums (``int64``), and whether each
        action changed its board (an illegal action leaves the board as it
        was, with reward 0).
    """
    b = as_boards(boards)
    a = as_actions(actions)
    if a.ndim == 0:
        a = np.full(b.shape, a, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError(
            f"boards of shape {b.shape} but actions of shape {a.shape}: one action per board"
        )
    after, rewards, legal = _native.apply_action(b.reshape(-1), a.reshape(-1))
    return after.reshape(b.shape), rewards.reshape(b.shape), legal.reshape(b.shape)


def legal_actions(boards: Any) -> npt.NDArray[np.int8]:
    """Which actions change each board: ``boards.shape + (4,)``, ``int8``."""
    b = as_boards(boards)
    return _native.legal_actions(b.reshape(-1)).reshape(b.shape + (4,))


def encode(boards: Any, obs_mode: ObsMode = "onehot", max_pow: int = 16) -> npt.NDArray[np.uint8]:
    """The environments' observations of packed boards.

    ``"onehot"``: ``boards.shape + (4, 4, max_pow)`` of 0/1 (channel ``e``
    for exponent ``e``; exponents at or above ``max_pow - 1`` light the last
    channel); ``"exponents"``: ``boards.shape + (4, 4)``.
    """
    b = as_boards(boards)
    out = _native.encode(b.reshape(-1), obs_mode, whole(max_pow, "max_pow", minimum=2, maximum=256))
    return out.reshape(b.shape + out.shape[1:])


def unpack(boards: Any) -> npt.NDArray[np.uint8]:
    """The exponents of packed boards: ``boards.shape + (4, 4)``."""
    return encode(boards, "exponents")


def pack(exponents: Any) -> npt.NDArray[np.uint64] | int:
    """Packs exponents of shape ``(..., 4, 4)`` (0 to 15); a single
    ``(4, 4)`` board gives an ``int``."""
    arr = _integers(exponents, "exponents")
    if arr.ndim < 2 or arr.shape[-2:] != (4, 4):
        raise ValueError(f"expected exponents of shape (..., 4, 4), got {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 15):
        raise ValueError(
            f"exponents must be 0 (empty) to 15 (32768), got values from {arr.min()} to {arr.max()}"
        )
    flat = np.ascontiguousarray(arr.reshape(-1, 4, 4), dtype=np.uint8)
    packed = _native.pack(flat).reshape(arr.shape[:-2])
    return int(packed) if packed.ndim == 0 else packed


def from_tiles(values: Any) -> npt.NDArray[np.uint8]:
    """Tile values (0 for empty, 2, 4, 8, ... up to 2^25) as exponents, the
    form every other function reads: ``from_tiles([[2, 4], [0, 8]])`` is
    ``[[1, 2], [0, 3]]``. Any shape. Raises ``ValueError`` naming the first
    value that is not a tile."""
    arr = _integers(values, "tile values").astype(np.int64)
    bad = (arr != 0) & ((arr < 2) | ((arr & (arr - 1)) != 0) | (arr > 2**_native.MAX_EXPONENT))
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{int(arr[at])} at {at} is not a tile value (0, or a power of two from 2 to"
            f" 2^{_native.MAX_EXPONENT})"
        )
    out = np.zeros(arr.shape, dtype=np.uint8)
    nz = arr != 0
    out[nz] = np.log2(arr[nz]).round().astype(np.uint8)
    return out


def parse_board(text: str) -> npt.NDArray[np.uint8]:
    """The exponents ``(n, n)`` of a board in the engine's notation: tile
    values, rows split by ``/`` or new lines, ``0`` or ``.`` for an empty
    cell, e.g. ``"2 0 0 2/0 4 0 0/0 0 0 0/0 0 0 0"``. Sizes 2 to 8.

    Raises ``ValueError`` with the engine's message for malformed text.
    """
    if not isinstance(text, str):
        raise TypeError(f"a board's text must be a str, got {type(text).__name__}")
    return _native.parse_board(text)


def format_board(board: Any) -> str:
    """A board in the engine's one-line notation (``"2 0 0 2/0 4 0 0/..."``);
    ``board`` is a packed ``int`` or exponents ``(n, n)``."""
    return _native.format_board(as_exponents(board))


def as_exponents(board: Any) -> npt.NDArray[np.uint8]:
    """One board as exponents ``(n, n)``, from its text, a packed ``int``,
    an ``(n, n)`` array of exponents or an ``(n, n, C)`` one-hot
    observation. An array is exponents: values past the largest tile of an
    ``n x n`` game (17 on 4x4) are a ``ValueError``, as is a ``(n, n, C)``
    array that is not one-hot."""
    if isinstance(board, str):
        return parse_board(board)
    if isinstance(board, (int, np.integer)) and not isinstance(board, (bool, np.bool_)):
        return unpack(board)
    arr = _integers(board, "a board") if not _is_float_onehot(board) else np.asarray(board)
    if arr.ndim == 3 and arr.shape[0] == arr.shape[1]:
        arr = _from_onehot(arr)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(
            f"a board is a str, a packed int, exponents (n, n) or a one-hot (n, n, C);"
            f" got an array of shape {arr.shape}"
        )
    n = arr.shape[0]
    # The largest tile an n x n game can make: 2^(n*n + 1) (17 on 4x4).
    top = min(n * n + 1, _native.MAX_EXPONENT)
    if arr.size and (arr.min() < 0 or arr.max() > top):
        hint = ": tile values? pass py2048.from_tiles(board) or the board's text" if (
            arr.max() > top and _powers_of_two(arr)
        ) else ""
        raise ValueError(
            f"exponents on a {n}x{n} board are 0 (empty) to {top} (2^{top}),"
            f" got values from {arr.min()} to {arr.max()}{hint}"
        )
    # Values up to `top` are read as exponents, even when they look like
    # tile values (2, 4, 8, 16): they are valid exponents too, and refusing
    # them would refuse real boards.
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _powers_of_two(arr: npt.NDArray[Any]) -> bool:
    """Whether every non-zero value is a tile value (a power of two, 2 or
    more) and there is one."""
    nz = arr[arr != 0].astype(np.int64)
    return bool(nz.size) and bool(np.all(nz >= 2)) and bool(np.all((nz & (nz - 1)) == 0))


def _from_onehot(arr: npt.NDArray[Any]) -> npt.NDArray[np.intp]:
    """The exponents of a one-hot ``(n, n, C)`` observation, or a
    ``ValueError`` when it is not one (exactly one 1 per cell, 0 elsewhere)."""
    if not np.all((arr == 0) | (arr == 1)) or not np.all(arr.sum(axis=-1) == 1):
        raise ValueError(
            f"an (n, n, C) board is a one-hot observation: exactly one 1 per cell and 0"
            f" elsewhere; got values from {arr.min()} to {arr.max()}"
            f" and {int(arr.sum(axis=-1).min())} to {int(arr.sum(axis=-1).max())} ones per cell"
        )
    return np.argmax(arr, axis=-1)


def _is_float_onehot(board: Any) -> bool:
    arr = np.asarray(board)
    return arr.ndim == 3 and np.issubdtype(arr.dtype, np.floating)
