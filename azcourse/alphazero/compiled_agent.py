"""A checkpoint played by the compiled search (Othello, Hex, Tak): the self-play search of ``compiled_search``, one
game, so that a move can afford tens of thousands of simulations where the generic search affords hundreds.

    agent = load_agent("othello8_ntuple", simulations=8000, search_path="compiled")

``CompiledAgent`` has ``AlphaZeroAgent``'s moves (``choose`` / ``observe``): the most visited action (PUCT) or
the Gumbel search's choice, Gumbel noise or visit sampling for its first ``sample_moves`` choices, the exact
endgame's move from ``endgame_empties`` empty squares on. Its search is ``compiled_search.Lockstep`` with one
slot: with pattern tables (an ``NTupleNet``'s ``tables``) the whole search runs in numba, leaves and all;
with an MLP every leaf is one call of the network on one position. What it does not have is the generic
tree's proofs (``azcourse.core.proofs``): its endgame's settled nodes are its proofs (``Lockstep``'s
``endgame_empties``), and it keeps no subtree between moves (each move a new tree, as Gumbel's search does).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from azcourse.core.mcts import MCTSConfig
from azcourse.registry import make_endgame

from .compiled_search import Lockstep, rules_for

SLOT = np.zeros(1, np.int64)  # the one slot's index (0), as ``Lockstep.results`` takes it


class CompiledAgent:
    """A network (or pattern tables) searched by the compiled search, one move at a time.

    Args:
        game: Othello, Hex or Tak (``compiled_search.rules_for``).
        forward: an ``NTupleNet`` (its ``tables`` are evaluated inside the search) or a network whose
            ``forward(x float32 (m, *encoding_shape)) -> (logits (m, A), values (m,))`` evaluates leaves.
        search: the ``MCTSConfig`` to play (``searches.from_card``); no ``time_limit``.
        rng: the search's generator (or a seed): Gumbel noise, visit sampling.
        sample_moves: the first choices drawn (Gumbel noise, or the visit counts at temperature 1).
        name: label in match summaries.
        endgame_empties: 0, or (Othello) the exact endgame plays from this many empty squares on, and the
            search sees every position with that few as a terminal with its exact result.
    Raises:
        ConfigError: a game without compiled rules, a setting the compiled search lacks (``time_limit``,
            ``tree_policy = "uct"``, ...), an endgame for Hex or out of range.
    """

    def __init__(self, game, forward, search: MCTSConfig, rng=None, sample_moves: int = 0, name: str = "compiled",
                 endgame_empties: int = 0):
        rules = rules_for(game)  # the Locksteps refuse the search's and the endgame's settings they lack
        self.game, self.name, self.sample_moves, self.chosen = game, name, sample_moves, 0
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        tables = getattr(forward, "tables", None)
        self.forward_many = None if tables is not None else forward.forward
        searching = dataclasses.replace(search, dirichlet_alpha=0.0)  # a player's search has no root noise
        greedy = dataclasses.replace(searching, gumbel_scale=0.0)
        self.sampled = Lockstep(rules, searching, 1, tables, endgame_empties) if sample_moves else None
        self.greedy = Lockstep(rules, greedy, 1, tables, endgame_empties)
        self.endgame = make_endgame(game, endgame_empties) if endgame_empties else None

    def choose(self, state) -> int:
        if self.endgame is not None:
            move = self.endgame.move(state)
            if move is not None:
                return move
        self.chosen += 1
        sample = self.chosen <= self.sample_moves
        lock = self.sampled if sample else self.greedy
        lock.start(0, state, self.rng)
        while not len(lock.step(self.forward_many)):
            pass
        found = lock.results(SLOT)
        if sample and not lock.gumbel:
            return int(self.rng.choice(len(found.policy[0]), p=found.policy[0]))
        return int(found.action[0])

    def observe(self, action: int) -> None:
        """Nothing to keep: each move searches a new tree."""
