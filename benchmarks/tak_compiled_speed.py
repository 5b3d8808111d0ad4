"""Speed of Tak's compiled rules (``azcourse.tak.compiled``) against the reference (``azcourse.tak.game``), and
the classical yardstick's time per move (``azcourse.tak.yardstick``), one core.

    python benchmarks/tak_compiled_speed.py [--size 5] [--seconds 3] [--depths 2 3 4] [--positions 12]

Prints:
- uniformly random games from the start: plies per second and legal actions generated per second, on the
  reference (``legal_actions``, then ``next_state``, each ply) and compiled (``compiled.random_games``);
- perft(3) (every leaf 3 plies below) from the start and from a mid-game position: leaves and seconds on both;
- the yardstick's seconds per move (mean, median, max) and positions visited per second at each depth, over
  ``--positions`` positions taken from a seeded game of the yardstick at depth 2 against itself.
Numba compiles (or loads its cache) before any clock starts.
"""
import argparse
import time

import numpy as np

from azcourse.tak import compiled
from azcourse.tak.game import Tak
from azcourse.tak.yardstick import ClassicalAgent


def reference_random(game: Tak, seconds: float) -> tuple[float, float]:
    """(plies/s, legal actions generated/s) of random games on the reference."""
    rng, plies, generated, start = np.random.default_rng(0), 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.initial_state()
        while not game.is_terminal(state):
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.integers(len(actions)))])
            plies, generated = plies + 1, generated + len(actions)
    elapsed = time.perf_counter() - start
    return plies / elapsed, generated / elapsed


def compiled_random(game: Tak, seconds: float) -> tuple[float, float]:
    r, s = compiled.rules(game), compiled.initial_array(game)
    compiled.random_games(r, s, 1, 0)
    games, plies, generated, start = 0, 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        p, g = compiled.random_games(r, s, 20, games)
        games, plies, generated = games + 20, plies + p, generated + g
    elapsed = time.perf_counter() - start
    return plies / elapsed, generated / elapsed


def reference_perft(game, state, depth):
    if depth == 0 or game.is_terminal(state):
        return 1
    return sum(reference_perft(game, game.next_state(state, a), depth - 1) for a in game.legal_actions(state))


def mid_game(game: Tak, plies: int, seed: int):
    """The position after ``plies`` random plies (a game that ends sooner is replaced)."""
    rng = np.random.default_rng(seed)
    while True:
        state = game.initial_state()
        for _ in range(plies):
            actions = game.legal_actions(state)
            state = game.next_state(state, actions[int(rng.integers(len(actions)))])
            if game.is_terminal(state):
                break
        else:
            return state


def timed(work):
    start = time.perf_counter()
    value = work()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5, help="board size, 3 to 6 (default 5)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per random-game figure (default 3)")
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4], help="yardstick depths (default 2 3 4)")
    parser.add_argument("--positions", type=int, default=12, help="positions timed per depth (default 12)")
    args = parser.parse_args()
    game = Tak(args.size)
    r = compiled.rules(game)
    compiled.perft(r, compiled.initial_array(game), 2)  # compile (or load) before the clocks

    ref, fast = reference_random(game, args.seconds), compiled_random(game, args.seconds)
    print(f"tak{args.size} random games: reference {ref[0]:,.0f} plies/s ({ref[1]:,.0f} actions generated/s); "
          f"compiled {fast[0]:,.0f} plies/s ({fast[1]:,.0f}/s): x{fast[0] / ref[0]:.0f}")
    for label, state in (("start", game.initial_state()), ("mid-game (12 random plies)", mid_game(game, 12, 1))):
        s = compiled.state_array(game, state)
        (leaves, seconds) = timed(lambda: compiled.perft(r, s, 3))
        (expected, ref_seconds) = timed(lambda: reference_perft(game, state, 3))
        assert leaves == expected, (leaves, expected)
        print(f"perft(3) from the {label}: {leaves:,} leaves; reference {ref_seconds:.3f} s, compiled {seconds:.4f} s: "
              f"x{ref_seconds / seconds:.0f}")

    sampler = [ClassicalAgent(game, 2, np.random.default_rng(seat)) for seat in (0, 1)]
    state, found = game.initial_state(), []
    while not game.is_terminal(state):
        found.append(state)
        state = game.next_state(state, sampler[state.ply % 2].choose(state))
    picks = [found[i] for i in np.linspace(0, len(found) - 1, min(args.positions, len(found))).astype(int)]
    print(f"yardstick: {len(picks)} positions of a {len(found)}-ply game of classical:2 against itself "
          f"(plies {picks[0].ply}..{picks[-1].ply})")
    for depth in args.depths:
        agent, times, nodes = ClassicalAgent(game, depth), [], 0
        agent.choose(picks[0])
        for position in picks:
            _, seconds = timed(lambda: agent.choose(position))
            times.append(seconds)
            nodes += agent.nodes
        print(f"  depth {depth}: {np.mean(times):.3f} s a move (median {np.median(times):.3f}, max {max(times):.3f}), "
              f"{nodes / sum(times):,.0f} positions/s")


if __name__ == "__main__":
    main()
