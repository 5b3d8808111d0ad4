"""PUCT tree search (AlphaZero's MCTS) adapted to Azul's chance step and non-alternating turns.

What differs from tic-tac-toe
-----------------------------
* **Who moves.** Every node remembers ``current_seat(board)``. Values are stored from the viewpoint
  of the player to move at that node, and on the way back up a value is negated only when the
  parent's seat differs from the child's. Across a round boundary the same player may move twice in
  a row; the usual "negate at every ply" would then be wrong.
* **Chance.** Inside a round Azul is deterministic: no tile is drawn until the refill (``NOOP``).
  So a search that stays within the round is an exact perfect-information search. A node whose only
  legal action is ``NOOP`` is a *chance node*. Two ways to treat it (``SearchConfig.chance``):

  - ``"round"`` (default): the chance node is a leaf. Its value is the leaf evaluator's value of the
    board at the refill, which already knows the round's exact wall-tiling (the heuristic projection
    and the network input both contain it). No tile draw is ever guessed.
  - ``"sample"``: the chance node keeps up to ``chance_outcomes`` refills drawn with the search's
    RNG (fresh draws until that many exist, then a uniform pick among them), and the search goes on
    below them; the chance node's value is the average over what was sampled (sampled expectimax).

  The bag stores counts only, so sampled refills never peek at the real future draw.

Leaf values mix the network's value head and the hand-written heuristic
(``value_mix * v_net + (1 - value_mix) * v_heuristic``); priors come from the network's policy
(masked to the legal moves) or, without a network, from a softmax over the greedy scores.

``Search(evaluator, config).run(board, rng)`` returns visit counts over the 181 actions;
``SearchAgent`` wraps it as an agent ``agent(board, rng) -> action`` with a simulation budget and an
optional per-move time limit.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Callable

import numpy as np

import Azul_Simulator as az

from . import heuristics

DECISION, CHANCE, TERMINAL = 0, 1, 2

Evaluator = Callable[[np.ndarray], tuple]  # board -> (prior (181,), value for the player to move)


@dataclasses.dataclass
class SearchConfig:
    """Search settings.

    Attributes:
        simulations: simulations per move (the budget; deterministic given the RNG).
        time_limit: optional wall-clock cap per move in seconds (stops earlier if reached).
        c_puct: exploration constant of the PUCT rule.
        value_mix: weight of the network value at leaves (1 - value_mix: heuristic value).
        chance: "round" (stop at the refill and evaluate) or "sample" (sampled refills).
        chance_outcomes: refills kept per chance node in "sample" mode.
        fpu_reduction: an unvisited child starts at (parent's value estimate - this).
        dirichlet_alpha, dirichlet_frac: root noise for self-play (0 disables it).
    """
    simulations: int = 200
    time_limit: float | None = None
    c_puct: float = 1.5
    value_mix: float = 0.5
    chance: str = "round"
    chance_outcomes: int = 4
    fpu_reduction: float = 0.1
    dirichlet_alpha: float = 0.0
    dirichlet_frac: float = 0.25


class Node:
    __slots__ = ("board", "seat", "kind", "value", "actions", "prior", "n", "w", "children", "visits")

    def __init__(self, board, kind, value):
        self.board = board
        self.seat = int(board[az.SEAT])
        self.kind = kind
        self.value = value  # leaf evaluation (player to move at this node)
        self.actions = None
        self.prior = None
        self.n = None
        self.w = None
        self.children = None
        self.visits = 0


def heuristic_evaluator(temperature: float = 2.0) -> Evaluator:
    """Evaluator without a network: softmax(greedy projected scores / temperature) priors and the
    heuristic value (its value is used whatever ``value_mix`` says)."""

    def evaluate(board):
        scores = heuristics.greedy_scores(board)
        legal = np.isfinite(scores)
        z = np.where(legal, (scores - scores[legal].max()) / temperature, -np.inf)
        p = np.exp(z)
        return p / p.sum(), float(heuristics.evaluate(board))

    evaluate.uses_heuristic_value = True
    return evaluate


class MixedEvaluator:
    """Network evaluator whose priors are mixed with the heuristic's:
    ``prior = (1 - prior_mix) * network prior + prior_mix * softmax(greedy scores / temperature)``;
    the value is the network's (``Search`` mixes it with the heuristic value by ``value_mix``)."""

    def __init__(self, net, prior_mix: float = 0.5, temperature: float = 2.0):
        self.net = net
        self.prior_mix = prior_mix
        self.heuristic = heuristic_evaluator(temperature)

    def __call__(self, board):
        prior, value = self.net(board)
        if self.prior_mix > 0:
            h_prior, _ = self.heuristic(board)
            prior = (1 - self.prior_mix) * prior + self.prior_mix * h_prior
        return prior, value


def make_evaluator(net=None, prior_mix: float = 0.0, temperature: float = 2.0) -> Evaluator:
    """``heuristic_evaluator`` without a network, the network itself, or a ``MixedEvaluator``."""
    if net is None or prior_mix >= 1.0:
        return heuristic_evaluator(temperature)
    if prior_mix <= 0.0:
        return net
    return MixedEvaluator(net, prior_mix, temperature)


class Search:
    """One search tree per call of ``run``."""

    def __init__(self, evaluator: Evaluator, config: SearchConfig | None = None):
        self.evaluator = evaluator
        self.config = config or SearchConfig()
        self.heuristic_only = getattr(evaluator, "uses_heuristic_value", False)

    # -- node creation ---------------------------------------------------------------------------
    def _leaf_value(self, board, net_value):
        if self.heuristic_only:
            return net_value
        mix = self.config.value_mix
        if mix >= 1.0:
            return net_value
        return mix * net_value + (1.0 - mix) * float(heuristics.evaluate(board))

    def _make_node(self, board):
        if board[az.GAME_OVER]:
            reward, _ = az.get_reward(board)
            return Node(board, TERMINAL, float(reward))
        mask = az.get_valid_mask(board)
        if mask[az.NOOP]:
            if self.config.chance == "round":
                if self.heuristic_only or self.config.value_mix <= 0.0:
                    value = float(heuristics.evaluate(board))
                else:
                    _, v = self.evaluator(board)
                    value = self._leaf_value(board, v)
                return Node(board, CHANCE, value)
            node = Node(board, CHANCE, 0.0)
            node.children = []
            return node
        prior, v = self.evaluator(board)
        node = Node(board, DECISION, self._leaf_value(board, v))
        actions = np.flatnonzero(mask)
        p = prior[actions].astype(np.float64) + 1e-8
        node.actions = actions
        node.prior = p / p.sum()
        node.n = np.zeros(len(actions))
        node.w = np.zeros(len(actions))
        node.children = [None] * len(actions)
        return node

    # -- one simulation ----------------------------------------------------------------------------
    def _select(self, node):
        c = self.config
        sqrt_total = math.sqrt(node.visits + 1)
        q = np.where(node.n > 0, node.w / np.maximum(node.n, 1), node.value - c.fpu_reduction)
        return int(np.argmax(q + c.c_puct * node.prior * sqrt_total / (1.0 + node.n)))

    def _simulate(self, root, rng):
        path = []  # (parent, index or -1 for a chance edge, child)
        node = root
        while True:
            if node.kind == TERMINAL:
                value = node.value
                break
            if node.kind == CHANCE:
                if self.config.chance == "round":
                    value = node.value
                    break
                if len(node.children) < self.config.chance_outcomes:
                    child = self._make_node(az.get_next_state(node.board, az.NOOP, rng))
                    node.children.append(child)
                    path.append((node, -1, child))
                    value = child.value if child.kind != CHANCE else 0.0
                    if child.kind == DECISION or child.kind == TERMINAL:
                        break
                    node = child
                    continue
                child = node.children[int(rng.integers(len(node.children)))]
                path.append((node, -1, child))
                node = child
                continue
            i = self._select(node)
            child = node.children[i]
            if child is None:
                child = self._make_node(az.get_next_state(node.board, int(node.actions[i])))
                node.children[i] = child
                path.append((node, i, child))
                if child.kind == CHANCE and self.config.chance == "sample":
                    node = child
                    continue
                value = child.value
                break
            path.append((node, i, child))
            node = child
        # back up: value is from the viewpoint of the player to move at the last node
        for parent, i, child in reversed(path):
            if parent.seat != child.seat:
                value = -value
            parent.visits += 1
            if i >= 0:
                parent.n[i] += 1
                parent.w[i] += value
            else:  # chance node: running mean of the sampled outcomes
                parent.value += (value - parent.value) / parent.visits

    def run(self, board: np.ndarray, rng: np.random.Generator):
        """Search from ``board``; returns ``(visits (181,) float, root value estimate)``."""
        c = self.config
        root = self._make_node(board)
        visits = np.zeros(az.ACTION_DIM)
        if root.kind != DECISION:
            raise ValueError("search needs a position with a take to choose (not the refill, not game over)")
        if len(root.actions) == 1:
            visits[root.actions[0]] = 1.0
            return visits, root.value
        if c.dirichlet_alpha > 0:
            noise = rng.dirichlet([c.dirichlet_alpha] * len(root.actions))
            root.prior = (1 - c.dirichlet_frac) * root.prior + c.dirichlet_frac * noise
        deadline = None if c.time_limit is None else time.perf_counter() + c.time_limit
        for k in range(c.simulations):
            self._simulate(root, rng)
            if deadline is not None and (k & 15) == 15 and time.perf_counter() > deadline:
                break
        visits[root.actions] = root.n
        q = float(root.w.sum() / max(root.n.sum(), 1))
        return visits, q


def best_action(visits: np.ndarray) -> int:
    """Most visited action (lowest index on ties)."""
    return int(np.argmax(visits))


class SearchAgent:
    """``agent(board, rng) -> action``: PUCT search with ``config.simulations`` simulations and
    optional ``config.time_limit`` seconds per move; plays the most visited move."""

    def __init__(self, evaluator: Evaluator, config: SearchConfig | None = None):
        self.search = Search(evaluator, config)

    def __call__(self, board, rng=None):
        rng = np.random.default_rng() if rng is None else rng
        mask = az.get_valid_mask(board)
        if mask[az.NOOP]:
            return az.NOOP
        visits, _ = self.search.run(board, rng)
        return best_action(visits)
