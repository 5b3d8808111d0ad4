"""The Azul commands' options, without the engine: ``play.py azul --help`` and ``play.py arena --help``
build them from here and answer at once. It lives outside ``azcourse.azul``, whose package import loads
``Azul_Simulator`` and so numba (seconds).

``AGENT_NAMES`` are the names of ``azcourse.azul.agents.AGENTS`` (tests/test_azul_agents.py checks
that they agree).
"""
from __future__ import annotations

import argparse

AGENT_NAMES = ("baseline", "greedy", "random", "strong", "strong+search")


def add_arena_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arena's options on ``parser`` (``python -m azcourse.azul.arena`` and ``play.py arena``)."""
    parser.add_argument("agent_a", help="e.g. strong, strong+search, baseline, greedy, random")
    parser.add_argument("agent_b", help="the other agent, named the same way, e.g. greedy")
    parser.add_argument("--games", type=int, default=100, help="games, seats alternating (default 100), e.g. --games 1000")
    parser.add_argument("--seed", type=int, default=0, help="the first deal's seed (default 0), e.g. --seed 7")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores), e.g. --workers 2")
    parser.add_argument("--json", action="store_true",
                        help="also print the summary as one JSON object on the last line")
    parser.add_argument("--out", help="write the summary JSON to this file, e.g. --out match.json")
    parser.add_argument("--card", help="also record the result in this model's ckpts/<model>/card.json, e.g. --card strong")
    return parser
