"""Azul on the generic MCTS (``azcourse.core.mcts``): the leaf evaluator and the search agent.

The search is the one every game uses; what is Azul's own is said here, as settings and an evaluator:

* **Chance at the refill**: within a round Azul is a deterministic game of perfect information; the
  refill that ends it is the only chance step. ``chance_outcomes = 0`` ("round") makes it a leaf that the
  evaluator values on the board at the refill, which already fixes the round's wall-tiling;
  ``chance_outcomes = k`` ("sample": 4 in ``azul_strong``'s card) keeps up to k sampled refills per chance
  node and searches below them (docs/azul_model.md measures both).
* **Who moves** is the game's ``to_move`` (the holder of the first-player marker starts a round, so a seat
  may move twice in a row); the generic search backs up each seat's own result.
* **PUCT as the shipped models were tuned** (``PLAY_SEARCH``, the start of the shipped cards' ``play``
  entries): a constant exploration rate ``c_init`` (``c_base`` infinite), and first-play urgency: an
  untried take starts at its node's value less ``fpu_reduction``.
* **Leaves mix the network with the hand-written heuristic** (``AzulEvaluator``), both weights the
  heuristic's, as in the generic ``GuidedEvaluator``:
  ``value = (1 - value_mix) * v_net + value_mix * tanh(projected score difference / 12)`` and
  ``prior = (1 - prior_mix) * p_net + prior_mix * softmax(projected score after the take / temperature)``,
  every entry then raised by ``PRIOR_FLOOR`` so that no legal take has a zero prior. Without a network the
  heuristic gives both. It computes the heuristic only where a weight needs it (a search of 0.5 s a move).

``SearchAgent(evaluator, ...)`` is an agent ``agent(board, rng) -> action`` of ``azcourse.azul.agents``'s
kind: a new tree each move, ``simulations`` of them or fewer when ``time_limit`` seconds run out (checked
every 16), the most visited take.
"""
from __future__ import annotations

import math

import numpy as np

import Azul_Simulator as az

from ..core.mcts import MCTS, MCTSConfig, SearchResult
from . import heuristics
from .game import Azul

PRIOR_FLOOR = 1e-8  # added to every prior entry: a legal take the network rules out is still tried


class AzulEvaluator:
    """``evaluator(game, board, rng) -> (prior float64 (181,) or None, values float64 (2,))`` for
    ``azcourse.core.mcts``: the mixes of the module docstring, values by seat (the player to move gets
    ``value``, the other ``-value``). A chance board (the refill) gets values only.

    Args:
        net: ``net(board) -> (prior (181,), value)`` (``checkpoints.AzulNet``), or None: the heuristic alone.
        prior_mix, value_mix: the heuristic's weights in the prior and in the value, in [0, 1].
        temperature: of the heuristic prior's softmax over projected scores.
    """

    def __init__(self, net=None, prior_mix: float = 0.0, value_mix: float = 0.5,
                 temperature: float = heuristics.PRIOR_TEMPERATURE):
        if not (0.0 <= prior_mix <= 1.0 and 0.0 <= value_mix <= 1.0):
            raise ValueError(f"prior_mix and value_mix lie in [0, 1], got {prior_mix} and {value_mix}")
        self.net, self.prior_mix, self.value_mix, self.temperature = net, prior_mix, value_mix, temperature

    def heuristic_prior(self, board: np.ndarray) -> np.ndarray:
        """float64 (181,): softmax of the mover's projected score after each take over ``temperature``."""
        return heuristics.prior(board, self.temperature)

    def __call__(self, game, board: np.ndarray, rng=None):
        chance = game.is_chance(board)  # the game keeps the mask the search just asked of this board
        net_value = None
        prior = None
        if self.net is not None and (self.value_mix < 1.0 or (not chance and self.prior_mix < 1.0)):
            net_prior, net_value = self.net(board)
            if not chance and self.prior_mix < 1.0:
                prior = net_prior
        if self.net is None or self.value_mix >= 1.0:
            value = float(heuristics.evaluate(board))
        elif self.value_mix <= 0.0:
            value = net_value
        else:
            value = (1.0 - self.value_mix) * net_value + self.value_mix * float(heuristics.evaluate(board))
        values = np.empty(2)
        seat = int(board[az.SEAT])
        values[seat], values[1 - seat] = value, -value
        if chance:
            return None, values
        if prior is None:
            prior = self.heuristic_prior(board)
        elif self.prior_mix > 0.0:
            prior = (1 - self.prior_mix) * prior + self.prior_mix * self.heuristic_prior(board)
        return np.asarray(prior, dtype=np.float64) + PRIOR_FLOOR, values


# Azul's play-time search where it differs from MCTSConfig's defaults (the module docstring); the shipped cards'
# ``play`` entries start from it
PLAY_SEARCH = {"tree_policy": "puct", "c_init": 1.5, "c_base": math.inf, "fpu_reduction": 0.1, "chance_outcomes": 0}


def search_config(simulations: int, time_limit: float | None = None, **settings) -> MCTSConfig:
    """Azul's play-time search (``PLAY_SEARCH``, ``settings`` over it: ``MCTSConfig``'s keywords)."""
    return MCTSConfig(**{**PLAY_SEARCH, **settings, "simulations": simulations, "time_limit": time_limit})



class SearchAgent:
    """``agent(board, rng) -> action``: the generic MCTS with ``evaluator`` from a new tree each move,
    the most visited take (lowest index on ties); the refill (``NOOP``) or a lone legal take at once.

    Args:
        evaluator: ``AzulEvaluator`` (or any evaluator of ``azcourse.core.evaluators``'s kind).
        config: ``MCTSConfig``, as ``search_config`` makes it.
        name: label in match summaries.
    """

    def __init__(self, evaluator, config: MCTSConfig, name: str = "search"):
        self.evaluator, self.config, self.name = evaluator, config, name
        self.game = Azul()

    def search(self, board: np.ndarray, rng=None) -> SearchResult:
        """One search from ``board`` (a decision board) with ``rng`` for its draws (a new generator when None)."""
        return MCTS(self.game, self.evaluator, self.config, rng).search(board)

    def __call__(self, board: np.ndarray, rng=None) -> int:
        legal = np.flatnonzero(az.get_valid_mask(board))
        if legal.size == 0:
            raise ValueError("The game is over: an agent has no move to choose.")
        if legal.size == 1:  # the refill, or a forced take
            return int(legal[0])
        return self.search(board, rng).action
