"""Draw the pictures of the README, docs/othello.md and docs/tak.md into docs/figures/.

    .venv/bin/python scripts/draw_doc_figures.py

* ``othello_prior.png``: an Othello 6x6 position after c2 d2 and the shipped network's prior over
  the legal moves, with its colour bar: the figure part 5's notebook draws in its first section.
* ``tak_position.png``: a Tak 4x4 game of the shipped AlphaTak network against the course report's MCTS,
  after 12 plies, the last move shaded.
* ``readme.png``: the pack at a glance: those two boards and the prior panel side by side.

Deterministic (fixed seeds, headless Agg backend); a few seconds.
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from azcourse.alphazero.agent import shipped_predictor  # noqa: E402
from azcourse.othello.display import plot_othello  # noqa: E402
from azcourse.othello.game import Othello  # noqa: E402
from azcourse.tak.agents import make_opponent  # noqa: E402
from azcourse.tak.display import plot_tak  # noqa: E402
from azcourse.tak.game import Tak, status  # noqa: E402

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"


def othello_panels(axes) -> None:
    """The notebook's figure: the board after c2 d2 and the network's legal prior (with a colour bar)."""
    game = Othello(6)
    predict = shipped_predictor(game, "othello6")
    state = game.next_state(game.next_state(game.initial_state(), 8), 9)  # black c2, white d2
    prior, value = predict(state)
    legal = game.legal_mask(state)
    prior = np.where(legal, np.asarray(prior, dtype=np.float64), 0.0)
    prior /= prior.sum()
    plot_othello(game, state, ax=axes[0], title=f"{game.status(state)}\nvalue for the mover: {value:+.2f}")
    image = axes[1].imshow(prior[:36].reshape(6, 6), cmap="Greens")
    axes[1].figure.colorbar(image, ax=axes[1], label="prior probability of the move")
    axes[1].set_title("the network's prior on the legal moves")
    axes[1].set_xticks(range(6), list("abcdef"))
    axes[1].set_yticks(range(6), range(1, 7))


def tak_panel(ax) -> None:
    """12 plies of AlphaTak (White) against the report's MCTS (Black) on 4x4, the last move shaded."""
    game = Tak(4)
    rng = np.random.default_rng(3)
    players = [make_opponent("alphatak", game, rng, 200), make_opponent("mcts", game, rng, 200)]
    state, action = game.initial_state(), None
    for _ in range(12):
        action = players[game.to_move(state)].choose(state)
        state = game.next_state(state, action)
    plot_tak(game, state, ax=ax, last_action=action,
             title=f"Tak 4x4, AlphaTak (White) against MCTS, after 12 plies\n{status(game, state)}")


def main() -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    othello_panels(axes)
    fig.savefig(FIGURES / "othello_prior.png", dpi=90, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(5.6, 6))
    tak_panel(ax)
    fig.savefig(FIGURES / "tak_position.png", dpi=90, bbox_inches="tight")
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6), gridspec_kw={"width_ratios": [1, 1.15, 0.95]})
    othello_panels(axes[:2])
    tak_panel(axes[2])
    fig.savefig(FIGURES / "readme.png", dpi=80, bbox_inches="tight")
    for name in ("othello_prior.png", "tak_position.png", "readme.png"):
        print(f"wrote {FIGURES / name} ({(FIGURES / name).stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
