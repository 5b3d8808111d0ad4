#!/usr/bin/env python
"""The evidence of Azul's shipped models: play their cards' matches, record them in the cards, draw the figure.

    python scripts/azul_arena_report.py                       # every row (400 games each but the last 0.5 s row)
    python scripts/azul_arena_report.py --rows 3 4 --games 1000
    python scripts/azul_arena_report.py --plot-only           # the figure and the tables from the cards alone
    python scripts/azul_arena_report.py --curve runs/azul_strong   # the run's kept checkpoints, policy alone

Each row is a match of ``azcourse.azul.arena`` (seats alternating, each deal played twice, seed 0) between
the shipped ``strong`` (policy only: one network call a move; or inside the search, ``strong+search:N``)
and an opponent: ``random``, ``greedy``, the independent alpha-beta yardstick of
``benchmarks/azul_alphabeta.py`` at depth 2 and 3 (``yardstick:<depth>``), and the previous model
``strong_v1`` (Azul's own pipeline, kept in ``ckpts/azul_strong_v1`` for these rows); and the small
``baseline``'s own rows. Every result goes into the first agent's card (``ckpts/azul_strong/card.json``,
``arena``, key ``"<a> vs <b>"``) with its Wilson interval and ms a move; the figure
``docs/figures/azul_arena.png`` and the results table of ``README.md`` and ``docs/azul_model.md`` (between
``TABLE_START`` and ``TABLE_END``) are made from the cards, so they show what the cards record.

``--curve RUN`` plays every kept checkpoint of a training run (``checkpoints/iter_<k>``), the policy alone,
against greedy and the yardstick at depth 3 (200 games each), writes ``ckpts/azul_strong/curve.csv`` (with
the run's training time at each) and draws ``docs/figures/azul_strong_training.png`` from it.
"""
import argparse
import csv
import functools
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import azul_alphabeta as yardstick  # noqa: E402  (benchmarks/: a yardstick, not a package of the pack)

from azcourse.azul.arena import arena_agent  # noqa: E402
from azcourse.azul.checkpoints import read_card, record_arena  # noqa: E402
from azcourse.azul.game import Azul  # noqa: E402
from azcourse.core.arena import play_match, wilson_interval  # noqa: E402

MODEL = "azul_strong"
SEARCH = "strong+search:200"  # 200 simulations: well under 0.5 s a move on the 2-core machine
GAMES, SEED = 400, 0
ROWS = [  # (A, B, games): the last 0.5 s row is shorter (400 games would take 52 minutes of both cores)
    ("strong", "random", GAMES), ("strong", "greedy", GAMES), ("strong", "yardstick:2", GAMES),
    ("strong", "yardstick:3", GAMES), ("strong", "strong_v1", GAMES), ("strong", "strong_v1+search", GAMES),
    ("strong+search", "greedy", GAMES), ("strong+search", "yardstick:3", GAMES), (SEARCH, "yardstick:3", GAMES),
    (SEARCH, "strong_v1+search:800", GAMES),
    ("strong+search:0.5s", "yardstick:3", GAMES),  # play.py's default opponent
    ("strong+search:0.5s", "strong_v1+search:800", 100),
    ("baseline", "random", GAMES), ("baseline", "greedy", GAMES), ("baseline", "yardstick:2", GAMES),
    ("baseline", "yardstick:3", GAMES),
]
FIGURE = ROOT / "docs" / "figures" / "azul_arena.png"
CURVE, CURVE_FIGURE = ROOT / "ckpts" / MODEL / "curve.csv", ROOT / "docs" / "figures" / "azul_strong_training.png"
CURVE_OPPONENTS, CURVE_GAMES = ("greedy", "yardstick:3"), 200
TABLE_DOCS = (ROOT / "README.md", ROOT / "docs" / "azul_model.md")
TABLE_START = "<!-- the cards' table: written by python scripts/azul_arena_report.py --plot-only; do not edit -->"
TABLE_END = "<!-- end of the cards' table -->"


def opponent(spec: str):
    """``make(rng) -> agent`` for ``play_match``: the yardstick at a depth, or an arena agent."""
    kind, _, depth = spec.partition(":")
    if kind == "yardstick":
        return functools.partial(yardstick.yardstick_player, int(depth), 7, None)
    return functools.partial(arena_agent, spec)


def card_of(agent: str) -> str:
    """The checkpoint whose card records a row of ``agent`` ("strong+search:200" -> "azul_strong")."""
    return "azul_" + agent.split("+")[0]


def play_row(a: str, b: str, games: int, seed: int, workers: int | None) -> dict:
    """One row, A's view, recorded in A's card."""
    summary = play_match(Azul, functools.partial(arena_agent, a), opponent(b), games, seed, paired_deals=True,
                         workers=workers, progress=True, names=(a, b))
    print(summary.text(), flush=True)
    record_arena(card_of(a), summary.as_dict())
    return summary.as_dict()


def curve(run: pathlib.Path, workers: int | None, out=CURVE) -> None:
    """Every kept checkpoint of ``run``, the policy alone, against ``CURVE_OPPONENTS``: ``out`` (CSV), one row each."""
    with (run / "log.csv").open() as f:
        wall = {int(r["iteration"]): float(r["wall_s"]) for r in csv.DictReader(f)}
    rows = []
    for folder in sorted((run / "checkpoints").glob("iter_*")):
        iteration = int(folder.name.removeprefix("iter_"))
        row = {"iteration": iteration, "wall_s": wall.get(iteration, 0.0)}
        for b in CURVE_OPPONENTS:
            summary = play_match(Azul, functools.partial(arena_agent, str(folder)), opponent(b), CURVE_GAMES, SEED,
                                 paired_deals=True, workers=workers, progress=False)
            lo, hi = summary.interval()
            row.update({b: round(summary.score_rate, 4), f"{b} low": round(lo, 4), f"{b} high": round(hi, 4)})
        print(row, flush=True)
        rows.append(row)
    with out.open("w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot_curve(source=CURVE, out=CURVE_FIGURE) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with source.open() as f:
        rows = list(csv.DictReader(f))
    minutes = [float(r["wall_s"]) / 60 for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    for b in CURVE_OPPONENTS:
        score = [float(r[b]) for r in rows]
        err = [[s - float(r[f"{b} low"]) for s, r in zip(score, rows)], [float(r[f"{b} high"]) - s for s, r in zip(score, rows)]]
        ax.errorbar(minutes, score, yerr=err, marker="o", ms=3, capsize=2, label=f"against {b}")
    ax.axhline(0.5, color="black", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("training wall time on the 2-core machine (minutes; 0: the warm start)")
    ax.set_ylabel(f"score of the policy alone ({CURVE_GAMES} games, 95% CI)")
    ax.set_title(f"{MODEL}: the kept checkpoints of its run, one network call a move")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"figure: {out}")


def recorded_rows() -> dict[str, dict]:
    """``{"<a> vs <b>": row}``: the rows of ``ROWS`` that the cards record, in ``ROWS``'s order."""
    arena = {key: row for a in {card_of(a) for a, _, _ in ROWS} for key, row in read_card(a).get("arena", {}).items()}
    return {f"{a} vs {b}": arena[f"{a} vs {b}"] for a, b, _ in ROWS if f"{a} vs {b}" in arena}


def card_table() -> str:
    """The recorded rows as a Markdown table: A's score (a draw counting half) and win rate, each with its
    Wilson 95% interval, mean scores and A's ms a move."""
    lines = ["| match (A vs B) | games | A's wins / draws / losses | A's score (95% CI) | A's win rate (95% CI) "
             "| mean score A : B | ms a move (A) |", "|---|---|---|---|---|---|---|"]
    for match, r in recorded_rows().items():
        games, points = r["games"], r["wins"] + 0.5 * r["draws"]
        score_low, score_high = wilson_interval(points, games)
        win_low, win_high = r["win_rate_ci95"]
        lines.append(f"| {match} | {games} | {r['wins']} / {r['draws']} / {r['losses']} "
                     f"| {100 * points / games:.1f}% ({100 * score_low:.1f}-{100 * score_high:.1f}) "
                     f"| {100 * r['win_rate']:.1f}% ({100 * win_low:.1f}-{100 * win_high:.1f}) "
                     f"| {r['mean_score_a']:.1f} : {r['mean_score_b']:.1f} | {r['ms_per_move_a']:.2f} |")
    return "\n".join(lines)


def with_table(text: str, table: str) -> str:
    """``text`` with the block between ``TABLE_START`` and ``TABLE_END`` replaced by ``table``."""
    head, start, rest = text.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not (start and end):
        raise ValueError(f"no table block: the text needs the lines {TABLE_START!r} and {TABLE_END!r}")
    return f"{head}{TABLE_START}\n{table}\n{TABLE_END}{tail}"


def write_tables(paths=TABLE_DOCS) -> None:
    """Rewrite the cards' table in each of ``paths`` (Markdown files with the table's block)."""
    table = card_table()
    for path in paths:
        path.write_text(with_table(path.read_text(), table))
        print(f"table: {path}")


def plot(out=FIGURE) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels, rows = zip(*recorded_rows().items())
    games = np.array([r["games"] for r in rows], float)
    wins, draws = np.array([r["wins"] for r in rows]) / games, np.array([r["draws"] for r in rows]) / games
    low = wins - np.array([r["win_rate_ci95"][0] for r in rows])
    high = np.array([r["win_rate_ci95"][1] for r in rows]) - wins
    fig, ax = plt.subplots(figsize=(11, 5.6))
    ax.bar(labels, wins, color="tab:green", label="wins")
    ax.bar(labels, draws, bottom=wins, color="tab:gray", label="draws")
    ax.bar(labels, 1 - wins - draws, bottom=wins + draws, color="tab:red", label="losses")
    ax.errorbar(labels, wins, yerr=[low, high], fmt="none", ecolor="black", capsize=4)
    ax.axhline(0.5, color="black", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_ylabel("fraction of the games (95% Wilson CI on wins)")
    ax.set_title("Azul's models: the policy alone and inside the search, seats alternating, deals paired")
    plt.setp(ax.get_xticklabels(), rotation=35, ha="right", fontsize=8)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"figure: {out}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="*", help="row numbers to play, from 1 (default: all)")
    parser.add_argument("--games", type=int, help=f"games a row (default: the row's own, {GAMES} but for the 0.5 s rows)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, help="processes (default: all cores)")
    parser.add_argument("--plot-only", action="store_true", help="draw the figure and write the tables from the cards, play nothing")
    parser.add_argument("--curve", type=pathlib.Path, metavar="RUN", help="the learning curve of a training run instead")
    args = parser.parse_args(argv)
    if args.curve:
        curve(args.curve, args.workers)
        plot_curve()
        return 0
    if not args.plot_only:
        for number in args.rows or range(1, len(ROWS) + 1):
            a, b, games = ROWS[number - 1]
            play_row(a, b, args.games or games, args.seed, args.workers)
    plot()
    write_tables()
    return 0


if __name__ == "__main__":
    sys.exit(main())
