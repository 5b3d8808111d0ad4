"""Othello move generation and random games per second, one core.

    python benchmarks/othello_speed.py [--seconds 1] [--repeats 3]

Prints, for 6x6 and 8x8: placing-move generations per second (``Othello.placing_moves`` on the
positions of random games), ``legal_mask`` calls per second (the bitboard turned into the protocol's
bool array), random games per second through the protocol (``legal_mask`` + ``next_state`` to the
end, as a rollout played move by move), random games per second through ``Othello.random_playout``
(the bitboard rollout the generic MCTS uses), and UCT search games (simulations) per second from
the start position with random rollouts. On 8x8 it also times OpenSpiel's C++ Othello driven from
Python the way a Python search drives it (``legal_actions``, a random choice, ``apply_action``; the
independent yardstick of requirements-dev.txt) and prints the ratio, in the same run. Each figure is the best of ``--repeats`` runs of
``--seconds``, since other work on a shared machine only ever slows a run down.
"""
import argparse
import time

import numpy as np

from azcourse.core.evaluators import random_policy
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.othello.game import Othello


def random_game(game: Othello, rng: np.random.Generator) -> list:
    """The states of one game of uniformly random legal moves."""
    state, states = game.initial_state(), []
    while not game.is_terminal(state):
        states.append(state)
        state = game.next_state(state, random_policy(game, state, rng))
    return states


def rate(work, seconds: float, repeats: int) -> float:
    """Counts per second of ``work() -> count``, called until ``seconds`` have passed; the best of
    ``repeats`` such runs."""
    best = 0.0
    for _ in range(repeats):
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            done += work()
        best = max(best, done / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per run (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure, the best is printed (default 3)")
    args = parser.parse_args()
    for size in (6, 8):
        game = Othello(size)
        rng = np.random.default_rng(0)
        positions = [game.discs(s) for _ in range(20) for s in random_game(game, rng)]

        def generations():
            for own, opponent in positions:
                game.placing_moves(own, opponent)
            return len(positions)

        states = [s for _ in range(20) for s in random_game(game, rng)]

        def masks():
            for state in states:
                game.legal_mask(state)
            return len(states)

        plies = []

        def games():
            plies.append(len(random_game(game, rng)))
            return 1

        def playouts():
            game.random_playout(game.initial_state(), rng)
            return 1

        searches = iter(range(10**9))

        def simulations():
            MCTS(game, config=MCTSConfig(simulations=200), rng=next(searches)).search(game.initial_state())
            return 200

        timing = (args.seconds, args.repeats)
        print(f"Othello {size}x{size}: {rate(generations, *timing):,.0f} move generations/s, "
              f"{rate(masks, *timing):,.0f} legal_mask/s, {rate(games, *timing):,.0f} random games/s "
              f"({np.mean(plies):.1f} plies each, passes included), "
              f"{rate(playouts, *timing):,.0f} random_playout games/s, "
              f"{rate(simulations, *timing):,.0f} UCT simulations/s")
    openspiel_games()


def openspiel_games() -> None:
    """Random 8x8 games per second: ``Othello.random_playout`` against OpenSpiel's C++ Othello driven
    from Python, alternating runs so that load on a shared machine falls on both."""
    import random

    import pyspiel

    game, spiel, rng, choice = Othello(8), pyspiel.load_game("othello"), np.random.default_rng(1), random.Random(1)

    def ours():
        game.random_playout(game.initial_state(), rng)
        return 1

    def theirs():
        state = spiel.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice.choice(state.legal_actions()))
        return 1
    best = {"ours": 0.0, "openspiel": 0.0}
    for _ in range(3):
        best["ours"] = max(best["ours"], rate(ours, 1.0, 1))
        best["openspiel"] = max(best["openspiel"], rate(theirs, 1.0, 1))
    print(f"Othello 8x8 random games/s: random_playout {best['ours']:,.0f}, OpenSpiel C++ from Python "
          f"{best['openspiel']:,.0f}: {best['ours'] / best['openspiel']:.2f}x")


if __name__ == "__main__":
    main()
