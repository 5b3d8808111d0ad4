"""Pictures of a Hex position: a matplotlib figure and a switchable display (the text diamond is
``azcourse.hex.game.diamond_text``, the game's ``render``).

Both pictures put cell ``a1`` = ``(0, 0)`` alone at the top. Row numbers stand at the upper-left
side, each row running down to the right from its number; column letters stand at the upper-right
side, each column running down to the left from its letter. So ``c3`` is where row 3's line and
column c's line cross. ``X`` (red) is player 1, ``O`` (black) player 2, ``.`` an empty cell.

``HexDisplay(enabled)`` is the one switch for watching actual games (training episodes, tournament
games): with ``enabled=False`` its ``show`` does nothing, so a loop can call it on every move.
"""
from __future__ import annotations

import math

import numpy as np

from .game import Hex, HexState, column_letter, status

COLOURS = ("#d62728", "#222222")  # player 1 red, player 2 black, as in the assignment's figures
EMPTY_COLOUR = "#f2e6c9"


def _hexagon(x: float, y: float, radius: float) -> np.ndarray:
    angles = np.deg2rad(np.arange(6) * 60 + 30)  # pointy top
    return np.column_stack([x + radius * np.cos(angles), y + radius * np.sin(angles)])


def cell_centre(row: int, col: int) -> tuple[float, float]:
    """Figure coordinates of cell ``(row, col)``: unit hexagons, ``(0, 0)`` at the top."""
    return (col - row) * math.sqrt(3) / 2, -(row + col) * 1.5


def plot_hex(state: HexState, ax=None, title: str | None = None, last_action: int | None = None,
             values=None):
    """Draw ``state`` as hexagons in a diamond; returns the matplotlib Axes.

    Sides are drawn in their owner's colour; row numbers and column letters label the upper sides;
    ``last_action`` (if given) is ringed. ``values`` (optional, float ``(n^2,)``, e.g. a search's
    visit distribution) shades each empty cell from white (0) to blue (the largest value) and
    writes the value in it. Works headless (no window needed).
    """
    from matplotlib.patches import Polygon
    import matplotlib.pyplot as plt

    n = math.isqrt(len(state.cells))
    game = Hex(n)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.0 + 0.9 * n, 0.6 + 0.8 * n))
    shades = None
    if values is not None:
        values = np.asarray(values, dtype=float).reshape(-1)
        if values.shape != (n * n,):
            raise ValueError(f"values must hold one number per cell ({n * n}), got shape {values.shape}")
        top = np.nanmax(np.abs(values)) or 1.0
        shades = plt.get_cmap("Blues")(0.85 * np.clip(values / top, 0, 1))
    for i, value in enumerate(state.cells):
        r, c = divmod(i, n)
        x, y = cell_centre(r, c)
        face = shades[i] if shades is not None and not value else EMPTY_COLOUR
        ax.add_patch(Polygon(_hexagon(x, y, 1.0), closed=True, facecolor=face, edgecolor="#8c7b5a"))
        if shades is not None and not value:
            ax.text(x, y, f"{values[i]:.2f}".lstrip("0") if 0 <= values[i] < 1 else f"{values[i]:.3g}",
                    ha="center", va="center", fontsize=8, color="black" if values[i] < 0.6 * top else "white")
        if value:
            ax.add_patch(plt.Circle((x, y), 0.62, color=COLOURS[value - 1]))
        if i == last_action:
            ax.add_patch(plt.Circle((x, y), 0.75, fill=False, edgecolor="#1f77b4", linewidth=2.5))
    # each side: its two end cells, its owner, and its outward normal
    last = n - 1
    sides = (((0, 0), (0, last), 0, (0.866, 0.5)), ((last, 0), (last, last), 0, (-0.866, -0.5)),
             ((0, 0), (last, 0), 1, (-0.866, 0.5)), ((0, last), (last, last), 1, (0.866, -0.5)))
    for start, end, owner, normal in sides:
        ends = np.array([cell_centre(*start), cell_centre(*end)]) + 1.3 * np.array(normal)
        ends += (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0]) * np.array([[-0.9], [0.9]])
        ax.plot(ends[:, 0], ends[:, 1], color=COLOURS[owner], linewidth=4, solid_capstyle="round")
    for k in range(n):
        x, y = cell_centre(k, 0)
        ax.text(x - 0.866 * 2.3, y + 0.5 * 2.3, str(k + 1), ha="center", va="center", fontsize=11)
        x, y = cell_centre(0, k)
        ax.text(x + 0.866 * 2.3, y + 0.5 * 2.3, column_letter(k), ha="center", va="center", fontsize=11)
    ax.set_title(title if title is not None else status(game, state).replace("X (player 1)", "Red (player 1)")
                 .replace("O (player 2)", "Black (player 2)"))
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.axis("off")
    return ax


class HexDisplay:
    """Shows actual games as they are played, or nothing: the one switch is ``enabled``.

    Args:
        enabled: show positions (True) or do nothing (False).
        mode: ``"text"`` (the diamond, written with ``write``) or ``"figure"`` (``plot_hex`` in one
            figure, redrawn on every call; in a notebook the figure is displayed each time).
        write: where text goes (default ``print``).
    """

    def __init__(self, enabled: bool = True, mode: str = "text", write=print):
        if mode not in ("text", "figure"):
            raise ValueError(f"mode is 'text' or 'figure', got {mode!r}")
        self.enabled, self.mode, self.write = bool(enabled), mode, write
        self._axes = None

    def show(self, game: Hex, state: HexState, caption: str = "", last_action: int | None = None) -> None:
        """Show ``state`` (with ``caption`` above it) if the display is enabled."""
        if not self.enabled:
            return
        if self.mode == "text":
            self.write(f"{caption}\n{game.render(state)}" if caption else game.render(state))
            return
        import matplotlib.pyplot as plt

        if self._axes is None:
            _, self._axes = plt.subplots(figsize=(1.0 + 0.9 * game.size, 0.6 + 0.8 * game.size))
        self._axes.clear()
        plot_hex(state, self._axes, title=caption or None, last_action=last_action)
        figure = self._axes.figure
        if _in_notebook():
            from IPython.display import clear_output, display

            clear_output(wait=True)
            display(figure)
        elif plt.isinteractive():
            plt.pause(0.001)  # let a window redraw
        else:
            figure.canvas.draw_idle()


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")
