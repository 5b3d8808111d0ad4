"""Speed of the exact Othello endgame and of the classical yardstick's moves.

    python benchmarks/othello_endgame_speed.py [--size 8] [--empties 10,12,14] [--positions 20]
                                               [--depths 2,4,6] [--games 4] [--seed 0]

Positions: games of the yardstick at 4 plies against itself (``azcourse.othello.yardstick``, its endgame
off) from random openings of 4 plies, each stopped at the first position with the given number of empty
squares where the mover has a move; such games stay close, unlike random play, whose lopsided positions
are solved much faster. For each number of empty squares the solver (``azcourse.othello.endgame.solve``)
solves every position twice, for win/draw/loss (the window (-1, 1)) and for the exact margin: the
median and largest time and positions searched. Then the yardstick's time and positions a move at each
depth of ``--depths``, over ``--games`` games against itself from random openings, the midgame only (its
endgame off), and its time a move once its endgame plays (from 12 empty squares). The compiled code is
loaded before any clock starts.
"""
import argparse
import time

import numpy as np

from azcourse.core.arena import random_opening
from azcourse.othello.endgame import solve
from azcourse.othello.game import Othello
from azcourse.othello.yardstick import ENDGAME_EMPTIES, ClassicalAgent


def empties(game, state) -> int:
    return game.size ** 2 - (state.black | state.white).bit_count()


def positions(game, count: int, empty: int, seed: int) -> list:
    """``count`` positions with ``empty`` empty squares where the mover has a move (see the module docstring)."""
    player, rng, out = ClassicalAgent(game, 4, endgame_empties=0), np.random.default_rng(seed), []
    while len(out) < count:
        state = random_opening(game, rng, 4)
        while not state.over and empties(game, state) > empty:
            state = game.next_state(state, player.choose(state))
        if not state.over and state.moves and empties(game, state) == empty:
            out.append(state)
    return out


def moves_timed(game, agent, games: int, seed: int, endgame: bool) -> tuple[list, list]:
    """``(seconds, positions searched)`` of each of ``agent``'s moves in ``games`` games against itself, the
    moves with more empty squares than ``ENDGAME_EMPTIES`` (``endgame=False``) or the others."""
    rng, seconds, nodes = np.random.default_rng(seed), [], []
    for _ in range(games):
        state = random_opening(game, rng, 4)
        while not state.over:
            start = time.perf_counter()
            action = agent.choose(state)
            spent = time.perf_counter() - start
            if state.moves and (empties(game, state) <= ENDGAME_EMPTIES) == endgame:
                seconds.append(spent)
                nodes.append(agent.nodes)
            state = game.next_state(state, action)
    return seconds, nodes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument("--empties", default="10,12,14", help="empty squares of the solved positions (default 10,12,14)")
    parser.add_argument("--positions", type=int, default=20, help="positions a number of empty squares (default 20)")
    parser.add_argument("--depths", default="2,4,6", help="the yardstick's plies (default 2,4,6)")
    parser.add_argument("--games", type=int, default=4, help="games of the yardstick a depth (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = Othello(args.size)
    moves_timed(game, ClassicalAgent(game, 2), 1, args.seed, endgame=True)  # load the compiled code
    print(f"| empty squares | solve for | ms median | ms max | positions median | positions max |  (othello{args.size}, "
          f"{args.positions} positions each)\n|---|---|---|---|---|---|")
    for empty in (int(e) for e in args.empties.split(",")):
        found = positions(game, args.positions, empty, args.seed)
        for exact in (False, True):
            seconds, nodes = [], []
            for state in found:
                start = time.perf_counter()
                solution = solve(game, state, exact=exact)
                seconds.append(time.perf_counter() - start)
                nodes.append(solution.nodes)
            print(f"| {empty} | {'exact margin' if exact else 'win/draw/loss'} | {1000 * np.median(seconds):.2f} | "
                  f"{1000 * max(seconds):.2f} | {int(np.median(nodes)):,} | {max(nodes):,} |", flush=True)
    print(f"\n| yardstick | ms a move, mean | ms max | positions a move, mean |  (othello{args.size}, {args.games} games "
          "against itself)\n|---|---|---|---|")
    for depth in (int(d) for d in args.depths.split(",")):
        seconds, nodes = moves_timed(game, ClassicalAgent(game, depth, endgame_empties=0), args.games, args.seed,
                                     endgame=False)
        print(f"| classical:{depth}, midgame | {1000 * np.mean(seconds):.2f} | {1000 * max(seconds):.2f} | "
              f"{int(np.mean(nodes)):,} |", flush=True)
    seconds, nodes = moves_timed(game, ClassicalAgent(game, 2), args.games, args.seed, endgame=True)
    print(f"| endgame ({ENDGAME_EMPTIES} empty squares or fewer, exact margin) | {1000 * np.mean(seconds):.2f} | "
          f"{1000 * max(seconds):.2f} | {int(np.mean(nodes)):,} |")


if __name__ == "__main__":
    main()
