"""The compiled self-play search against the generic one: the shared pieces of ``tests/test_compiled_search.py``
(numba-compiled, slow tier) and ``tests/test_compiled_twin_plain.py`` (the same comparison as plain Python).

The network is a small random numpy MLP (``NumpyNet``) whose weights are multiples of 1/8 (1/64 in the
value head): on the 0/1 encodings every product and sum is exact in float32, so a position's logits and
value do not depend on the batch it is evaluated in. The compiled path, which evaluates one batch of
many games a round, must then reproduce the generic search, which evaluates one position a call, to the
last bit: the same visit counts at every move, the same moves, the same records. Tak's encoding has
fractional planes (the reserves), so its cases evaluate one position a call on both paths (``batch = 1``).

Run as a script (``python tests/compiled_twin.py``), it plays every case of ``PLAIN_CASES`` on both paths and
prints one JSON line ``{case: "same" or what differs}``; with ``NUMBA_DISABLE_JIT=1`` the compiled path runs
as plain Python, a fraction of a second a case on small boards.
"""
from __future__ import annotations

import json
import math

import numpy as np

from azcourse.alphazero.compiled_search import play_games
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor
from azcourse.alphazero.selfplay import play_game
from azcourse.core.evaluators import NetworkEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.registry import make_game

SETTINGS = MCTSConfig(simulations=24, tree_policy="puct", c_base=40.0, c_init=1.1, unvisited_value=-0.2,
                      dirichlet_alpha=0.5, dirichlet_fraction=0.3)
GUMBEL = MCTSConfig(simulations=20, tree_policy="puct", root_policy="gumbel", max_considered_actions=6, c_visit=30.0,
                    c_scale=0.2)
# The plain-Python cases: every setting the twin implements, on boards small enough for interpreted numba code
CONSTANT_RATE = MCTSConfig(simulations=16, tree_policy="puct", c_base=math.inf, c_init=1.5, dirichlet_alpha=0.3)
PLAIN_CASES = {
    "hex3 puct noise": ("hex3", SETTINGS, 3, True),
    "hex3 constant rate (c_base inf)": ("hex3", CONSTANT_RATE, 3, True),
    "hex4 fresh trees": ("hex4", SETTINGS, 2, False),
    "hex3 gumbel": ("hex3", GUMBEL, 3, True),
    "othello4 puct noise": ("othello4", SETTINGS, 3, True),
    "othello4 constant rate (c_base inf)": ("othello4", CONSTANT_RATE, 2, False),
    "othello4 gumbel": ("othello4", GUMBEL, 3, True),
    "tak3 puct noise": ("tak3", SETTINGS, 3, True, 1),
    "tak3 fresh trees": ("tak3", CONSTANT_RATE, 2, False, 1),
    "tak3 gumbel": ("tak3", GUMBEL, 3, True, 1),
}


def dyadic_params(game, hidden=16, seed=0) -> dict:
    """A one-hidden-layer MLP's ``params`` for ``game``, every weight a small multiple of 1/8 (see the module
    docstring)."""
    rng = np.random.default_rng(seed)
    inputs, actions = int(np.prod(game.encoding_shape)), game.action_space_size
    layer = lambda fan_in, fan_out, unit: {"kernel": rng.integers(-4, 5, (fan_in, fan_out)) * unit,  # noqa: E731
                                           "bias": rng.integers(-4, 5, fan_out) * unit}
    return {"hidden_0": layer(inputs, hidden, 1 / 8), "policy_head": layer(hidden, actions, 1 / 8),
            "value_head": layer(hidden, 1, 1 / 64)}


def dyadic_net(game, seed=0) -> NumpyNet:
    return NumpyNet(NetSpec.for_game(game, (), (16,)), dyadic_params(game, seed=seed))


class RecordingMCTS(MCTS):
    """The generic search, keeping the root's visit counts of every search."""

    def __init__(self, *args):
        super().__init__(*args)
        self.visits = []

    def search_steps(self, state, *args, **kwargs):
        result = yield from super().search_steps(state, *args, **kwargs)
        self.visits.append(result.visits)
        return result


def generic_games(game, net, seeds, settings, temperature_moves, reuse_tree):
    """One generic self-play game per seed, each on its own generator; and each game's visit counts per move."""
    played, visits = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        search = RecordingMCTS(game, NetworkEvaluator(Predictor(game, net)), settings, rng)
        played.append(play_game(game, search, temperature_moves, rng, reuse_tree))
        visits.append(search.visits)
    return played, visits


def differences(expected, played) -> list[str]:
    """What differs between two lists of ``SelfPlayGame`` records (empty: the same, to the bit and dtype)."""
    if len(expected) != len(played):
        return [f"{len(expected)} games against {len(played)}"]
    found = []
    for index, (one, two) in enumerate(zip(expected, played)):
        for name in ("x", "pi", "z", "returns", "w"):
            a, b = getattr(one, name), getattr(two, name)
            if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
                found.append(f"game {index}: {name}")
    return found


def same_games(expected, played) -> None:
    problems = differences(expected, played)
    assert not problems, problems


def compare(name: str, settings: MCTSConfig, temperature_moves: int, reuse_tree: bool, batch: int = 2,
            seeds=(5, 6, 7)) -> list[str]:
    """Self-play games of ``name`` on both paths (the compiled one ``batch`` at a time); what differs."""
    game = make_game(name)
    net = dyadic_net(game)
    expected, _ = generic_games(game, net, seeds, settings, temperature_moves, reuse_tree)
    played = play_games(game, net.forward, settings, temperature_moves, [np.random.default_rng(s) for s in seeds],
                        reuse_tree, batch=batch)
    return differences(expected, played)


if __name__ == "__main__":
    print(json.dumps({case: compare(*args) or "same" for case, args in PLAIN_CASES.items()}))
