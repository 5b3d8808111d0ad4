"""Strength of a game's players with its shipped network: the comparisons of the Othello planning
tutorial and of the Tak report, done with enough games to mean something.

    python benchmarks/strength.py othello6 [--games 400] [--workers 2] [--checkpoint NAME_OR_PATH]
                                           [--simulations 100] [--openings 4] [--matches a:b,c@800:d]
    python benchmarks/strength.py tak3 (or tak4)

Every match alternates seats game by game and starts each pair of games from the same random
opening of ``--openings`` moves (``azcourse.core.arena.play_match``), so deterministic players
(greedy, value, policy, alphazero) play varied games. A draw is reported apart and counts half in the
score rate. ``name@800`` gives one player its own number of simulations. The players are those of ``azcourse.<game family>.agents.OPPONENTS``. The default matches
are the targets of the issues: on Othello 6x6 alphazero (100 simulations) against random, value,
policy and greedy, monte-carlo against random and policy, value and policy against random; on Tak
alphatak (100 simulations) against random and the report's MCTS with rollouts (mcts, 100 simulations),
and mcts against random. Prints one line per match (wins, draws, losses, score rate with its Wilson 95%
interval, seconds) and the table as Markdown, with the first player's win rate split by seat (moving
first, moving second): on 3x3 Tak, a first-player win (weakly solved in 2016), the overall rate mostly
measures how often the opponent, moving first, finds the win.
"""
import argparse
import functools
import importlib
import time

from azcourse.core.arena import play_match
from azcourse.registry import make_game

DEFAULT_MATCHES = {
    "othello": "alphazero:random,alphazero:value,alphazero:policy,alphazero:greedy,"
               "monte-carlo:random,monte-carlo:policy,value:random,policy:random",
    "tak": "alphatak:random,alphatak:mcts,mcts:random",
}
NETWORK_FREE = ("random", "greedy", "uct", "mcts")


def opponents(game_name: str) -> dict:
    """``OPPONENTS`` of the game's package (``azcourse.othello.agents`` for ``othello6``)."""
    family = make_game(game_name).name.rstrip("0123456789")
    return importlib.import_module(f"azcourse.{family}.agents").OPPONENTS


def player(name: str, rng, game_name: str, simulations: int, checkpoint: str | None):
    """The player called ``name`` for one game (module level, so worker processes can build it)."""
    game = make_game(game_name)
    if name in NETWORK_FREE:
        return opponents(game_name)[name](game, rng, simulations)
    return opponents(game_name)[name](game, rng, simulations, source=checkpoint)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a game of azcourse.registry with a shipped network: othello6, tak3, tak4")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--checkpoint", help="another checkpoint than ckpts/<game>/")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--openings", type=int, default=4)
    parser.add_argument("--matches", help="a:b pairs, comma separated (default: the issue's targets)")
    args = parser.parse_args()
    matches = args.matches or DEFAULT_MATCHES[make_game(args.game).name.rstrip("0123456789")]
    rows = []
    for pair in matches.split(","):
        a, b = pair.split(":")
        make = lambda label: functools.partial(  # noqa: E731
            player, label.partition("@")[0], game_name=args.game, checkpoint=args.checkpoint,
            simulations=int(label.partition("@")[2] or args.simulations))
        started = time.time()
        match = play_match(functools.partial(make_game, args.game), make(a), make(b), args.games, seed=0,
                           workers=args.workers,
                           names=(a, b), opening_moves=args.openings, progress=False)
        lo, hi = [round(100 * x, 1) for x in match.interval()]
        rows.append((a, b, match, lo, hi, time.time() - started))
        print(f"{a} vs {b}: {match.wins} wins, {match.draws} draws, {match.losses} losses of {match.games}; "
              f"win rate {100 * match.win_rate:.1f}% (95% CI {lo}-{hi}%), score rate {100 * match.score_rate:.1f}%, "
              f"{match.ms_per_move_a:.1f} vs {match.ms_per_move_b:.1f} ms a move, {rows[-1][-1]:.0f} s; "
              f"{a} moving first {seat_text(match, 0)}, moving second {seat_text(match, 1)}", flush=True)
    print("\n| match | wins / draws / losses | win rate (95% CI) | score rate | moving first | moving second |")
    print("|---|---|---|---|---|---|")
    for a, b, match, lo, hi, _ in rows:
        print(f"| {a} vs {b} | {match.wins} / {match.draws} / {match.losses} | {100 * match.win_rate:.1f}% "
              f"({lo}-{hi}) | {100 * match.score_rate:.1f}% | {seat_text(match, 0)} | {seat_text(match, 1)} |")


def seat_text(match, seat: int) -> str:
    """``"wins/games = rate% (low-high)"`` of A in the games where A sat in ``seat``."""
    rate, lo, hi = match.seat_win_rate(seat)
    wins, draws, losses = match.by_seat[seat]
    return f"{wins}/{wins + draws + losses} = {100 * rate:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})"


if __name__ == "__main__":
    main()
