"""Boards as text (the bordered board of the terminal frontend) and as RGB
images (numpy only, no pygame)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

_CELL_WIDTH = 8

# gymnasium-2048's palette (the web game's), by tile value.
_TILE_COLORS: dict[int, tuple[int, int, int]] = {
    0: (204, 193, 178),
    2: (238, 228, 218),
    4: (237, 224, 200),
    8: (242, 177, 121),
    16: (245, 149, 99),
    32: (246, 124, 95),
    64: (246, 94, 59),
    128: (237, 207, 114),
    256: (237, 204, 97),
    512: (237, 200, 80),
    1024: (237, 197, 63),
    2048: (237, 194, 46),
}
_TILE_DEFAULT = (60, 58, 50)
_BACKGROUND = (186, 172, 160)
_DARK_TEXT = (119, 110, 101)
_LIGHT_TEXT = (249, 246, 242)

# A 3x5 pixel font for the digits.
_DIGITS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
}


def _centred(value: int) -> str:
    # The Java tutorial's centring: a space appended, then one in front.
    text = str(value)
    while len(text) < _CELL_WIDTH:
        text += " "
        if len(text) < _CELL_WIDTH:
            text = " " + text
    return text


def ansi(exponents: npt.NDArray[np.uint8], score: int | None = None) -> str:
    """The bordered board (as ``cli-ascii`` prints it), then ``Score: N``."""
    n = exponents.shape[0]
    border = "+--------" * n + "+"
    spacer = "|        " * n + "|"
    lines = []
    for row in range(n):
        lines += [border, spacer]
        cells = (
            _centred(1 << int(e)) if e else " " * _CELL_WIDTH for e in exponents[row]
        )
        lines.append("|" + "|".join(cells) + "|")
        lines.append(spacer)
    lines.append(border)
    if score is not None:
        lines.append(f"Score: {score}")
    return "\n".join(lines) + "\n"


def rgb(exponents: npt.NDArray[np.uint8], tile: int = 100) -> npt.NDArray[np.uint8]:
    """The board as an ``(n * tile, n * tile, 3)`` image: coloured tiles with
    their values in a pixel font."""
    n = exponents.shape[0]
    image = np.empty((n * tile, n * tile, 3), dtype=np.uint8)
    image[:] = _BACKGROUND
    pad = max(tile // 20, 1)
    for r in range(n):
        for c in range(n):
            value = 1 << int(exponents[r, c]) if exponents[r, c] else 0
            y0, x0 = r * tile + pad, c * tile + pad
            image[y0 : y0 + tile - 2 * pad, x0 : x0 + tile - 2 * pad] = _TILE_COLORS.get(
                value, _TILE_DEFAULT
            )
            if value:
                _draw_number(image, value, r * tile, c * tile, tile)
    return image


def _draw_number(image: npt.NDArray[np.uint8], value: int, top: int, left: int, tile: int) -> None:
    text = str(value)
    # Each glyph is 3 wide plus a 1 gap; fit the text in 80% of the tile.
    scale = max(1, min(int(tile * 0.8) // (4 * len(text)), tile // 10))
    width, height = (4 * len(text) - 1) * scale, 5 * scale
    y0 = top + (tile - height) // 2
    x0 = left + (tile - width) // 2
    color = _DARK_TEXT if value < 8 else _LIGHT_TEXT
    for k, ch in enumerate(text):
        for gy, row in enumerate(_DIGITS[ch]):
            for gx, bit in enumerate(row):
                if bit == "1":
                    y = y0 + gy * scale
                    x = x0 + (4 * k + gx) * scale
                    image[y : y + scale, x : x + scale] = color
