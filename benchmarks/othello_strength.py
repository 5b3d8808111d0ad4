"""Strength of the Othello 6x6 players with the shipped network: the planning tutorial's comparisons,
done with enough games to mean something.

    python benchmarks/othello_strength.py [--games 400] [--workers 2] [--checkpoint othello6]
                                          [--simulations 100] [--openings 4] [--matches a:b,c:d]

Every match alternates seats game by game and starts each pair of games from the same random
opening of ``--openings`` moves (``azcourse.core.arena.play_match``), so deterministic players
(greedy, value, policy, alphazero) play varied games. A draw is reported apart and counts half in the
score rate. The default matches are the targets of the Othello issue: alphazero (100 simulations)
against random, value, policy and greedy; monte-carlo against random and policy; value and policy
against random. Prints one line per match (wins, draws, losses, score rate with its Wilson 95%
interval, seconds) and the table as Markdown.
"""
import argparse
import functools
import time

from azcourse.core.arena import play_match
from azcourse.othello.agents import OPPONENTS
from azcourse.othello.game import Othello

DEFAULT_MATCHES = ("alphazero:random,alphazero:value,alphazero:policy,alphazero:greedy,"
                   "monte-carlo:random,monte-carlo:policy,value:random,policy:random")


def player(name: str, rng, simulations: int, checkpoint: str):
    """The Othello 6x6 player called ``name`` for one game (module level, so worker processes can build it)."""
    game = Othello(6)
    if name in ("random", "greedy", "uct"):
        return OPPONENTS[name](game, rng, simulations)
    return OPPONENTS[name](game, rng, simulations, source=checkpoint)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--checkpoint", default="othello6")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--openings", type=int, default=4)
    parser.add_argument("--matches", default=DEFAULT_MATCHES)
    args = parser.parse_args()
    rows = []
    for pair in args.matches.split(","):
        a, b = pair.split(":")
        make = lambda name: functools.partial(player, name, simulations=args.simulations,  # noqa: E731
                                              checkpoint=args.checkpoint)
        started = time.time()
        match = play_match(functools.partial(Othello, 6), make(a), make(b), args.games, seed=0, workers=args.workers,
                           names=(a, b), opening_moves=args.openings, progress=False)
        lo, hi = [round(100 * x, 1) for x in match.interval()]
        rows.append((a, b, match, lo, hi, time.time() - started))
        print(f"{a} vs {b}: {match.wins} wins, {match.draws} draws, {match.losses} losses of {match.games}; "
              f"win rate {100 * match.win_rate:.1f}% (95% CI {lo}-{hi}%), score rate {100 * match.score_rate:.1f}%, "
              f"{match.ms_per_move_a:.1f} vs {match.ms_per_move_b:.1f} ms a move, {rows[-1][-1]:.0f} s", flush=True)
    print("\n| match | wins / draws / losses | win rate (95% CI) | score rate |")
    print("|---|---|---|---|")
    for a, b, match, lo, hi, _ in rows:
        print(f"| {a} vs {b} | {match.wins} / {match.draws} / {match.losses} | {100 * match.win_rate:.1f}% "
              f"({lo}-{hi}) | {100 * match.score_rate:.1f}% |")


if __name__ == "__main__":
    main()
