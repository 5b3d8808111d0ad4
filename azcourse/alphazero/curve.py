"""A run's learning curve: its kept checkpoints against OpenSpiel's MCTS or a classical yardstick, over training time.

    python -m azcourse.alphazero curve ckpts/othello8 [--games 20] [--simulations 200] [--opponent-simulations 2000]
    python -m azcourse.alphazero curve ckpts/othello8_ntuple --opponent classical:4

``evaluate`` plays every kept checkpoint of a run folder (``checkpoints/iter_<k>``, once the run's
``log.csv`` has the row of iteration ``k``) that ``curve.csv`` does not hold yet for these settings
against OpenSpiel's C++ ``MCTSBot`` (``azcourse.openspiel_agent``: random rollouts, a fresh bot a game),
seats alternating, or against the game's classical yardstick (``--opponent classical:<depth>``,
``azcourse.registry.make_classical``; deterministic, so each pair of games starts after ``OPENING_PLIES``
random plies, one opening for both seats), and appends one row per checkpoint to ``curve.csv``: the iteration, the run's
training wall time at its end (``log.csv``'s ``wall_s``; 0 for the untrained network), the match by
seat, the score rate (a draw counts half) with its Wilson 95% interval. Evaluation runs beside or after
training and costs it nothing but the CPU it shares: the trainer never waits for it.

``draw`` reads ``curve.csv`` alone and draws ``curve.png`` (matplotlib, Agg): the score against the
training time in minutes, with the intervals as error bars and each point's iteration, one line per
opponent and pair of budgets.
"""
from __future__ import annotations

import csv
import functools
import pathlib

from azcourse.core.arena import play_match, wilson_interval
from azcourse.registry import make_game

from .checkpoints import CARD_FILE, PARAMS_FILE

CURVE_FILE, FIGURE_FILE = "curve.csv", "curve.png"
SETTINGS = ("simulations", "opponent", "opponent_simulations")
OPENSPIEL = "openspiel"  # the default opponent (a curve.csv written before the column existed holds only it)
OPENING_PLIES = 3  # random plies before a classical yardstick's games (both seats of a pair share them)
CURVE_FIELDS = ("iteration", "wall_s", *SETTINGS, "games", "wins", "draws", "losses", "first_wins", "first_draws",
                "first_losses", "second_wins", "second_draws", "second_losses", "score", "score_low", "score_high",
                "match_s")
FLOATS = ("wall_s", "score", "score_low", "score_high", "match_s")


def read_rows(path: pathlib.Path) -> list[dict]:
    """The rows of a CSV file, numbers parsed (``FLOATS`` as float, the other filled fields as int);
    ``[]`` when there is no file."""
    if not path.is_file():
        return []
    with path.open() as f:
        return [{key: value if key == "opponent" or value == "" else float(value) if key in FLOATS
                 else int(float(value)) for key, value in row.items()} for row in csv.DictReader(f)]


def read_curve(path: pathlib.Path) -> list[dict]:
    """``curve.csv``'s rows; a row from before the ``opponent`` column is OpenSpiel's."""
    return [{**row, "opponent": row.get("opponent") or OPENSPIEL} for row in read_rows(path)]


def training_wall_s(run_dir: pathlib.Path) -> dict[int, float]:
    """``{iteration: seconds of training at its end}`` from the run's ``log.csv``, iteration 0 at 0."""
    return {0: 0.0, **{row["iteration"]: row["wall_s"] for row in read_rows(run_dir / "log.csv")}}


def kept_checkpoints(run_dir: pathlib.Path) -> list[tuple[int, pathlib.Path]]:
    """``(iteration, folder)`` of every complete kept checkpoint whose iteration the log has finished,
    in order (a checkpoint the trainer is still writing is left for the next call)."""
    finished = training_wall_s(run_dir)
    found = []
    for folder in sorted((run_dir / "checkpoints").glob("iter_*")):
        iteration = int(folder.name.removeprefix("iter_"))
        if iteration in finished and (folder / CARD_FILE).is_file() and (folder / PARAMS_FILE).is_file():
            found.append((iteration, folder))
    return found


def evaluate(run_dir, games: int = 20, simulations: int = 200, opponent_simulations: int = 2000, workers: int = 1,
             seed: int = 0, progress: bool = True, every: int = 1, opponent: str = OPENSPIEL) -> list[dict]:
    """Play each kept checkpoint of ``run_dir`` that ``curve.csv`` lacks for these settings against the
    opponent, ``games`` games, and append its row (``CURVE_FIELDS``) to ``curve.csv``. Returns the new rows.

    Args:
        every: only the checkpoints whose iteration is a multiple of this (1: every kept one).
        simulations: the network's simulations a move (its card's search settings otherwise).
        opponent: ``"openspiel"`` (OpenSpiel's MCTS) or ``"classical:<depth>"`` (the game's yardstick).
        opponent_simulations: the bot's simulations a move (OpenSpiel's; 0 is recorded for a yardstick).
        workers: processes for each match (the results do not depend on it).

    Raises:
        ValueError: an opponent that is neither, or a game without a classical yardstick.
    """
    from azcourse.registry import make_classical

    from .agent import load_agent

    run_dir = pathlib.Path(run_dir)
    path, wall = run_dir / CURVE_FILE, training_wall_s(run_dir)
    if opponent != OPENSPIEL:
        opponent_simulations = 0
    rows = read_curve(path)
    done = {tuple(row[key] for key in ("iteration", *SETTINGS)) for row in rows}
    new = []
    for iteration, folder in kept_checkpoints(run_dir):
        if iteration % every or (iteration, simulations, opponent, opponent_simulations) in done:
            continue
        network = functools.partial(load_agent, str(folder), simulations=simulations, name=f"iter {iteration}")
        game_name = network(0).game.name
        if opponent == OPENSPIEL:
            from azcourse.openspiel_agent import OpenSpielMCTSAgent

            bot, openings = functools.partial(OpenSpielMCTSAgent, make_game(game_name), simulations=opponent_simulations), 0
        else:
            make_classical(opponent, game_name)  # a bad name stops here
            bot, openings = functools.partial(make_classical, opponent, game_name), OPENING_PLIES
        summary = play_match(functools.partial(make_game, game_name), network, bot, games=games, seed=seed,
                             workers=workers, progress=progress, opening_moves=openings)
        (w1, d1, l1), (w2, d2, l2) = summary.by_seat
        low, high = wilson_interval(summary.wins + 0.5 * summary.draws, summary.games)
        row = {"iteration": iteration, "wall_s": wall[iteration], "simulations": simulations, "opponent": opponent,
               "opponent_simulations": opponent_simulations, "games": summary.games, "wins": summary.wins,
               "draws": summary.draws, "losses": summary.losses, "first_wins": w1, "first_draws": d1,
               "first_losses": l1, "second_wins": w2, "second_draws": d2, "second_losses": l2,
               "score": round(summary.score_rate, 4), "score_low": round(low, 4), "score_high": round(high, 4),
               "match_s": round(summary.wall_s, 1)}
        rows.append(row)
        with path.open("w", newline="") as f:  # the whole file: one written before the opponent column gains it
            writer = csv.DictWriter(f, CURVE_FIELDS)
            writer.writeheader()
            writer.writerows(rows)
        new.append(row)
    return new


def draw(run_dir):
    """Draw ``curve.png`` in ``run_dir`` from its ``curve.csv``: the score rate (%) against the training wall
    time (minutes), Wilson intervals as error bars, one line per ``(simulations, opponent, opponent_simulations)``, in
    the order of ``wall_s``. Returns the matplotlib ``Figure`` (closed; its lines hold the plotted points).

    Raises:
        FileNotFoundError: the folder has no ``curve.csv`` (run ``evaluate`` first).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = pathlib.Path(run_dir)
    rows = read_curve(run_dir / CURVE_FILE)
    if not rows:
        raise FileNotFoundError(f"{run_dir / CURVE_FILE} holds no evaluation: run `python -m azcourse.alphazero "
                                f"curve {run_dir}` with --games > 0 first")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for budgets in sorted({tuple(row[key] for key in SETTINGS) for row in rows}):
        line = sorted((row for row in rows if tuple(row[key] for key in SETTINGS) == budgets),
                      key=lambda row: row["wall_s"])
        minutes = [row["wall_s"] / 60 for row in line]
        score = [100 * row["score"] for row in line]
        errors = [[100 * (row["score"] - row["score_low"]) for row in line],
                  [100 * (row["score_high"] - row["score"]) for row in line]]
        against = f"OpenSpiel MCTS @{budgets[2]}" if budgets[1] == OPENSPIEL else budgets[1]
        ax.errorbar(minutes, score, yerr=errors, marker="o", capsize=3,
                    label=f"network @{budgets[0]} vs {against} ({line[-1]['games']} games a point)")
        for row, x, y in zip(line, minutes, score):
            ax.annotate(f"it {row['iteration']}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    right = 1.05 * max(1.0, max(row["wall_s"] for row in rows) / 60)
    ax.set_xlim(-0.03 * right, right)
    ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("training wall time (minutes)")
    ax.set_ylabel("score (%, a draw counts half; Wilson 95%)")
    ax.set_ylim(0, 100)
    opponents = {row["opponent"] for row in rows}
    ax.set_title(f"{run_dir.name}: score against " + ("OpenSpiel's MCTS" if opponents == {OPENSPIEL} else
                                                       "its opponents") + " over training")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(run_dir / FIGURE_FILE, dpi=100)
    plt.close(fig)
    return fig
