"""Search games (simulations) per second of the generic MCTS on Hex with random rollouts, one core.

    python benchmarks/hex_search_speed.py [--simulations 500] [--episodes 3]

Prints, for 5x5 and 7x7: simulations per second from the empty board, and the time of whole
self-play episodes (UCT with random rollouts, ``--simulations`` per actual move, the chosen move's
subtree kept, as in the on-policy pseudocode), projected to the Hex assignment's 200 episodes. The
later actor-network rollouts add the network's cost on top of these figures.
"""
import argparse
import time

import numpy as np

from azcourse.hex.game import Hex
from azcourse.core.mcts import MCTS, MCTSConfig


def simulations_per_second(size: int, simulations: int, min_seconds: float = 2.0) -> float:
    game = Hex(size)
    done, start = 0, time.perf_counter()
    seed = 0
    while time.perf_counter() - start < min_seconds:
        MCTS(game, config=MCTSConfig(simulations=simulations), rng=seed).search(game.initial_state())
        done += simulations
        seed += 1
    return done / (time.perf_counter() - start)


def episode(size: int, simulations: int, seed: int) -> tuple[float, int]:
    """One self-play game: (seconds, actual moves)."""
    game = Hex(size)
    mcts = MCTS(game, config=MCTSConfig(simulations=simulations), rng=seed)
    state, moves, start = game.initial_state(), 0, time.perf_counter()
    while not game.is_terminal(state):
        action = int(np.argmax(mcts.search(state).visits))
        mcts.advance(action)
        state = game.next_state(state, action)
        moves += 1
    return time.perf_counter() - start, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=500)
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    for size in (5, 7):
        rate = simulations_per_second(size, args.simulations)
        runs = [episode(size, args.simulations, seed) for seed in range(args.episodes)]
        seconds = sum(t for t, _ in runs) / len(runs)
        moves = sum(m for _, m in runs) / len(runs)
        print(f"Hex {size}x{size}: {rate:,.0f} simulations/s from the empty board; self-play episode with "
              f"{args.simulations} simulations per move: {seconds:.2f} s ({moves:.0f} moves), "
              f"200 episodes ~ {200 * seconds / 60:.1f} min")


if __name__ == "__main__":
    main()
