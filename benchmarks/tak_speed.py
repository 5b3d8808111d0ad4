"""Speed of the Tak rules (``azcourse.tak.game``) and of its search agents, one core.

    python benchmarks/tak_speed.py [--sizes 3 5] [--seconds 3] [--simulations 200]

Prints, for each size:
- legal-move generations per second (``legal_actions``, the list, and ``legal_mask``, the
  protocol's bool array) over positions taken from random games, with their mean number of moves;
- complete random games per second through the protocol, as ``RolloutEvaluator(random_policy)``
  plays them (``legal_mask``, then a checked ``next_state`` each ply), and their mean length;
- complete games per second of the report's ``EpsilonGreedyRollout`` (epsilon 0.1), which plays
  every legal move once per greedy ply;
- MCTS simulations per second from the position after the opening, for ``uct`` and ``mcts``.
"""
import argparse
import itertools
import time

import numpy as np

from azcourse.core.evaluators import random_policy
from azcourse.tak.agents import EpsilonGreedyRollout, make_opponent
from azcourse.tak.game import Tak


def sample_positions(game: Tak, count: int, seed: int = 0) -> list:
    """``count`` non-terminal positions from uniformly random games."""
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(found) < count:
            found.append(state)
            state = game.next_state(state, random_policy(game, state, rng))
    return found


def rate(work, seconds: float) -> float:
    """Calls of ``work()`` per second, called for at least ``seconds``."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        work()
        done += 1
    return done / (time.perf_counter() - start)


def games_per_second(game: Tak, policy, seconds: float) -> tuple[float, float]:
    """(games per second, mean plies) of ``policy`` playing both sides from the start, move by move
    through the protocol as ``RolloutEvaluator`` plays a rollout."""
    rng, lengths, start = np.random.default_rng(1), [], time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.next_state(state, policy(game, state, rng))
        lengths.append(state.ply)
    return len(lengths) / (time.perf_counter() - start), float(np.mean(lengths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    parser.add_argument("--simulations", type=int, default=200, help="search games per MCTS search (default 200)")
    args = parser.parse_args()
    for size in args.sizes:
        game = Tak(size)
        positions = sample_positions(game, 2000)
        moves = np.mean([len(game.legal_actions(s)) for s in positions])
        cycle = itertools.cycle(positions)
        lists = rate(lambda: game.legal_actions(next(cycle)), args.seconds)
        masks = rate(lambda: game.legal_mask(next(cycle)), args.seconds)
        print(f"Tak {size}x{size}: {lists:,.0f} legal-move lists/s, {masks:,.0f} legal masks/s "
              f"({moves:.1f} legal moves on average over {len(positions)} positions of random games)")
        random_rate, random_plies = games_per_second(game, random_policy, args.seconds)
        greedy_rate, greedy_plies = games_per_second(game, EpsilonGreedyRollout(0.1), args.seconds)
        print(f"  {random_rate:,.0f} random games/s ({random_plies:.0f} plies on average); "
              f"{greedy_rate:,.1f} epsilon-greedy rollout games/s ({greedy_plies:.0f} plies)")
        opened = game.next_state(game.next_state(game.initial_state(), 0), game.kinds * (size * size - 1))
        for name in ("uct", "mcts"):
            agent = make_opponent(name, game, np.random.default_rng(2), args.simulations)
            start = time.perf_counter()
            agent.choose(opened)
            print(f"  {name}: {args.simulations / (time.perf_counter() - start):,.0f} simulations/s after the opening")


if __name__ == "__main__":
    main()
