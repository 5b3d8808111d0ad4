#!/usr/bin/env python
"""The shipped models' arena results: play the standard matches, record them in the cards, draw the figure.

    python scripts/azul_arena_report.py            # play every match (about 5 min on 2 cores), then draw
    python scripts/azul_arena_report.py --plot-only

Each match is 1,000 games (seed 0, seats alternating), plus a second opinion of 2,000 games (seed 1)
on the closest target, strong against greedy; every result is recorded in the first agent's card
(``ckpts/azul_<model>/card.json``, key ``"<a> vs <b>"``); the figure ``docs/figures/azul_arena.png`` is
drawn from the cards, so it always shows what they record.
"""
import argparse
import pathlib
import sys

from azcourse.azul.arena import run_arena
from azcourse.azul.checkpoints import read_card, record_arena

MATCHES = [("baseline", "random"), ("baseline", "greedy"), ("strong", "random"), ("strong", "greedy"),
           ("strong", "baseline"), ("strong+search", "greedy")]
GAMES, SEED = 1000, 0
# The policy-only target against greedy (>= 55%) is close: a second, independent arena.
SECOND_OPINION = ("strong", "greedy", 2000, 1, "strong vs greedy (seed 1, 2000 games)")
FIGURE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "figures" / "azul_arena.png"


def card_of(agent: str) -> str:
    return "azul_" + agent.split("+")[0]


def play_all(workers=None) -> None:
    for a, b in MATCHES:
        summary = run_arena(a, b, GAMES, SEED, workers)
        print(summary.text(), flush=True)
        record_arena(card_of(a), summary.as_dict())
    a, b, games, seed, key = SECOND_OPINION
    summary = run_arena(a, b, games, seed, workers)
    print(summary.text(), flush=True)
    record_arena(card_of(a), summary.as_dict(), key)


def plot(out=FIGURE) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [read_card(card_of(a))["arena"][f"{a} vs {b}"] for a, b in MATCHES]
    wins = np.array([r["wins"] for r in rows]) / GAMES
    draws = np.array([r["draws"] for r in rows]) / GAMES
    low = wins - np.array([r["win_rate_ci95"][0] for r in rows])
    high = np.array([r["win_rate_ci95"][1] for r in rows]) - wins
    labels = [f"{a}\nvs {b}" for a, b in MATCHES]
    fig, ax = plt.subplots(figsize=(9.6, 4.8))
    ax.bar(labels, wins, color="tab:green", label="wins")
    ax.bar(labels, draws, bottom=wins, color="tab:gray", label="draws")
    ax.bar(labels, 1 - wins - draws, bottom=wins + draws, color="tab:red", label="losses")
    ax.errorbar(labels, wins, yerr=[low, high], fmt="none", ecolor="black", capsize=4)
    ax.axhline(0.5, color="black", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"fraction of {GAMES} games (95% Wilson CI on wins)")
    ax.set_title(f"Arena, {GAMES} games each, seats alternating, seed {SEED}")
    ax.tick_params(axis="x", labelsize=8)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"figure: {out}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plot-only", action="store_true", help="draw the figure from the cards, play nothing")
    parser.add_argument("--workers", type=int, help="processes (default: all cores)")
    args = parser.parse_args(argv)
    if not args.plot_only:
        play_all(args.workers)
    plot()
    return 0


if __name__ == "__main__":
    sys.exit(main())
