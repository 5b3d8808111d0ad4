"""An Othello position as a matplotlib figure (the text board is ``Othello.render``).

A green board with grid lines, column letters along the top and row numbers down the left (``a1`` at
the top left, as in the text), black and white discs, the mover's legal moves as small grey dots and
the last move ringed in red. Works headless (the Agg backend; no window is needed).
"""
from __future__ import annotations

import numpy as np

from .game import Othello, OthelloState, column_letter

BOARD_GREEN = "#2e8b57"
DISC_COLOURS = ("#111111", "#f5f5f5")  # black, white
LEGAL_COLOUR = "#555555"
LAST_MOVE_COLOUR = "#d62728"


def plot_othello(game: Othello, state: OthelloState, ax=None, title: str | None = None,
                 last_action: int | None = None, show_legal: bool = True):
    """Draw ``state`` of ``game``; returns the matplotlib Axes.

    Square ``(r, c)`` is the unit square centred on ``(c, -r)``.

    Args:
        ax: where to draw (default: a new figure).
        title: the title (default: the game's status line, disc counts and who moves).
        last_action: an action whose square is ringed (the pass and None ring nothing).
        show_legal: mark the mover's placing moves with dots.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    n = game.size
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 0.6 * n, 1.4 + 0.6 * n))
    ax.add_patch(Rectangle((-0.5, -n + 0.5), n, n, facecolor=BOARD_GREEN, edgecolor="black", linewidth=2))
    for k in range(1, n):
        ax.plot([k - 0.5, k - 0.5], [0.5, -n + 0.5], color="black", linewidth=1)
        ax.plot([-0.5, n - 0.5], [-k + 0.5, -k + 0.5], color="black", linewidth=1)
    cells = game.board(state)
    for r, c in zip(*np.nonzero(cells)):
        ax.add_patch(Circle((c, -r), 0.4, facecolor=DISC_COLOURS[cells[r, c] - 1], edgecolor="black",
                            linewidth=1))
    if show_legal:
        for action in np.flatnonzero(game.legal_mask(state)[:-1]):
            r, c = divmod(int(action), n)
            ax.add_patch(Circle((c, -r), 0.1, facecolor=LEGAL_COLOUR, edgecolor="none"))
    if last_action is not None and last_action != game.pass_action:
        r, c = divmod(int(last_action), n)
        ax.add_patch(Circle((c, -r), 0.46, fill=False, edgecolor=LAST_MOVE_COLOUR, linewidth=2.5))
    for k in range(n):
        ax.text(k, 0.8, column_letter(k), ha="center", va="center", fontsize=11)
        ax.text(-0.85, -k, str(k + 1), ha="center", va="center", fontsize=11)
    ax.set_title(title if title is not None else game.status(state),
                 fontsize=9)
    ax.set_xlim(-1.1, n - 0.4)
    ax.set_ylim(-n + 0.4, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
