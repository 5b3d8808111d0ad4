"""Any player against the game's classical yardstick at several depths, by seat, from random openings.

    python benchmarks/classical_strength.py ckpts/othello8 [--simulations N] [--depths 1,2,4] [--games 20]
    python benchmarks/classical_strength.py othello8_ntuple --search-path compiled --root-policy puct --endgame 12 \
        --simulations 6000 --depths 2,4,6 --games 40
    python benchmarks/classical_strength.py alphabeta:4 --game othello8 --depths 2,4
    python benchmarks/classical_strength.py classical:2 --game othello6 --depths 4 --opening-plies 2-4

The player is a checkpoint (a folder, run folder or name under ``ckpts/``; ``load_agent`` at
``--simulations`` a move (its card's ``play`` budget by default), its card's search otherwise, correcting its moves with what its tree proves;
``--search-path``, ``--root-policy`` and ``--endgame`` in place of its card's when given) or a player the
registry names for ``--game``: ``alphabeta:<depth>`` (``make_alphabeta``), ``classical:<depth>``
(``make_classical``) or ``random``. The opponent is the game's classical
yardstick ``classical:<depth>`` (``azcourse.registry.make_classical``: for Othello the compiled
alpha-beta of ``azcourse.othello.yardstick``, its exact endgame included), one match a depth of
``--depths``; any game whose family the registry's ``CLASSICAL`` lists plays here by its name.

Each game starts after a random opening of ``--opening-plies`` uniformly random legal moves (a range
``low-high`` draws the number from the game's generator), and each opening is played twice with the
seats exchanged (``play_match``'s paired deals), so the deterministic yardstick meets varied games.
Prints one summary a match (``MatchSummary.text``), then a Markdown table for a card: wins, draws and
losses, the win rate with its Wilson 95% interval overall and by seat, and each side's time per move.
"""
import argparse
import functools

import numpy as np

from azcourse.alphazero.agent_options import add_agent_options, agent_options, checkpoint_player
from azcourse.core.agents import RandomAgent
from azcourse.core.arena import play_game, play_match, random_opening, wilson_interval
from azcourse.registry import make_alphabeta, make_classical, make_game


class OpeningGame:
    """The game called ``name``, whose ``initial_state(rng)`` is the position after ``low`` to ``high``
    random legal plies, their number drawn from ``rng`` first; everything else is the game's."""

    def __init__(self, name: str, low: int, high: int):
        self.game, self.low, self.high = make_game(name), low, high

    def __getattr__(self, attribute):
        return getattr(self.game, attribute)

    def initial_state(self, rng):
        return random_opening(self.game, rng, int(rng.integers(self.low, self.high + 1)))


def player_factory(spec: str, game_name: str | None, options: dict | None = None):
    """``(make(rng) -> agent, game name, label)`` of the player ``spec`` (see the module docstring);
    ``options``: a checkpoint's (``agent_options.checkpoint_player``'s keywords; its card's when None).

    Raises:
        ValueError: a registry player without a game, or a checkpoint of another game than ``game_name``.
    """
    registry_player = spec == "random" or spec.startswith(("alphabeta:", "classical:"))
    if registry_player:
        if game_name is None:
            raise ValueError(f"{spec} needs a game (--game othello8, othello6, ...)")
        if spec == "random":
            return functools.partial(_random_agent, game_name), game_name, spec
        maker = make_alphabeta if spec.startswith("alphabeta:") else make_classical
        maker(spec, game_name)  # a bad name stops here, before any game
        return functools.partial(maker, spec, game_name), game_name, spec
    make, trained_on, label = checkpoint_player(spec, **(options or {}))
    if game_name is not None and make_game(game_name).name != trained_on:
        raise ValueError(f"{spec} was trained on {trained_on}, not {game_name}")
    return make, trained_on, label


def _random_agent(game_name: str, rng):
    return RandomAgent(make_game(game_name), rng)


_WARM: set = set()  # the yardsticks this process has played a game with


def yardstick(spec: str, game_name: str, rng):
    """``make_classical(spec, game_name, rng)``, after one game of it against itself the first time in a
    process, so that loading its compiled code (numba's cache) is not counted in its time per move."""
    if (spec, game_name) not in _WARM:
        warm = make_classical(spec, game_name, np.random.default_rng(0))  # not ``rng``: the match's draws stay
        play_game(make_game(game_name), (warm, warm), np.random.default_rng(0))
        _WARM.add((spec, game_name))
    return make_classical(spec, game_name, rng)


def opening_range(text: str) -> tuple[int, int]:
    """``"4"`` -> ``(4, 4)``, ``"2-4"`` -> ``(2, 4)``."""
    low, _, high = text.partition("-")
    try:
        bounds = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"plies are a number or a range such as 2-4, got {text!r}") from None
    if not 0 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"a range of plies runs from a low to a higher number, got {text!r}")
    return bounds


def rate(wins: int, games: int) -> str:
    """``wins / games`` as a percentage with its Wilson 95% interval."""
    low, high = wilson_interval(wins, games)
    return f"{100 * wins / max(1, games):.1f}% ({100 * low:.1f}-{100 * high:.1f})"


def table_row(label: str, summary) -> str:
    """One Markdown row of the card's table."""
    (w1, d1, l1), (w2, d2, l2) = summary.by_seat
    return (f"| {label} vs {summary.agent_b} | {summary.wins} / {summary.draws} / {summary.losses} | "
            f"{rate(summary.wins, summary.games)} | {w1}/{d1}/{l1}: {rate(w1, w1 + d1 + l1)} | "
            f"{w2}/{d2}/{l2}: {rate(w2, w2 + d2 + l2)} | "
            f"{summary.ms_per_move_a:.1f} / {summary.ms_per_move_b:.1f} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", help="a checkpoint (folder, run folder or name under ckpts/), or with --game: "
                                       "alphabeta:<depth>, classical:<depth>, random")
    parser.add_argument("--game", help="the game (othello8, othello6, ...); a checkpoint's own by default")
    parser.add_argument("--depths", default="1,2,4", help="the yardstick's plies, one match each (default 1,2,4)")
    parser.add_argument("--games", type=int, default=20, help="games a match, an even number (default 20)")
    parser.add_argument("--opening-plies", type=opening_range, default=(2, 4),
                        help="random plies before the players take over, a number or a range (default 2-4)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1; the results do not depend on it)")
    parser.add_argument("--seed", type=int, default=0, help="the openings' seed, the same at every depth (default 0)")
    add_agent_options(parser)
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be even (each opening is played with both seats), got {args.games}")
    depths = [int(d) for d in args.depths.split(",") if d.strip().isdigit()]
    if len(depths) != len(args.depths.split(",")):
        parser.error(f"--depths are plies separated by commas, such as 1,2,4; got {args.depths!r}")
    try:
        make_player, game_name, label = player_factory(args.player, args.game, agent_options(args))
        for depth in depths:
            make_classical(f"classical:{depth}", game_name)
    except ValueError as problem:
        parser.error(str(problem))
    low, high = args.opening_plies
    rows = []
    for depth in depths:
        summary = play_match(functools.partial(OpeningGame, game_name, low, high), make_player,
                             functools.partial(yardstick, f"classical:{depth}", game_name), games=args.games,
                             seed=args.seed, workers=args.workers)
        print(summary.text(), flush=True)
        rows.append(table_row(label, summary))
    print(f"\n{game_name}, {args.games} games a match, openings of {low}-{high} random plies each played with both "
          f"seats (seed {args.seed})\n")
    print("| match | wins / draws / losses | win rate (95% CI) | moving first | moving second | ms a move (player / "
          "yardstick) |\n|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
