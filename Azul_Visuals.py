"""Pictures of an Azul position: a matplotlib figure and a terminal rendering.

Both read the board through ``AzulState`` (never by raw offsets) and show the same information:
factories ``1``-``5`` and the centre ``C`` (the move-code sources), the first-player marker, each
seat's pattern lines ``1``-``5`` and floor ``F`` (the move-code destinations), wall, floor penalties
and score, the bag and lid counts, the round, whose turn it is and, once the game is over, the result.

Players are drawn by absolute seat: seat 0 always on the left (first in the text), whichever player
is to move. ``seat_names`` maps seats to names, e.g. ``{0: "You", 1: "Model"}``; the default is
"Seat 0" / "Seat 1".

The floor does not record the order in which items landed; the marker is drawn in its first space,
then the tiles in colour order B, Y, R, D, W (the penalty depends only on the count).

Headless: this module imports ``matplotlib.figure`` only, never ``pyplot``, so it needs no display
and no GUI backend; ``plot_state`` returns a ``Figure`` (save it with ``fig.savefig(path)``; a
notebook displays it when it is a cell's value).

    fig = plot_state(board, seat_names={0: "You", 1: "Model"})
    print_state(board)
"""
from __future__ import annotations

import io
import os
import re
import sys

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyBboxPatch

from Azul_Simulator import (COLOUR_CODES, DESTINATION_CODES, FLOOR_PENALTIES, N_FACTORIES,
                            WALL_COLOUR, AzulState, PlayerBoard, current_seat, winner)

MARKER = "1"  # the first-player marker's symbol, as printed on the real one

# ----------------------------------------------------------------------------------------------
# Shared wording
# ----------------------------------------------------------------------------------------------

def _names(seat_names: dict | None) -> tuple[str, str]:
    """Display names of seats 0 and 1."""
    seat_names = seat_names or {}
    return tuple(str(seat_names.get(seat, f"Seat {seat}")) for seat in (0, 1))


def _result(state: AzulState, names: tuple[str, str]) -> str:
    """The final result, e.g. 'You win 45-38' or 'shared victory 40-40 (2 complete rows each)'."""
    scores = [state.by_seat(s).score for s in (0, 1)]
    rows = [state.by_seat(s).complete_rows() for s in (0, 1)]
    w = winner(scores, rows)
    if w is None:
        return f"shared victory {scores[0]}-{scores[1]} ({_plural(rows[0], 'complete row')} each)"
    tie_break = f" on complete rows ({rows[w]} to {rows[1 - w]})" if scores[0] == scores[1] else ""
    verb = "win" if names[w] == "You" else "wins"
    return f"{names[w]} {verb} {scores[w]}-{scores[1 - w]}{tie_break}"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _status(state: AzulState, board: np.ndarray, names: tuple[str, str]) -> str:
    """One line: round, whose turn (or the result), and a pending NOOP."""
    if state.game_over:
        return f"Game over after round {state.round}: {_result(state, names)}"
    mover = names[current_seat(board)]
    if not (state.factories.any() or state.centre.any()):
        return f"Round {state.round}: offer empty, {mover} to play NOOP (wall-tiling, then refill)"
    return f"Round {state.round}: {mover} to move"


def _badge(state: AzulState, board: np.ndarray, seat: int) -> str:
    """'to move', 'winner', 'shared victory' or '' for ``seat``."""
    if not state.game_over:
        return "to move" if current_seat(board) == seat else ""
    scores = [state.by_seat(s).score for s in (0, 1)]
    w = winner(scores, [state.by_seat(s).complete_rows() for s in (0, 1)])
    return "shared victory" if w is None else "winner" if w == seat else ""


def _tiles(counts: np.ndarray) -> list[int]:
    """Colour indices, one per tile, in colour order: counts (5,) -> list of length counts.sum()."""
    return [int(c) for c in np.repeat(np.arange(len(counts)), counts)]


def _floor_items(player: PlayerBoard) -> list[str]:
    """Occupied floor spaces, left to right: the marker (``MARKER``) first, then colour codes."""
    items = [MARKER] * player.has_marker + [COLOUR_CODES[c] for c in _tiles(player.floor)]
    return items[:len(FLOOR_PENALTIES)]


def _line(player: PlayerBoard, row: int) -> tuple[int | None, int]:
    """``(colour index or None, tiles)`` on pattern line ``row`` (0-based; it holds row + 1)."""
    held = player.pattern[row]
    if not held.any():
        return None, 0
    colour = int(np.argmax(held))
    return colour, int(held[colour])


def _counts(counts: np.ndarray) -> str:
    """'42 (B8 Y9 R7 D10 W8)' for a (5,) count vector."""
    return f"{int(counts.sum())} (" + " ".join(f"{k}{int(n)}" for k, n in zip(COLOUR_CODES, counts)) + ")"


# ----------------------------------------------------------------------------------------------
# Text
# ----------------------------------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SOLID = {"B": "97;44", "Y": "30;43", "R": "97;41", "D": "97;40", "W": "30;47", MARKER: "97;45"}
_FAINT = {"B": "34", "Y": "33", "R": "31", "D": "90", "W": "37"}


def color_supported(stream=None) -> bool:
    """Whether ANSI colours suit ``stream`` (default stdout): a tty, ``NO_COLOR`` unset, TERM != dumb."""
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return (bool(isatty and isatty()) and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb")


def _paint(letter: str, color: bool) -> str:
    """A cell: a tile letter (solid), a lowercase letter (empty wall cell, faint) or '.'."""
    if not color or letter in ". ":
        return letter
    code = _SOLID.get(letter) or _FAINT[letter.upper()]
    return f"\x1b[{code}m{letter}\x1b[0m"


def _row(letters, color: bool) -> str:
    return " ".join(_paint(x, color) for x in letters)


def _pattern_letters(player: PlayerBoard, row: int) -> list[str]:
    """Pattern line ``row``, right-aligned, as 5 letters: ' ' outside the line, '.' empty."""
    colour, n = _line(player, row)
    held = [COLOUR_CODES[colour]] * n if n else []
    return [" "] * (4 - row) + ["."] * (row + 1 - n) + held


def _wall_letters(player: PlayerBoard, row: int) -> list[str]:
    """Wall row ``row``: uppercase where a tile lies, lowercase for an empty cell's colour."""
    letters = [COLOUR_CODES[k] for k in WALL_COLOUR[row]]
    return [x if placed else x.lower() for x, placed in zip(letters, player.wall[row])]


def _player_lines(state: AzulState, seat: int, names, board, color: bool) -> list[str]:
    """The text block of one seat: header, 5 pattern/wall rows, floor and its penalties."""
    player = state.by_seat(seat)
    badge = _badge(state, board, seat)
    lines = [f"{'>' if badge else ' '} {names[seat]}: {player.score} points"
             + (f"  [{badge}]" if badge else "")]
    for row in range(5):
        lines.append(f"  {DESTINATION_CODES[row]} {_row(_pattern_letters(player, row), color)} | "
                     f"{_row(_wall_letters(player, row), color)}")
    items = _floor_items(player)
    floor = items + ["."] * (len(FLOOR_PENALTIES) - len(items))
    lines.append("  F " + " ".join(" " + _paint(x, color) for x in floor)
                 + f"  ({sum(FLOOR_PENALTIES[:len(items)])})")
    lines.append("    " + " ".join(f"{p:>2}" for p in FLOOR_PENALTIES))
    return lines


def _side_by_side(left: list[str], right: list[str], gap: int = 6) -> list[str]:
    """Two text blocks next to each other; widths ignore ANSI escapes."""
    width = max(len(_ANSI.sub("", x)) for x in left) + gap
    return [x + " " * (width - len(_ANSI.sub("", x))) + y for x, y in zip(left, right)]


def _offer_lines(state: AzulState, color: bool) -> list[str]:
    """Factories ``1: B B Y R`` on one line, then the centre ``C: ...`` (the marker first)."""
    factories = "   ".join(
        f"{f + 1}: " + (_row([COLOUR_CODES[c] for c in _tiles(state.factories[f])], color) or "-")
        for f in range(N_FACTORIES))
    centre = [MARKER] * state.marker_in_centre + [COLOUR_CODES[c] for c in _tiles(state.centre)]
    return [factories, "C: " + (_row(centre, color) or "-")]


def render_text(board: np.ndarray, color: bool | None = None, seat_names: dict | None = None) -> str:
    """The position as text for a terminal.

    Args:
        board: (160,) int16 canonical board.
        color: ANSI colours if True, plain letters if False, ``color_supported()`` if None.
        seat_names: optional {seat: name}, e.g. ``{0: "You", 1: "Model"}``.
    Returns:
        A multi-line string (no trailing newline): status, bag/lid, factories 1-5, centre C, then
        both seats side by side (seat 0 left). Pattern lines are right-aligned next to their wall row;
        on the wall, uppercase = tile placed, lowercase = that empty cell's colour. ``1`` is the
        first-player marker.
    """
    color = color_supported() if color is None else bool(color)
    state = AzulState.decode(board)
    names = _names(seat_names)
    lines = [_status(state, board, names),
             f"Bag {_counts(state.bag)}   Lid {_counts(state.lid)}",
             *_offer_lines(state, color), ""]
    blocks = [_player_lines(state, seat, names, board, color) for seat in (0, 1)]
    lines += _side_by_side(*blocks)
    lines.append(f"{MARKER} = first-player marker, lowercase = empty wall cell, D = black; "
                 "move e.g. 5B2, CWF")
    return "\n".join(lines)


def print_state(board: np.ndarray, **kwargs) -> None:
    """Print ``render_text(board, **kwargs)``."""
    print(render_text(board, **kwargs))


# ----------------------------------------------------------------------------------------------
# Figure
# ----------------------------------------------------------------------------------------------
TILE_COLOURS = {"B": "#2f6db5", "Y": "#f2c230", "R": "#d2412f", "D": "#2b2b2b", "W": "#fdfcf8",
                MARKER: "#8a5fb0"}
LETTER_COLOURS = {"B": "white", "Y": "#3a3a3a", "R": "white", "D": "white", "W": "#3a3a3a",
                  MARKER: "white"}
SLOT_COLOUR, SLOT_EDGE = "#e2d8c4", "#cbbd9f"
BOARD_COLOUR, TURN_COLOUR, WIN_COLOUR = "#faf7f0", "#e07b00", "#c9a000"

# Layout in data units (a tile cell is 1 unit): offer row on top, seat 0 bottom left, seat 1 right.
WIDTH, HEIGHT = 27.4, 14.0
OFFER_Y, STATUS_Y, LABEL_Y = 10.6, 13.4, 12.35
FACTORY_STEP, FACTORY_RADIUS = 3.15, 1.35
CENTRE_X, CENTRE_COLUMNS, SMALL = 16.5, 8, 0.85
BOARD_W, BOARD_H, BOARD_TOP = 13.3, 8.9, 8.9
LINE_X, WALL_GAP = 1.3, 0.6


class BoardFigure(Figure):
    """A ``Figure`` that a notebook shows as a PNG even when pyplot was never imported."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png")
        return buffer.getvalue()


class _Canvas:
    """Drawing primitives on ``ax`` in data units; ``scale`` multiplies font sizes (1 at 12 in wide)."""

    def __init__(self, ax, scale: float):
        self.ax, self.scale = ax, scale

    def text(self, x, y, s, size=10, **kw):
        kw = {"ha": "center", "va": "center", **kw}
        self.ax.text(x, y, s, fontsize=size * self.scale, **kw)

    def tile(self, x, y, letter, size=0.86, faint=False):
        """A tile (or the marker) centred at (x, y); ``faint``: an empty wall cell of that colour."""
        self.square(x, y, size, TILE_COLOURS[letter], "#00000055", alpha=0.28 if faint else 1.0)
        self.text(x, y, letter, size=11 * size, color=LETTER_COLOURS[letter], fontweight="bold",
                  alpha=0.45 if faint else 1.0)

    def slot(self, x, y, size=0.86):
        """An empty space of a pattern line or the floor."""
        self.square(x, y, size, SLOT_COLOUR, SLOT_EDGE)

    def square(self, x, y, size, face, edge, alpha=1.0):
        half = size / 2
        self.ax.add_patch(FancyBboxPatch((x - half, y - half), size, size, alpha=alpha,
                                         boxstyle=f"round,pad=0,rounding_size={0.12 * size}",
                                         facecolor=face, edgecolor=edge, linewidth=0.8))


def _font_scale(ax) -> float:
    """Font-size factor: 1 when the drawing (aspect kept) spans 12 inches, as in a new figure."""
    box = ax.get_position()
    width, height = box.width * ax.figure.get_figwidth(), box.height * ax.figure.get_figheight()
    return min(width, height * WIDTH / HEIGHT) / 12


def _draw_factory(cv: _Canvas, f: int, counts: np.ndarray) -> None:
    """Factory ``f`` (0-based, labelled f + 1): a circle with its tiles in a 2x2 grid."""
    x = FACTORY_RADIUS + 0.1 + f * FACTORY_STEP
    cv.ax.add_patch(Circle((x, OFFER_Y), FACTORY_RADIUS, facecolor="#f3ede0", edgecolor="#b5a88c",
                           linewidth=1.2))
    cv.text(x, LABEL_Y, str(f + 1), size=13, fontweight="bold")
    for i, colour in enumerate(_tiles(counts)):
        dx, dy = (i % 2 - 0.5) * 0.92, (0.5 - i // 2) * 0.92
        cv.tile(x + dx, OFFER_Y + dy, COLOUR_CODES[colour], size=0.82)


def _draw_centre(cv: _Canvas, state: AzulState) -> None:
    """The centre ``C``: the marker (if there) then its tiles in colour order, 8 to a row (the
    centre never holds more than 15 tiles: 3 from each factory)."""
    items = [MARKER] * state.marker_in_centre + [COLOUR_CODES[c] for c in _tiles(state.centre)]
    width, height = CENTRE_COLUMNS * SMALL + 0.3, 2 * SMALL + 0.5
    cv.ax.add_patch(FancyBboxPatch((CENTRE_X, OFFER_Y - height / 2), width, height,
                                   boxstyle="round,pad=0,rounding_size=0.5", facecolor="#f3ede0",
                                   edgecolor="#b5a88c", linewidth=1.2))
    cv.text(CENTRE_X + width / 2, LABEL_Y, "C (centre)", size=13, fontweight="bold")
    cv.text(CENTRE_X + width / 2, OFFER_Y - height / 2 - 0.3, f"{MARKER} = first-player marker",
            size=8.5, color="#555555")
    for i, letter in enumerate(items):
        row, col = divmod(i, CENTRE_COLUMNS)
        cv.tile(CENTRE_X + 0.15 + (col + 0.5) * SMALL, OFFER_Y + SMALL / 2 - row * SMALL, letter,
                size=0.74)


def _draw_supply(cv: _Canvas, state: AzulState) -> None:
    """Bag and lid: a small tile per colour with its count, plus the total."""
    x0 = CENTRE_X + CENTRE_COLUMNS * SMALL + 0.9
    for k, (name, counts) in enumerate((("Bag", state.bag), ("Lid", state.lid))):
        y = OFFER_Y + 0.75 - 1.55 * k
        cv.text(x0, y + 0.55, f"{name}: {int(counts.sum())}", size=10, ha="left", fontweight="bold")
        for c, n in enumerate(counts):
            x = x0 + 0.3 + 0.66 * c
            cv.square(x, y - 0.05, 0.58, TILE_COLOURS[COLOUR_CODES[c]], "#00000055")
            cv.text(x, y - 0.05, str(int(n)), size=8, color=LETTER_COLOURS[COLOUR_CODES[c]])


def _draw_player(cv: _Canvas, state: AzulState, seat: int, name: str, badge: str) -> None:
    """One seat's board: header (name, score, ``badge`` from ``_badge``), pattern lines 1-5
    right-aligned next to the wall, and the floor ``F`` with its penalties."""
    player = state.by_seat(seat)
    highlight = TURN_COLOUR if badge == "to move" else WIN_COLOUR if badge else None
    symbol = "\u25b6 " if badge == "to move" else "\u2605 " if badge == "winner" else ""
    x0 = seat * (WIDTH - BOARD_W)
    cv.ax.add_patch(FancyBboxPatch((x0, BOARD_TOP - BOARD_H), BOARD_W, BOARD_H,
                                   boxstyle="round,pad=0,rounding_size=0.4", facecolor=BOARD_COLOUR,
                                   edgecolor=highlight or "#b5a88c", linewidth=3 if highlight else 1.2))
    header = BOARD_TOP - 0.55
    cv.text(x0 + 0.4, header, name, size=13, ha="left", fontweight="bold")
    cv.text(x0 + BOARD_W / 2 + 0.6, header, symbol + badge, size=11, color=highlight,
            fontweight="bold")
    cv.text(x0 + BOARD_W - 0.4, header, f"Score {player.score}", size=13, ha="right",
            fontweight="bold")
    wall_x = x0 + LINE_X + 5 + WALL_GAP
    for row in range(5):
        y = header - 1.2 - row
        cv.text(x0 + 0.6, y, DESTINATION_CODES[row], size=11, fontweight="bold", color="#555555")
        for i, letter in enumerate(_pattern_letters(player, row)):
            if letter == ".":
                cv.slot(x0 + LINE_X + i, y)
            elif letter != " ":
                cv.tile(x0 + LINE_X + i, y, letter)
        for col, letter in enumerate(_wall_letters(player, row)):
            cv.tile(wall_x + col, y, letter.upper(), faint=letter.islower())
    _draw_floor(cv, player, x0, header - 6.55)


def _draw_floor(cv: _Canvas, player: PlayerBoard, x0: float, y: float) -> None:
    """Floor line ``F`` of one seat at height ``y``: 7 spaces, penalties printed under them."""
    cv.text(x0 + 0.6, y, "F", size=11, fontweight="bold", color="#555555")
    items = _floor_items(player)
    for i, penalty in enumerate(FLOOR_PENALTIES):
        x = x0 + LINE_X + i
        if i < len(items):
            cv.tile(x, y, items[i])
        else:
            cv.slot(x, y)
        cv.text(x, y - 0.78, str(penalty), size=9, color="#8a3b2f")
    cv.text(x0 + LINE_X + 7.1, y, f"floor: {sum(FLOOR_PENALTIES[:len(items)])}", size=10,
            ha="left", color="#8a3b2f")


def plot_state(board: np.ndarray, ax=None, title: str | None = None,
               seat_names: dict | None = None) -> Figure:
    """Draw a position as a student sees the table.

    Args:
        board: (160,) int16 canonical board (any seat to move).
        ax: matplotlib Axes to draw into; None makes a new 12 x 6.1 inch ``BoardFigure`` (a
            ``Figure`` made without pyplot, so it needs no GUI and is never shown twice).
        title: optional title above the picture.
        seat_names: optional {seat: name}, e.g. ``{0: "You", 1: "Model"}``.
    Returns:
        The ``Figure`` holding the drawing (``ax.figure`` when ``ax`` is given). On top: factories 1-5 and the centre C (the move-code
        sources), bag and lid counts; below: seat 0 left and seat 1 right, each with pattern lines
        1-5 (right-aligned) next to the wall (empty cells faint), floor F with its penalties, and
        score. The status line gives the round and who is to move, a pending NOOP, or the result.
    """
    state = AzulState.decode(board)
    names = _names(seat_names)
    if ax is None:
        fig = BoardFigure(figsize=(12, 12 * HEIGHT / WIDTH))
        ax = fig.add_axes((0, 0, 1, 1))
    cv = _Canvas(ax, _font_scale(ax))
    cv.text(WIDTH / 2, STATUS_Y, _status(state, board, names), size=14, fontweight="bold")
    for f in range(N_FACTORIES):
        _draw_factory(cv, f, state.factories[f])
    _draw_centre(cv, state)
    _draw_supply(cv, state)
    for seat in (0, 1):
        _draw_player(cv, state, seat, names[seat], _badge(state, board, seat))
    ax.set_xlim(-0.1, WIDTH + 0.1)
    ax.set_ylim(-0.1, HEIGHT)
    ax.set_aspect("equal")
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=14 * cv.scale)
    return ax.figure
