"""Speed of the Azul engine and the baseline agents, and greedy's strength against random.

    .venv/bin/python benchmarks/bench_azul_engine.py [--games 3000] [--match-games 400] [--seed 0]

One process, one core. Prints one table: import time, numba warm-up (compiled code is cached in
``__pycache__``, so only a first run, or the first after an edit, compiles: about 10 s), complete
random-vs-random games per second (target >= 1000), moves per second, mean moves and rounds per
game, the cost of ``get_valid_mask``, ``get_next_state`` and one move of each agent on positions
from random games, and the greedy agent's results against random with alternating seats. Other
processes on the machine lower every figure: check the load first. A figure, not a test.
"""
from __future__ import annotations

import argparse
import os
import time

_T0 = time.perf_counter()
import numpy as np  # noqa: E402

from Azul_Simulator import NOOP, get_next_state, get_valid_mask, init_board  # noqa: E402
from azcourse.azul.agents import greedy_agent, random_agent  # noqa: E402
from azcourse.azul.arena import function_match  # noqa: E402
from azcourse.azul.game import Azul  # noqa: E402
from azcourse.core.arena import FunctionAgent, play_game  # noqa: E402

IMPORT_S = time.perf_counter() - _T0
TARGET_GAMES_PER_S = 1000


def warm_up() -> float:
    """Seconds to run every jitted path once (loads numba's cache, or compiles after an edit)."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    play_game(Azul(), (FunctionAgent(greedy_agent, rng), FunctionAgent(random_agent, rng)), rng)
    play_game(Azul(), (FunctionAgent(random_agent, rng), FunctionAgent(random_agent, rng)), rng)
    return time.perf_counter() - start


def random_games(n_games: int, seed: int) -> dict[str, float]:
    """Throughput of complete random-vs-random games through the arena's ``play_game``."""
    rng = np.random.default_rng(seed)
    game, agents = Azul(), (FunctionAgent(random_agent, rng), FunctionAgent(random_agent, rng))
    start = time.perf_counter()
    records = [play_game(game, agents, rng)[0] for _ in range(n_games)]
    seconds = time.perf_counter() - start
    moves = sum(sum(r.moves) for r in records)
    rounds = sum(r.chance_steps + 1 for r in records)  # every round but the first starts with a refill
    return {"games_per_s": n_games / seconds, "moves_per_s": moves / seconds,
            "steps_per_s": (moves + rounds) / seconds, "mean_moves": moves / n_games,
            "mean_rounds": rounds / n_games}


def sample_positions(n: int, seed: int) -> list[np.ndarray]:
    """``n`` positions where a take is to be chosen, from random games (every stage of a game)."""
    rng = np.random.default_rng(seed)
    positions: list[np.ndarray] = []
    while len(positions) < n:
        board = init_board(rng)
        while True:
            legal = np.flatnonzero(get_valid_mask(board))
            if legal.size == 0:
                break
            if legal[0] != NOOP:
                positions.append(board)
            board = get_next_state(board, legal[int(rng.random() * legal.size)], rng)
    return positions[:n]


def microseconds(fn, items, repeat: int = 3) -> float:
    """Best-of-``repeat`` mean cost of ``fn(item)`` over ``items``, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1e6


def call_costs(positions: list[np.ndarray], seed: int) -> dict[str, float]:
    """Per-call costs on ``positions``: the two engine calls and a move of each agent."""
    rng = np.random.default_rng(seed)
    takes = [(b, random_agent(b, rng)) for b in positions]
    return {
        "valid_mask_us": microseconds(get_valid_mask, positions),
        "next_state_us": microseconds(lambda bt: get_next_state(bt[0], bt[1]), takes),
        "random_move_us": microseconds(lambda b: random_agent(b, rng), positions),
        "greedy_move_us": microseconds(lambda b: greedy_agent(b, rng), positions),
    }


def greedy_vs_random(n_games: int, seed: int) -> dict[str, float]:
    start = time.perf_counter()
    match = function_match(greedy_agent, random_agent, n_games, seed)
    seconds = time.perf_counter() - start
    return {"games": match.games, "wins": match.wins, "draws": match.draws, "losses": match.losses,
            "win_rate": match.win_rate, "score_greedy": match.mean_score_a,
            "score_random": match.mean_score_b, "games_per_s": n_games / seconds}


def table(rows: list[tuple[str, str, str]]) -> str:
    """Three left-aligned columns: what, figure, note."""
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    rule = "  ".join("-" * w for w in widths)
    lines = [rule]
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if i == 0:
            lines.append(rule)
    return "\n".join(lines + [rule])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="random-vs-random games timed")
    parser.add_argument("--match-games", type=int, default=400, help="greedy-vs-random games")
    parser.add_argument("--positions", type=int, default=2000, help="positions for per-call costs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    warm_s = warm_up()
    games = random_games(args.games, args.seed)
    costs = call_costs(sample_positions(args.positions, args.seed), args.seed)
    match = greedy_vs_random(args.match_games, args.seed)

    per_game_ms = 1e3 / games["games_per_s"]
    step_us = 1e6 / games["steps_per_s"]
    print(table([
        ("What", "Figure", "Note"),
        ("machine load (1 min average)", f"{os.getloadavg()[0]:.2f}",
         f"{os.cpu_count()} cores; figures below drop when other processes run"),
        ("import (numpy, engine, agents)", f"{IMPORT_S:.2f} s", ""),
        ("numba warm-up (first calls)", f"{warm_s:.2f} s", "numba cache load (compiles on a first run or after an edit)"),
        ("random-vs-random games/s", f"{games['games_per_s']:,.0f}",
         f"{games['games_per_s'] / TARGET_GAMES_PER_S:.2f}x the {TARGET_GAMES_PER_S} games/s target; "
         f"{per_game_ms:.2f} ms/game"),
        ("moves/s (takes)", f"{games['moves_per_s']:,.0f}",
         f"{games['steps_per_s']:,.0f} engine steps/s with refills ({step_us:.1f} us/step)"),
        ("mean moves per game", f"{games['mean_moves']:.1f}", "takes, refills not counted"),
        ("mean rounds per game", f"{games['mean_rounds']:.2f}", ""),
        ("get_valid_mask", f"{costs['valid_mask_us']:.2f} us",
         f"{costs['valid_mask_us'] / step_us:.0%} of a loop step"),
        ("get_next_state (take)", f"{costs['next_state_us']:.2f} us",
         f"{costs['next_state_us'] / costs['valid_mask_us']:.2f}x get_valid_mask"),
        ("random agent move", f"{costs['random_move_us']:.2f} us",
         f"{costs['random_move_us'] / costs['valid_mask_us']:.2f}x get_valid_mask"),
        ("greedy agent move", f"{costs['greedy_move_us']:.2f} us",
         f"{costs['greedy_move_us'] / costs['random_move_us']:.1f}x a random move"),
        (f"greedy vs random, {match['games']} games", f"{match['win_rate']:.1%} won",
         f"W/D/L {match['wins']}/{match['draws']}/{match['losses']}, alternating seats; "
         f"{match['games_per_s']:,.0f} games/s"),
        ("mean score greedy : random", f"{match['score_greedy']:.1f} : {match['score_random']:.1f}", ""),
    ]))


if __name__ == "__main__":
    main()
