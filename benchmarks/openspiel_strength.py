"""A shipped network against OpenSpiel's MCTS bot: the independent yardstick (issue 30's targets).

    python benchmarks/openspiel_strength.py hex5_az [--games 200] [--simulations N]
                                            [--opponent-simulations 200,2000] [--workers 2] [--seed 0]
    python benchmarks/openspiel_strength.py ckpts/othello8 --opponent-simulations 200,2000
    python benchmarks/openspiel_strength.py alphabeta:3 --game othello8 --opponent-simulations 2000
    python benchmarks/openspiel_strength.py hex7 --opponent-simulations 2000 --no-proofs
    python benchmarks/openspiel_strength.py hex7 --opponent-simulations 2000 --search-path compiled --simulations 800

The network plays PUCT search with its card's settings at ``--simulations`` per move (its card's ``play``
budget by default; ``azcourse.alphazero.agent.load_agent``), correcting its moves with what its search tree proves
(``azcourse.core.proofs``; ``--no-proofs`` plays the search's moves as they are; ``--search-path compiled``
plays the compiled search, without proofs, and ``--root-policy`` replaces the card's). In its place,
``alphabeta:<depth>`` with ``--game`` plays the calibration yardstick: alpha-beta to that many plies
with the game's static evaluation (``azcourse.registry.make_alphabeta``; Othello: corners and
mobility, Hex: shortest connecting paths), so a card can say what a plain classical player scores
against the same bot. The opponent is OpenSpiel's C++ ``MCTSBot`` with random rollouts
(``azcourse.openspiel_agent``: UCT c = 2, one rollout a leaf, MCTS-Solver), a fresh bot per game, at
each budget of ``--opponent-simulations``.
Seats alternate game by game; every game starts from the initial position (the bot's random
rollouts make the games differ). Prints one line per match: wins, draws, losses, the win rate with
its Wilson 95% interval, the split by seat and the time per move of each side; then the table as
Markdown for a card. Needs ``pip install -r requirements-dev.txt``.
"""
import argparse
import functools

from azcourse.alphazero.agent import load_agent
from azcourse.alphazero.checkpoints import play_simulations
from azcourse.core.arena import play_match
from azcourse.openspiel_agent import OpenSpielMCTSAgent
from azcourse.registry import make_alphabeta, make_game


def match(checkpoint: str, simulations: int, opponent_simulations: int, games: int, workers: int, seed: int,
          progress: bool = True, game_name: str | None = None, proofs: bool = True, search_path: str | None = None,
          root_policy: str | None = None):
    """The ``MatchSummary`` of the network of ``checkpoint`` (or of the alpha-beta player that
    ``alphabeta:<depth>`` names, on ``game_name``) against the OpenSpiel bot; ``search_path`` and
    ``root_policy``: ``load_agent``'s (the card's when None)."""
    if checkpoint.startswith("alphabeta"):
        if game_name is None:
            raise ValueError(f"{checkpoint} needs a game (--game othello8, hex7, ...)")
        player = functools.partial(make_alphabeta, checkpoint, game_name)
    else:
        how = "".join(f" {value}" for value in (search_path, root_policy) if value)
        player = functools.partial(load_agent, checkpoint, simulations=simulations, proofs=proofs,
                                   search_path=search_path, root_policy=root_policy,
                                   name=f"network@{simulations}{how}{'' if proofs else ' (no proofs)'}")
        game_name = player(0).game.name
    bot = functools.partial(OpenSpielMCTSAgent, make_game(game_name), simulations=opponent_simulations)
    return play_match(functools.partial(make_game, game_name), player, bot, games=games, seed=seed,
                      workers=workers, progress=progress)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a checkpoint folder, run folder or name under ckpts/ (hex5_az, othello8, "
                                           "hex7), or alphabeta:<depth> with --game")
    parser.add_argument("--game", help="the game of an alphabeta:<depth> player (othello8, hex5, hex7, ...)")
    parser.add_argument("--games", type=int, default=200, help="games a match, seats alternating (default 200)")
    parser.add_argument("--simulations", type=int,
                        help="the network's simulations a move (default: its card's play budget)")
    parser.add_argument("--opponent-simulations", default="200,2000",
                        help="the bot's simulations a move, comma-separated for several matches (default 200,2000)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2; the results do not depend on it)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-proofs", dest="proofs", action="store_false",
                        help="the network plays its search's moves, not corrected by what the tree proves")
    parser.add_argument("--search-path", choices=("generic", "compiled"),
                        help="the network's search: the generic one or the compiled one (numba; Othello, Hex, Tak); "
                             "its card's by default")
    parser.add_argument("--root-policy", choices=("puct", "gumbel"), help="the network's root policy (its card's by default)")
    args = parser.parse_args(argv)
    if args.simulations is None and not args.checkpoint.startswith("alphabeta"):
        args.simulations = play_simulations(args.checkpoint)
    rows = []
    for budget in (int(b) for b in args.opponent_simulations.split(",")):
        summary = match(args.checkpoint, args.simulations, budget, args.games, args.workers, args.seed,
                        game_name=args.game, proofs=args.proofs, search_path=args.search_path,
                        root_policy=args.root_policy)
        print(summary.text(), flush=True)
        (w1, d1, l1), (w2, d2, l2) = summary.by_seat
        low, high = summary.interval("wins")
        how = "".join(f" {value}" for value in (args.search_path, args.root_policy) if value)
        player = f"{args.checkpoint} on {args.game}" if args.game else f"{args.checkpoint} @{args.simulations}{how}"
        rows.append(f"| {player} vs OpenSpiel MCTS @{budget} | "
                    f"{summary.wins} / {summary.draws} / {summary.losses} | "
                    f"{100 * summary.win_rate:.1f}% ({100 * low:.1f}-{100 * high:.1f}) | "
                    f"{w1}/{d1}/{l1} | {w2}/{d2}/{l2} |")
    print("\n| match | wins / draws / losses | win rate (95% CI) | moving first | moving second |\n|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
