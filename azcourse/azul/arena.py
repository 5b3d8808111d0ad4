"""Arena: N games between two Azul agents, seats alternating, games in parallel over the cores.

Game ``i`` uses the deal seed ``seed + i // 2`` and puts agent A in seat ``i % 2``: each deal is
played twice with the seats exchanged (the tile draws come from their own generator, separate from
the agents' generator, so both games of a pair see the same sequence of random numbers at the
refills). Wins, draws (shared victories after the row tie-break, rule 20) and losses are counted
for A; the 95% confidence interval of A's win rate is Wilson's score interval.

Agents are named by strings so that worker processes can build them: ``random``, ``greedy``
(``azcourse.azul.agents`` when it provides them), ``heuristic_greedy`` (the training reference),
``heuristic+search:N`` (the search with no network), and checkpoints: ``baseline``, ``strong`` (policy only),
``strong+search`` (the generic MCTS with Azul's settings, ``mcts_agent``: 100 simulations capped at 1 s a move), ``strong+search:800`` (simulations) or ``strong+search:0.5s``.

Command line::

    python -m azcourse.azul.arena strong greedy --games 1000 --seed 0 [--workers 2] [--json]
"""
from __future__ import annotations

import argparse
import functools
import json

import numpy as np

import Azul_Simulator as az
from azcourse.azul_cli import add_arena_arguments as add_arguments
from azcourse.core import arena
from azcourse.core.arena import FunctionAgent

from . import heuristics
from .game import Azul

MODEL_WORDS = ("strong", "baseline", "azul_", "+search", "/")


def _random_agent(board, rng):
    return int(rng.choice(np.flatnonzero(az.get_valid_mask(board))))


def _heuristic_greedy(board, rng=None):
    return heuristics.heuristic_greedy_action(board)


def build_agent(spec: str):
    """An agent ``agent(board, rng) -> action`` from its arena name (see the module docstring)."""
    spec = spec.strip()
    if spec == "heuristic_greedy":
        return _heuristic_greedy
    if spec.startswith("heuristic+search"):  # the search with no network: greedy priors, heuristic values
        from .mcts_agent import AzulEvaluator, SearchAgent, search_config
        budget = spec.partition(":")[2] or "400"
        return SearchAgent(AzulEvaluator(), search_config(int(budget), time_limit=1.0), name=spec)
    if any(word in spec for word in MODEL_WORDS):
        from .checkpoints import make_model_agent
        return make_model_agent(spec)
    try:
        from azcourse.azul.agents import make_agent
        return make_agent(spec)
    except (ImportError, AttributeError):
        pass
    if spec == "random":
        return _random_agent
    if spec == "greedy":
        return _heuristic_greedy
    raise ValueError(f"unknown agent {spec!r}")


@functools.lru_cache(maxsize=None)
def _built(spec: str):
    """``build_agent(spec)``, once per process (checkpoints load once, however many games)."""
    return build_agent(spec)


def arena_agent(spec: str, rng: np.random.Generator) -> FunctionAgent:
    """The agent named ``spec`` for one game, drawing from that game's agents' generator."""
    return FunctionAgent(_built(spec), rng, spec)


def function_match(agent_a, agent_b, games: int, seed: int, progress: bool = False) -> arena.MatchSummary:
    """``games`` games between two agent functions ``agent(board, rng) -> action`` in this process, A
    in seat ``i % 2`` of game ``i``, which draws its deal, refills and the agents' choices from one
    generator ``[seed, i]`` (the seeding of the Azul notebook's arena)."""
    return arena.play_match(Azul, functools.partial(FunctionAgent, agent_a), functools.partial(FunctionAgent, agent_b),
                            games, seed, paired_deals=False, workers=1, progress=progress)


def run_arena(spec_a: str, spec_b: str, games: int = 100, seed: int = 0, workers: int | None = None,
              progress: bool = True) -> arena.MatchSummary:
    """Play ``games`` games of ``spec_a`` against ``spec_b`` (``azcourse.core.arena.play_match``, deals
    paired); returns A's view (``.as_dict()`` is what the model cards record)."""
    return arena.play_match(Azul, functools.partial(arena_agent, spec_a), functools.partial(arena_agent, spec_b),
                               games, seed, paired_deals=True, workers=workers, progress=progress,
                               names=(spec_a, spec_b))


def run_from_args(args: argparse.Namespace) -> dict:
    """Run the arena described by parsed ``add_arguments`` options, print, and return the summary."""
    match = run_arena(args.agent_a, args.agent_b, args.games, args.seed, args.workers, progress=not args.json)
    print(match.text())
    summary = match.as_dict()
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(summary, fh, indent=2)
    if getattr(args, "card", None):
        from .checkpoints import record_arena
        record_arena(args.card, summary)
    if args.json:
        print(json.dumps(summary))
    return summary


def main(argv=None):
    parser = add_arguments(argparse.ArgumentParser(description=__doc__.split("\n")[0]))
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    main()
