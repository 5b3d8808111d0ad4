"""The Azul commands' options, without the engine: ``play.py azul --help`` and ``play.py arena --help``
build them from here and answer at once. It lives outside ``azcourse.azul``, whose package import loads
``Azul_Simulator`` and so numba (seconds).

``AGENT_NAMES`` are the names of ``azcourse.azul.agents.AGENTS`` (tests/test_azul_agents.py checks
that they agree).
"""
from __future__ import annotations

import argparse

AGENT_NAMES = ("baseline", "greedy", "random", "strong", "strong+search")

# ``play.py azul``'s opponents, weakest first, each with its strength in words: the games it won against
# the independent alpha-beta yardstick at depth 3 (benchmarks/azul_alphabeta.py: seats alternating,
# paired deals, the 2-core machine, 2026-11-28 and 29; the models' rows are in their cards, docs/azul_model.md;
# tests/test_azul_card_tables.py checks the models' figures against the cards).
OPPONENTS = {
    "random": "uniformly random legal takes; won 0 of 40 games against the depth-3 alpha-beta yardstick",
    "baseline": "a small network (64 and 32 units), policy alone; won 29 of 400 (3 draws) against the yardstick",
    "greedy": "the take that scores most now; won 10 of 200 against the yardstick",
    "strong": "the strong network, policy alone (one network call a move); won 257 of 400 (4 draws) against the yardstick",
    "strong+search": "the strong network in a search of 100 simulations, about 30 ms a move; "
                     "won 363 of 400 against the yardstick",
    "strong+search:800": "800 simulations, about 0.3 s a move: more search than 200 simulations, "
                         "which won 380 of 400 against the yardstick",
    "strong+search:0.5s": "as much search as 0.5 s a move allows (the strongest that answers within "
                          "about half a second); won 393 of 400 (1 draw) against the yardstick",
}
DEFAULT_OPPONENT = "strong+search:0.5s"


def opponents_help() -> str:
    """The opponents as lines for a command's help: each with its strength, the default marked."""
    width = max(map(len, OPPONENTS))
    lines = [f"  {name:<{width}}  {words}" + ("  (the default)" if name == DEFAULT_OPPONENT else "")
             for name, words in OPPONENTS.items()]
    return "opponents (--opponent), weakest first:\n" + "\n".join(lines)


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
