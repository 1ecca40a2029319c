"""Boards as text (the bordered board of the terminal frontend), as RGB
images laid out as gymnasium-2048 draws them (numpy only, no pygame), and
in a pygame window for the human render mode."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

_CELL_WIDTH = 8

# gymnasium-2048's picture: a 400 x 400 board area and a 60-pixel band
# beneath it with the score; the board 20 pixels in from the edges, each
# tile 5 pixels in from its cell's edges (10 from the board's), corners
# rounded by 4 pixels.
WIDTH = 400
HEIGHT = 460
_BOARD_SIZE = 400
_BOARD_PADDING = 20
_TILE_PADDING = 5
# The pixels a rounded corner leaves out, row by row from the edge.
_CORNER_CUTS = (3, 1, 1)
_WINDOW_COLOR = (250, 248, 238)
_SCORE_COLOR = (0, 0, 0)

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
_BOARD_COLOR = (186, 172, 160)
_DARK_TEXT = (119, 110, 101)
_LIGHT_TEXT = (249, 246, 242)

# A 3x5 pixel font: the digits and the score band's letters.
_GLYPHS = {
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
    # The score band's other letters.
    "S": ("011", "100", "010", "001", "110"),
    "c": ("000", "111", "100", "100", "111"),
    "o": ("000", "111", "101", "101", "111"),
    "r": ("000", "110", "101", "100", "100"),
    "e": ("000", "010", "111", "100", "011"),
    ":": ("000", "010", "000", "010", "000"),
    " ": ("000", "000", "000", "000", "000"),
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


def rgb(exponents: npt.NDArray[np.uint8], score: int | None = None) -> npt.NDArray[np.uint8]:
    """The board as gymnasium-2048's ``rgb_array`` frame, ``(460, 400, 3)``
    for every size: the tiles in its colours with their values in a pixel
    font, and ``Score: N`` in the band beneath (empty when ``score`` is
    ``None``)."""
    n = exponents.shape[0]
    image = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    image[:] = _WINDOW_COLOR
    board = _BOARD_SIZE - 2 * _BOARD_PADDING
    _fill(image, _BOARD_PADDING, _BOARD_PADDING, board, board, _BOARD_COLOR)
    cell = (board - 2 * _TILE_PADDING) // n
    tile = cell - 2 * _TILE_PADDING
    for r in range(n):
        for c in range(n):
            value = 1 << int(exponents[r, c]) if exponents[r, c] else 0
            top = _BOARD_PADDING + r * cell + 2 * _TILE_PADDING
            left = _BOARD_PADDING + c * cell + 2 * _TILE_PADDING
            _fill(image, top, left, tile, tile, _TILE_COLORS.get(value, _TILE_DEFAULT))
            if value:
                color = _DARK_TEXT if value < 8 else _LIGHT_TEXT
                text = str(value)
                # Each glyph is 3 wide plus a 1 gap; the text fits 80% of
                # the tile, no taller than a third of it (gymnasium-2048's
                # font size on 4x4).
                scale = max(1, min(int(tile * 0.8) // (4 * len(text) - 1), tile // 15))
                width, height = (4 * len(text) - 1) * scale, 5 * scale
                _draw_text(image, text, top + (tile - height) // 2, left + (tile - width) // 2,
                           scale, color)
    if score is not None:
        scale = 5
        band = HEIGHT - _BOARD_SIZE
        _draw_text(image, f"Score: {score}", _BOARD_SIZE + (band - 5 * scale) // 2,
                   _BOARD_PADDING, scale, _SCORE_COLOR)
    return image


def _fill(
    image: npt.NDArray[np.uint8], top: int, left: int, height: int, width: int,
    color: tuple[int, int, int],
) -> None:
    """A rectangle with corners rounded as pygame rounds them by 4 pixels:
    its first rows leave out 3, 1 and 1 pixels at each end."""
    cuts = _CORNER_CUTS[: min(height, width) // 2]
    image[top + len(cuts) : top + height - len(cuts), left : left + width] = color
    for row, cut in enumerate(cuts):
        for y in (top + row, top + height - 1 - row):
            image[y, left + cut : left + width - cut] = color


def _draw_text(
    image: npt.NDArray[np.uint8], text: str, top: int, left: int, scale: int,
    color: tuple[int, int, int],
) -> None:
    for k, ch in enumerate(text):
        for gy, row in enumerate(_GLYPHS[ch]):
            for gx, bit in enumerate(row):
                if bit == "1":
                    y = top + gy * scale
                    x = left + (4 * k + gx) * scale
                    image[y : y + scale, x : x + scale] = color


def _has_display() -> bool:
    """Whether SDL has somewhere to open a window: a video driver named, or
    (on Linux and the BSDs) a desktop session."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return True
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


class Window:
    """The human render mode's pygame window (gymnasium-2048's: 400 x 460,
    titled "2048"), opened at the first frame. Without pygame, or without a
    display for the window (a ``RuntimeWarning`` says so), :meth:`show`
    draws nothing and returns ``False``."""

    def __init__(self) -> None:
        self._pygame: Any = None
        self._screen: Any = None
        try:
            import pygame
        except ImportError:
            return
        try:
            if not _has_display():
                # Else SDL picks its offscreen driver: a window no one sees,
                # whose EGL libraries can crash a later `import triton`.
                raise pygame.error("no DISPLAY or WAYLAND_DISPLAY, and no SDL_VIDEODRIVER")
            pygame.display.init()
            self._screen = pygame.display.set_mode((WIDTH, HEIGHT))
        except pygame.error as e:
            warnings.warn(
                f"no window for render_mode='human' ({e}): printing the board instead",
                RuntimeWarning,
                stacklevel=4,
            )
            return
        pygame.display.set_caption("2048")
        self._pygame = pygame

    def show(self, frame: npt.NDArray[np.uint8]) -> bool:
        """Draws ``frame`` (from :func:`rgb`) in the window; whether there is one."""
        pygame = self._pygame
        if pygame is None:
            return False
        # pygame's arrays are indexed (x, y).
        self._screen.blit(pygame.surfarray.make_surface(frame.transpose(1, 0, 2)), (0, 0))
        pygame.event.pump()
        pygame.display.update()
        return True

    def close(self) -> None:
        if self._pygame is not None:
            self._pygame.display.quit()
            self._pygame = self._screen = None
