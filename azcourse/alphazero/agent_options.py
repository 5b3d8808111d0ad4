"""How a checkpoint plays, from a command line: the options the strength benchmarks share.

    parser = argparse.ArgumentParser()
    add_agent_options(parser)                      # --simulations --no-proofs --search-path --root-policy --endgame
    make, game_name, label = checkpoint_player("ckpts/othello8", **agent_options(parser.parse_args()))

``checkpoint_player`` gives ``load_agent`` a checkpoint's simulations a move (its card's ``play`` budget
when None) and the options given, the card's otherwise; its ``make(rng)`` is a ``play_match`` player (it
pickles for the match's workers) and its label says what was changed, for a table row.
"""
from __future__ import annotations

import argparse
import functools

from .agent import load_agent
from .checkpoints import play_simulations

SEARCH_OPTIONS = ("search_path", "root_policy", "endgame_empties")


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``agent_options`` to ``parser``."""
    parser.add_argument("--simulations", type=int,
                        help="a checkpoint's simulations a move (default: its card's play budget)")
    parser.add_argument("--no-proofs", dest="proofs", action="store_false",
                        help="a checkpoint plays its search's moves, not corrected by what the tree proves")
    parser.add_argument("--search-path", choices=("generic", "compiled"),
                        help="a checkpoint's search: the generic one or the compiled one (numba; Othello, Hex, Tak); "
                             "its card's by default")
    parser.add_argument("--root-policy", choices=("puct", "gumbel"),
                        help="a checkpoint's root policy (its card's by default)")
    parser.add_argument("--endgame", type=int, metavar="EMPTIES", dest="endgame_empties",
                        help="a checkpoint plays the exact endgame from this many empty squares (Othello; its card's "
                             "by default)")


def agent_options(args: argparse.Namespace) -> dict:
    """``checkpoint_player``'s keyword arguments from the parsed options of ``add_agent_options``."""
    return {"simulations": args.simulations, "proofs": args.proofs,
            **{key: getattr(args, key) for key in SEARCH_OPTIONS}}


def checkpoint_player(spec: str, simulations: int | None = None, proofs: bool = True, **search):
    """``(make(rng) -> agent, game name, label)`` of the checkpoint ``spec`` (a folder, run folder or name
    under ``ckpts/``) at ``simulations`` a move (None: its card's ``play`` budget); `search`: the
    ``SEARCH_OPTIONS`` of ``load_agent``, each None for its card's.

    Raises:
        FileNotFoundError: no checkpoint there.
    """
    simulations = simulations or play_simulations(spec)
    search = {key: value for key, value in search.items() if value is not None}
    how = "".join(f" endgame {value}" if key == "endgame_empties" else f" {value}" for key, value in search.items())
    make = functools.partial(load_agent, spec, simulations=simulations, proofs=proofs,
                             name=f"network@{simulations}{how}{'' if proofs else ' (no proofs)'}", **search)
    return make, make(0).game.name, f"{spec} @{simulations}{how}"
