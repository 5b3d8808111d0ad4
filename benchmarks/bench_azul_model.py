"""Speed of the trained Azul models: checkpoint load, policy-only move, search move.

    .venv/bin/python benchmarks/bench_azul_model.py [--model azul_strong] [--positions 300]
        [--simulations 50 100 200 400] [--json out.json]

One process; pin it to one core for the figures in the docs (``taskset -c 1``). Positions come from
greedy-vs-greedy games (a realistic mix of early, middle and late positions). Prints: load time
(fresh process import + ``load_agent``), policy-only ms/move (numpy forward, target <= 20 ms),
the same forward through a jitted Flax call for comparison, and search ms/move for each simulation
budget (target <= 1000 ms). A figure, not a test.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

import Azul_Simulator as az
from azcourse.alphazero.checkpoints import load_checkpoint
from azcourse.alphazero.flax_net import make_module
from azcourse.azul import checkpoints, features
from azcourse.azul.heuristics import heuristic_greedy_action


def sample_positions(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    out = []
    board = az.init_board(rng)
    while len(out) < n:
        if board[az.GAME_OVER]:
            board = az.init_board(rng)
            continue
        mask = az.get_valid_mask(board)
        if mask[az.NOOP]:
            board = az.get_next_state(board, az.NOOP, rng)
            continue
        out.append(board)
        action = heuristic_greedy_action(board) if rng.random() > 0.2 else int(rng.choice(np.flatnonzero(mask)))
        board = az.get_next_state(board, action, rng)
    return out


def load_time(model: str) -> float:
    code = ("import time; t=time.perf_counter(); from azcourse.azul import load_agent; "
            f"load_agent({model!r}); print(time.perf_counter()-t)")
    return float(subprocess.check_output([sys.executable, "-c", code]).decode().strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="azul_strong")
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--simulations", type=int, nargs="*", default=[50, 100, 200, 400])
    parser.add_argument("--search-positions", type=int, default=40)
    parser.add_argument("--json")
    args = parser.parse_args(argv)

    results = {"model": args.model}
    results["load_s_fresh_process"] = load_time(args.model)
    positions = sample_positions(args.positions)
    agent = checkpoints.load_agent(args.model)
    agent(positions[0])  # warm-up
    t = time.perf_counter()
    for b in positions:
        agent(b)
    results["policy_ms_per_move"] = 1000 * (time.perf_counter() - t) / len(positions)

    import jax
    checkpoint = load_checkpoint(checkpoints.model_dir(args.model))
    params, module = checkpoint.params, make_module(checkpoint.spec)
    apply = jax.jit(lambda p, x: module.apply({"params": p}, x))
    apply(params, features.encode(positions[0])[None])[0].block_until_ready()
    t = time.perf_counter()
    for b in positions:
        logits, _ = apply(params, features.encode(b)[None])
        int(np.argmax(np.where(az.get_valid_mask(b), np.asarray(logits)[0], -1e9)))
    results["jit_flax_ms_per_move"] = 1000 * (time.perf_counter() - t) / len(positions)

    results["search_ms_per_move"] = {}
    for sims in args.simulations:
        agent = checkpoints.load_agent(args.model, simulations=sims)
        rng = np.random.default_rng(0)
        t = time.perf_counter()
        for b in positions[:args.search_positions]:
            agent(b, rng)
        results["search_ms_per_move"][sims] = 1000 * (time.perf_counter() - t) / args.search_positions

    print(f"model {args.model}")
    print(f"  load (fresh process, incl. imports): {results['load_s_fresh_process']:.3f} s   (target <= 2 s)")
    print(f"  policy only, numpy:   {results['policy_ms_per_move']:.3f} ms/move   (target <= 20 ms)")
    print(f"  policy only, jit Flax: {results['jit_flax_ms_per_move']:.3f} ms/move")
    for sims, ms in results["search_ms_per_move"].items():
        print(f"  search {sims:5d} simulations: {ms:8.1f} ms/move   (target <= 1000 ms)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


if __name__ == "__main__":
    main()
