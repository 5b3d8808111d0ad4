"""A matplotlib figure of a Tak position (the text board is ``azcourse.tak.game.board_text``, the
game's ``render``).

Each square shows its stack as a pile seen from the side, bottom stone lowest: a flat is a wide low
block, a wall a narrow tall block, a capstone a disc; White's pieces are white, outlined, Black's dark. A
stack taller than ``PILE_SHOWN`` stones shows its top ``PILE_SHOWN`` with the full height written
beside it. Files ``a..`` run left to right under the board, ranks ``1..n`` bottom to top. Works
headless (no window needed).
"""
from __future__ import annotations

from .game import Tak, TakState, status

# Mid-tone squares: both players' stones have a WCAG contrast of at least 3:1 (non-text contrast)
# against every square (White 3.5:1 and 3.1:1, Black 4.1:1 and 4.6:1); the former cream stones on light
# tan had 1.4:1.
COLOURS = ("#ffffff", "#2b2b2b")  # White's pieces, Black's pieces
EDGES = ("#1e1a14", "#000000")
SQUARE_COLOUR, LAST_COLOUR = "#a8844c", "#6a98c0"
PILE_SHOWN = 7
BLOCK = 0.08  # height of a flat in the pile, in squares (7 flats and a wall or capstone fit in one)


def plot_tak(game: Tak, state: TakState, ax=None, title: str | None = None, last_action: int | None = None):
    """Draw ``state`` of ``game``; returns the matplotlib Axes.

    Args:
        ax: the Axes to draw in (a new figure when None).
        title: the title (default: the status line, who moves or how the game ended).
        last_action: an action whose squares (the placed square, or a moved stack's start and
            drops) are shaded.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    n = game.size
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 1.1 * n, 1.6 + 1.1 * n))
    marked = set()
    if last_action is not None:
        move = game.move_of(last_action)
        marked.add(move[0])
        if len(move) == 3:
            square, direction, drops = move
            marked.update(game.path(square, direction)[:len(drops)])
    for square, stack in enumerate(state.board):
        rank, file = divmod(square, n)
        ax.add_patch(Rectangle((file, rank), 1, 1, facecolor=LAST_COLOUR if square in marked else SQUARE_COLOUR,
                               edgecolor="#7a6440", linewidth=1.5))
        shown = stack[-PILE_SHOWN:]
        for level, code in enumerate(shown):
            colour, kind = code & 1, code >> 1
            y = rank + 0.07 + level * BLOCK
            if kind == 0:
                ax.add_patch(Rectangle((file + 0.2, y), 0.6, BLOCK * 0.85, facecolor=COLOURS[colour],
                                       edgecolor=EDGES[colour], linewidth=0.8))
            elif kind == 1:
                ax.add_patch(Rectangle((file + 0.43, y), 0.14, 0.3, facecolor=COLOURS[colour],
                                       edgecolor=EDGES[colour], linewidth=1.0))
            else:
                ax.add_patch(Circle((file + 0.5, y + 0.13), 0.13, facecolor=COLOURS[colour],
                                    edgecolor=EDGES[colour], linewidth=1.2))
        if len(stack) > PILE_SHOWN:
            ax.text(file + 0.95, rank + 0.95, str(len(stack)), ha="right", va="top", fontsize=9)
    for k in range(n):
        ax.text(k + 0.5, -0.25, "abcdef"[k], ha="center", va="center", fontsize=11)
        ax.text(-0.25, k + 0.5, str(k + 1), ha="center", va="center", fontsize=11)
    r = state.reserves
    caps = game.capstones
    reserve = "   ".join(f"{who}: {r[2 * p]} stones" + (f", {r[2 * p + 1]} cap" if caps else "")
                         for p, who in enumerate(("White", "Black")))
    ax.text(n / 2, -0.7, f"left to place: {reserve}", ha="center", va="center", fontsize=9)
    ax.set_title(title if title is not None else status(game, state), fontsize=10)
    ax.set_xlim(-0.5, n + 0.1)
    ax.set_ylim(-1.0, n + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
