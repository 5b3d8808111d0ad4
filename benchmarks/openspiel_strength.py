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
plays the compiled search, without proofs; ``--root-policy`` and Othello's ``--endgame`` replace the card's:
``azcourse.alphazero.agent_options``). In its place,
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

from azcourse.alphazero.agent_options import add_agent_options, agent_options, checkpoint_player
from azcourse.core.arena import play_match
from azcourse.openspiel_agent import OpenSpielMCTSAgent
from azcourse.registry import make_alphabeta, make_game


def match(checkpoint: str, opponent_simulations: int, games: int, workers: int, seed: int, progress: bool = True,
          game_name: str | None = None, options: dict | None = None):
    """``(MatchSummary, label)`` of the network of ``checkpoint`` (``options``: ``checkpoint_player``'s
    keywords, its card's when None), or of the alpha-beta player that ``alphabeta:<depth>`` names on
    ``game_name``, against the OpenSpiel bot."""
    if checkpoint.startswith("alphabeta"):
        if game_name is None:
            raise ValueError(f"{checkpoint} needs a game (--game othello8, hex7, ...)")
        player, label = functools.partial(make_alphabeta, checkpoint, game_name), f"{checkpoint} on {game_name}"
    else:
        player, game_name, label = checkpoint_player(checkpoint, **(options or {}))
    bot = functools.partial(OpenSpielMCTSAgent, make_game(game_name), simulations=opponent_simulations)
    return play_match(functools.partial(make_game, game_name), player, bot, games=games, seed=seed,
                      workers=workers, progress=progress), label


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a checkpoint folder, run folder or name under ckpts/ (hex5_az, othello8, "
                                           "hex7), or alphabeta:<depth> with --game")
    parser.add_argument("--game", help="the game of an alphabeta:<depth> player (othello8, hex5, hex7, ...)")
    parser.add_argument("--games", type=int, default=200, help="games a match, seats alternating (default 200)")
    parser.add_argument("--opponent-simulations", default="200,2000",
                        help="the bot's simulations a move, comma-separated for several matches (default 200,2000)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2; the results do not depend on it)")
    parser.add_argument("--seed", type=int, default=0)
    add_agent_options(parser)
    args = parser.parse_args(argv)
    rows = []
    for budget in (int(b) for b in args.opponent_simulations.split(",")):
        summary, player = match(args.checkpoint, budget, args.games, args.workers, args.seed, game_name=args.game,
                                options=agent_options(args))
        print(summary.text(), flush=True)
        (w1, d1, l1), (w2, d2, l2) = summary.by_seat
        low, high = summary.interval("wins")
        rows.append(f"| {player} vs OpenSpiel MCTS @{budget} | "
                    f"{summary.wins} / {summary.draws} / {summary.losses} | "
                    f"{100 * summary.win_rate:.1f}% ({100 * low:.1f}-{100 * high:.1f}) | "
                    f"{w1}/{d1}/{l1} | {w2}/{d2}/{l2} |")
    print("\n| match | wins / draws / losses | win rate (95% CI) | moving first | moving second |\n|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
