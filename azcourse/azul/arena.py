"""Arena: N games between two Azul agents, seats alternating, games in parallel over the cores.

Game ``i`` uses the deal seed ``seed + i // 2`` and puts agent A in seat ``i % 2``: each deal is
played twice with the seats exchanged (the tile draws come from their own generator, separate from
the agents' generator, so both games of a pair see the same sequence of random numbers at the
refills). Wins, draws (shared victories after the row tie-break, rule 20) and losses are counted
for A; the 95% confidence interval of A's win rate is Wilson's score interval.

Agents are named by strings so that worker processes can build them: ``random``, ``greedy``
(``azcourse.azul_agents`` when it provides them), ``heuristic_greedy`` (the training reference),
``heuristic+search:N`` (the search with no network), and checkpoints: ``baseline``, ``strong`` (policy only), ``strong+search`` (PUCT search, 100
simulations capped at 1 s a move), ``strong+search:800`` (simulations) or ``strong+search:0.5s``.

Command line::

    python -m azcourse.azul.arena strong greedy --games 1000 --seed 0 [--workers 2] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import time

import numpy as np

import Azul_Simulator as az

from ..azul_match import play_out
from . import heuristics

MODEL_WORDS = ("strong", "baseline", "azul_", "+search", "/")


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default); (0, 1) when n == 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def _random_agent(board, rng):
    return int(rng.choice(np.flatnonzero(az.get_valid_mask(board))))


def _heuristic_greedy(board, rng=None):
    return heuristics.heuristic_greedy_action(board)


def build_agent(spec: str):
    """An agent ``agent(board, rng) -> action`` from its arena name (see the module docstring)."""
    spec = spec.strip()
    if spec == "heuristic_greedy":
        return _heuristic_greedy
    if spec.startswith("heuristic+search"):  # the search with no network: greedy priors, heuristic values
        from .search import SearchAgent, SearchConfig, heuristic_evaluator
        budget = spec.partition(":")[2] or "400"
        return SearchAgent(heuristic_evaluator(), SearchConfig(simulations=int(budget), time_limit=1.0))
    if any(word in spec for word in MODEL_WORDS):
        from .checkpoints import make_model_agent
        return make_model_agent(spec)
    try:
        from azcourse.azul_agents import make_agent
        return make_agent(spec)
    except (ImportError, AttributeError):
        pass
    if spec == "random":
        return _random_agent
    if spec == "greedy":
        return _heuristic_greedy
    raise ValueError(f"unknown agent {spec!r}")


def play_game(agents, seed: int, deal_rng=None, agent_rng=None):
    """One game; ``agents[s]`` plays seat ``s``. Returns ``(scores by seat, info)`` where info has
    ``winner`` (seat or None), ``moves`` and ``think_s`` (seconds spent by each seat's agent)."""
    deal_rng = np.random.default_rng([seed, 0]) if deal_rng is None else deal_rng
    agent_rng = np.random.default_rng([seed, 1]) if agent_rng is None else agent_rng
    moves = [0, 0]
    think = [0.0, 0.0]

    def choose_take(board, seat, mask):
        t = time.perf_counter()
        action = int(agents[seat](board, agent_rng))
        think[seat] += time.perf_counter() - t
        if not (0 <= action < az.ACTION_DIM) or not mask[action]:
            raise ValueError(f"agent in seat {seat} chose illegal action {action}")
        moves[seat] += 1
        return action

    board = play_out(az.init_board(deal_rng), deal_rng, choose_take)
    state = az.AzulState.decode(board)
    scores = [state.by_seat(0).score, state.by_seat(1).score]
    rows = [state.by_seat(0).complete_rows(), state.by_seat(1).complete_rows()]
    return scores, {"winner": az.winner(scores, rows), "moves": moves, "think_s": think}


_WORKER = {}


def _init_worker(spec_a, spec_b):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _WORKER["agents"] = (build_agent(spec_a), build_agent(spec_b))


def _play_indexed(args):
    index, seed = args
    agent_a, agent_b = _WORKER["agents"]
    a_seat = index % 2
    agents = (agent_a, agent_b) if a_seat == 0 else (agent_b, agent_a)
    scores, info = play_game(agents, seed + index // 2)
    w = info["winner"]
    result = "draw" if w is None else ("win" if w == a_seat else "loss")
    return {"index": index, "a_seat": a_seat, "score_a": scores[a_seat], "score_b": scores[1 - a_seat],
            "result": result, "moves_a": info["moves"][a_seat], "moves_b": info["moves"][1 - a_seat],
            "think_a": info["think_s"][a_seat], "think_b": info["think_s"][1 - a_seat]}


def summarize(spec_a, spec_b, games, seed, records, wall_s, workers) -> dict:
    n = len(records)
    wins = sum(r["result"] == "win" for r in records)
    draws = sum(r["result"] == "draw" for r in records)
    losses = n - wins - draws
    lo, hi = wilson_interval(wins, n)
    diff = np.array([r["score_a"] - r["score_b"] for r in records], float)
    moves_a = max(1, sum(r["moves_a"] for r in records))
    moves_b = max(1, sum(r["moves_b"] for r in records))
    return {
        "agent_a": spec_a, "agent_b": spec_b, "games": n, "seed": seed,
        "wins": wins, "draws": draws, "losses": losses,
        "win_rate": wins / n if n else 0.0, "win_rate_ci95": [round(lo, 4), round(hi, 4)],
        "score_rate": (wins + 0.5 * draws) / n if n else 0.0,
        "mean_score_a": float(np.mean([r["score_a"] for r in records])) if n else 0.0,
        "mean_score_b": float(np.mean([r["score_b"] for r in records])) if n else 0.0,
        "mean_score_diff": float(diff.mean()) if n else 0.0,
        "mean_score_diff_ci95": ([round(float(diff.mean() - 1.96 * diff.std(ddof=1) / math.sqrt(n)), 3),
                                  round(float(diff.mean() + 1.96 * diff.std(ddof=1) / math.sqrt(n)), 3)]
                                 if n > 1 else None),
        "ms_per_move_a": 1000 * sum(r["think_a"] for r in records) / moves_a,
        "ms_per_move_b": 1000 * sum(r["think_b"] for r in records) / moves_b,
        "wall_s": round(wall_s, 1), "workers": workers,
    }


def run_arena(spec_a: str, spec_b: str, games: int = 100, seed: int = 0, workers: int | None = None,
              progress: bool = True) -> dict:
    """Play ``games`` games of ``spec_a`` against ``spec_b``; returns the summary dict (A's view)."""
    from ..progress import progress as progress_bar  # the parameter `progress` turns it on
    workers = workers or os.cpu_count() or 1
    jobs = [(i, seed) for i in range(games)]
    t0 = time.time()
    records = []
    if workers <= 1:
        _init_worker(spec_a, spec_b)
        for job in progress_bar(jobs, desc=f"{spec_a} vs {spec_b}", disable=not progress, leave=False):
            records.append(_play_indexed(job))
    else:
        with mp.get_context("spawn").Pool(workers, _init_worker, (spec_a, spec_b)) as pool:
            for rec in progress_bar(pool.imap_unordered(_play_indexed, jobs, chunksize=max(1, games // (workers * 20))),
                                    total=games, desc=f"{spec_a} vs {spec_b}", disable=not progress, leave=False):
                records.append(rec)
    records.sort(key=lambda r: r["index"])
    return summarize(spec_a, spec_b, games, seed, records, time.time() - t0, workers)


def format_summary(s: dict) -> str:
    lo, hi = s["win_rate_ci95"]
    return (f"{s['agent_a']} vs {s['agent_b']}: {s['games']} games (seed {s['seed']}, seats alternating)\n"
            f"  wins {s['wins']}  draws {s['draws']}  losses {s['losses']}  "
            f"win rate {100 * s['win_rate']:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)\n"
            f"  mean score {s['mean_score_a']:.1f} vs {s['mean_score_b']:.1f}  "
            f"mean difference {s['mean_score_diff']:+.1f}\n"
            f"  think time {s['ms_per_move_a']:.2f} vs {s['ms_per_move_b']:.2f} ms/move  "
            f"({s['wall_s']:.0f} s, {s['workers']} workers)")


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arena's options on ``parser`` (used by this module's CLI and by ``play.py arena``)."""
    parser.add_argument("agent_a", help="e.g. strong, strong+search, baseline, greedy, random")
    parser.add_argument("agent_b")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--json", action="store_true",
                        help="also print the summary as one JSON object on the last line")
    parser.add_argument("--out", help="write the summary JSON to this file")
    parser.add_argument("--card", help="also record the result in this model's ckpts/<model>/card.json")
    return parser


def run_from_args(args: argparse.Namespace) -> dict:
    """Run the arena described by parsed ``add_arguments`` options, print, and return the summary."""
    summary = run_arena(args.agent_a, args.agent_b, args.games, args.seed, args.workers,
                        progress=not args.json)
    print(format_summary(summary))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(summary, fh, indent=2)
    if getattr(args, "card", None):
        from .checkpoints import record_arena
        record_arena(args.card, summary)
    if args.json:
        print(json.dumps(summary))
    return summary


def main(argv=None):
    parser = add_arguments(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    main()
