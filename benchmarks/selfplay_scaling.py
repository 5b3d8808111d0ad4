"""Self-play simulations per second: today's loop, batched, and batched on every core (issue 30's target).

    python benchmarks/selfplay_scaling.py [--config configs/othello6.toml] [--games 40] [--batch 20]
                                          [--workers 0] [--checkpoint othello6]
    python benchmarks/selfplay_scaling.py --config configs/othello8.toml --games 8 --batch 8

Plays ``--games`` self-play games of the config (its search: simulations, noise, temperature, subtree
kept) with the config's network shape (the weights of ``--checkpoint``, else untrained ones: the
speed does not depend on them) three ways, in one run on the same machine:

1. one game at a time on one generator, one position per network call (``selfplay.play_game``, the
   loop before batching: ``selfplay_batch = 1, workers = 1``);
2. ``--batch`` games in lockstep in this process, their leaves in one call (``workers = 1``);
3. the same on ``--workers`` processes (0: one per core; the pool started and warmed before timing,
   as a run keeps it between iterations).

Prints moves/s and simulations/s (wall clock) of each and the ratios to 1. Wall-clock figures: run it
on an otherwise idle machine for numbers to record.
"""
import argparse
import dataclasses
import os
import time

from azcourse.core.threads import ONE_THREAD

os.environ.update(ONE_THREAD)  # before numpy: as the trainer's command does (azcourse.alphazero.workers)

import numpy as np  # noqa: E402

from azcourse.alphazero.config import load_config  # noqa: E402
from azcourse.alphazero.network import NetSpec  # noqa: E402
from azcourse.alphazero.train import Run  # noqa: E402
from azcourse.alphazero.workers import InProcessPool, ProcessPool, host_params  # noqa: E402


def timed(play) -> tuple[float, int]:
    """(seconds, moves) of ``play() -> games``."""
    start = time.perf_counter()
    games = play()
    return time.perf_counter() - start, sum(g.moves for g in games)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/othello6.toml")
    parser.add_argument("--games", type=int, default=40, help="self-play games each way (default 40)")
    parser.add_argument("--batch", type=int, default=20, help="games in lockstep a worker (default 20)")
    parser.add_argument("--workers", type=int, default=0, help="processes for way 3 (default 0: one per core)")
    parser.add_argument("--checkpoint", help="a checkpoint of the config's game and shape (default: untrained)")
    args = parser.parse_args(argv)
    workers = args.workers or os.cpu_count() or 1
    config = dataclasses.replace(load_config(args.config), games_per_iteration=args.games, selfplay_batch=1, workers=1)
    run = Run(config)
    if args.checkpoint:
        from azcourse.alphazero.checkpoints import load_checkpoint

        run.best_params = load_checkpoint(args.checkpoint).params
    params = host_params(run.best_params)
    spec = NetSpec.for_game(run.game, config.channels, config.hidden)
    print(f"{config.game}: {args.games} games, {config.search.simulations} simulations a move, network "
          f"{spec.as_dict()['channels']} conv + {spec.as_dict()['hidden']} dense, inference {config.inference}, "
          f"{os.cpu_count()} cores")
    from azcourse.alphazero.selfplay import play_game

    search, rng = run.search(run.best_params), np.random.default_rng(0)
    figures = {"1. one game at a time": timed(lambda: [play_game(run.game, search, config.temperature_moves, rng,
                                                                 config.reuse_tree) for _ in range(args.games)])}
    batched = dataclasses.replace(config, selfplay_batch=args.batch).to_dict()
    seeds = list(range(args.games))
    here = InProcessPool(batched)
    figures[f"2. {args.batch} in lockstep, 1 process"] = timed(lambda: here.play(params, seeds))
    pool = ProcessPool(dataclasses.replace(config, selfplay_batch=max(1, args.batch // workers)).to_dict(), workers)
    try:
        pool.play(params, seeds[:workers])  # start and warm the processes
        figures[f"3. {max(1, args.batch // workers)} in lockstep x {workers} processes"] = timed(
            lambda: pool.play(params, seeds))
    finally:
        pool.close()
    base = None
    for label, (seconds, moves) in figures.items():
        rate = moves * config.search.simulations / seconds
        base = base or rate
        print(f"  {label:<36} {moves / seconds:8.1f} moves/s {rate:10,.0f} simulations/s  {rate / base:5.2f}x")


if __name__ == "__main__":
    main()
