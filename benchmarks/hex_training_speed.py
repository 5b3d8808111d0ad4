"""Search games per second of on-policy MCTS on 5x5 Hex: ANET rollouts against random rollouts.

    python benchmarks/hex_training_speed.py [--run-dir ckpts/hex5] [--search-games 500] [--episodes 5]

Prints, on one core: search games (simulations) per second from the empty board with random
rollouts and with the run's last cached ANET as the epsilon-greedy rollout policy (epsilon 0.1
and 1.0); the time of whole training episodes (``train.play_episode`` with ``--search-games`` per
actual move, subtree kept) with ANET rollouts at epsilon 0.1, projected to 200 episodes; and the
shipped run's own total from its training log.
"""
import argparse
import csv
import os
import time

import numpy as np

from azcourse.core.evaluators import RolloutEvaluator, random_policy
from azcourse.hex.game import Hex
from azcourse.hex.display import HexDisplay
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.hex.checkpoints import cached_anets, run_dir_for
from azcourse.hex.config import HexConfig
from azcourse.hex.replay import ReplayBuffer
from azcourse.hex.train import play_episode


def rate(game, policy, search_games: int, min_seconds: float = 3.0) -> float:
    """Search games per second of fresh searches from the empty board."""
    done, seed, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < min_seconds:
        MCTS(game, RolloutEvaluator(policy), MCTSConfig(simulations=search_games), rng=seed).search(
            game.initial_state())
        done, seed = done + search_games, seed + 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", default="hex5")
    parser.add_argument("--search-games", type=int, default=500)
    parser.add_argument("--episodes", type=int, default=5)
    args = parser.parse_args()
    run_dir = run_dir_for(args.run_dir)
    last = cached_anets(run_dir)[-1]
    game = Hex(last.card["architecture"]["board_size"])
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{game.name}, ANET {last.path.name} ({last.card['architecture']['param_count']} parameters), "
          f"{args.search_games} search games per search")
    print(f"random rollouts:            {rate(game, random_policy, args.search_games):7.0f} search games/s")
    for epsilon in (0.1, 1.0):
        r = rate(game, last.net.rollout_policy(game, epsilon), args.search_games)
        print(f"ANET rollouts, epsilon {epsilon:.1f}: {r:7.0f} search games/s")
    config = HexConfig(board_size=game.size, search_games=args.search_games, move_choice="sample")
    times, moves = [], 0
    for e in range(args.episodes):
        buffer = ReplayBuffer(100, 2 + 2 * game.size ** 2, game.size ** 2)
        start = time.perf_counter()
        final = play_episode(game, last.net, config, 0.1, e % 2, np.random.default_rng(e), buffer,
                             HexDisplay(False), "")
        times.append(time.perf_counter() - start)
        moves += sum(1 for cell in final.cells if cell)
    mean = float(np.mean(times))
    print(f"episode, ANET rollouts at epsilon 0.1: {mean:.2f} s ({moves / args.episodes:.1f} moves, "
          f"{moves * args.search_games / sum(times):.0f} search games/s); 200 episodes: {200 * mean / 60:.1f} min "
          "(an upper bound: a run starts at epsilon 1.0)")
    log = run_dir / "training_log.csv"
    if log.exists():
        with open(log) as f:
            rows = list(csv.DictReader(f))
        total = sum(float(r["seconds"]) for r in rows)
        print(f"{run_dir.name} run: {len(rows)} episodes in {total / 60:.1f} min of episode time "
              f"(mean {total / len(rows):.2f} s, last 50: {np.mean([float(r['seconds']) for r in rows[-50:]]):.2f} s)")


if __name__ == "__main__":
    main()
