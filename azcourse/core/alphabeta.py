"""Depth-limited alpha-beta search for any two-player game of the layer without chance.

A hand-written yardstick kept apart from training (docs/alphazero.md): it plays with a fixed,
game-specific evaluation instead of a network, so its results against OpenSpiel's MCTS bot say what
a plain classical player achieves there. The evaluations live in the games' packages
(``azcourse.othello.agents.evaluate``, ``azcourse.hex.agents.evaluate``); ``azcourse.registry``
names the agents ``alphabeta:<depth>``.

Values
    ``evaluate(state, player) -> float`` is what a non-terminal ``state`` is worth to ``player``,
    within [-1, 1]. A finished game is worth ``returns[player] * (WIN + plies left)``: more than any
    evaluation, a win sooner more than a win later, and a loss later more than a loss sooner (a lost
    side resists). Values are always taken from the root mover's view, asking ``game.to_move`` at
    every node (a player may move twice in a row), never negated per ply.
Search
    Plain minimax with alpha-beta pruning to ``depth`` plies (1: the best next position by the
    evaluation). Where at least two plies remain, the children are searched best first for their
    mover by the evaluation of each, which lets the pruning cut most of the tree; ties keep the
    order of the actions. At the root the first action in that order with the highest value is
    played, so the agent is deterministic: games against it differ by the other side's choices.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

WIN = 2.0  # a finished game's value exceeds every evaluation (which lies in [-1, 1])


class AlphaBetaAgent:
    """Alpha-beta search to ``depth`` plies with a static evaluation (see the module docstring).

    Args:
        game: a two-player game of the layer without chance states.
        evaluate: ``evaluate(state, player) -> float`` in [-1, 1], ``player`` 0 or 1.
        depth: plies searched, at least 1.
        name: label in match summaries (default ``alphabeta<depth>``).
    Attributes:
        nodes: positions visited by the last ``choose`` (for speed figures).
    """

    def __init__(self, game, evaluate: Callable, depth: int = 3, name: str | None = None):
        if depth < 1:
            raise ValueError(f"alpha-beta needs a depth of at least 1 ply, got {depth}")
        self.game, self.evaluate, self.depth = game, evaluate, int(depth)
        self.name = name or f"alphabeta{depth}"
        self.nodes = 0

    def value(self, state, player: int, depth: int, alpha: float, beta: float) -> float:
        """The minimax value of ``state`` for ``player`` searched ``depth`` plies deep, exact when it
        lies strictly between ``alpha`` and ``beta`` (else only a bound on that side)."""
        game = self.game
        self.nodes += 1
        if game.is_terminal(state):
            return float(game.returns(state)[player]) * (WIN + depth)
        if game.is_chance(state):
            raise ValueError(f"alpha-beta does not search chance states ({game.name})")
        if depth == 0:
            return float(self.evaluate(state, player))
        maximising = game.to_move(state) == player
        best = -np.inf if maximising else np.inf
        for child in self.children(state, depth):
            value = self.value(child, player, depth - 1, alpha, beta)
            if maximising:
                best, alpha = max(best, value), max(alpha, value)
            else:
                best, beta = min(best, value), min(beta, value)
            if alpha >= beta:
                break
        return best

    def children(self, state, depth: int) -> list:
        """The positions after each legal action, best first for the mover by the evaluation when
        ``depth >= 2`` plies remain, else in the order of the actions."""
        game = self.game
        after = [game.next_state(state, int(a)) for a in np.flatnonzero(game.legal_mask(state))]
        if depth < 2:
            return after
        mover = game.to_move(state)
        return sorted(after, key=lambda child: -self._static(child, mover))

    def _static(self, state, player: int) -> float:
        """The evaluation, or a finished game's value (as ``value`` at depth 0)."""
        if self.game.is_terminal(state):
            return float(self.game.returns(state)[player]) * WIN
        return float(self.evaluate(state, player))

    def action_values(self, state) -> dict[int, float]:
        """{legal action: its value for the mover}, each searched with a full window (for tests and
        analysis; ``choose`` prunes across the root's actions)."""
        game, me = self.game, self.game.to_move(state)
        return {int(a): self.value(game.next_state(state, int(a)), me, self.depth - 1, -np.inf, np.inf)
                for a in np.flatnonzero(game.legal_mask(state))}

    def choose(self, state) -> int:
        game, me = self.game, self.game.to_move(state)
        self.nodes = 0
        legal = [int(a) for a in np.flatnonzero(game.legal_mask(state))]
        if len(legal) == 1:
            return legal[0]
        scored = [(a, game.next_state(state, a)) for a in legal]
        if self.depth >= 2:
            scored.sort(key=lambda pair: -self._static(pair[1], me))
        best_action, alpha = scored[0][0], -np.inf
        for action, child in scored:
            value = self.value(child, me, self.depth - 1, alpha, np.inf)
            if value > alpha:
                best_action, alpha = action, value
        return best_action

    def observe(self, action: int) -> None:
        """Nothing to remember: every move is searched afresh."""
