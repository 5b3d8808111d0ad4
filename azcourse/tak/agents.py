"""Tak opponents by name, for terminal play (``play.py tak --opponent NAME``), and the course
report's rollout policy.

``OPPONENTS`` maps a name to a builder ``build(game, rng, simulations) -> agent`` (an agent as in
``azcourse.core.agents``: ``name``, ``choose(state)``, ``observe(action)``). A new player joins the
command line by one more entry here.

    random    uniformly random legal moves (``azcourse.core.agents``).
    uct       plain UCT with uniformly random rollouts, ``simulations`` search games per move
              (``azcourse.core.agents``).
    mcts      the report's MCTS agent: UCT whose rollouts follow ``EpsilonGreedyRollout``.
    alphatak  PUCT search with the shipped network (``ckpts/tak<n>/``: 3x3, 4x4 and 5x5).
    classical:2, classical:3, classical:4
              the classical yardstick, alpha-beta to that many plies with a hand-made evaluation
              (``azcourse.tak.yardstick``; ties broken with the agent's generator); never used in training.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..core.agents import MCTSAgent, make_agent, make_opponent_of
from ..core.evaluators import RolloutEvaluator
from ..core.mcts import MCTSConfig
from .game import Tak, TakState


class EpsilonGreedyRollout:
    """A default policy for ``azcourse.core.evaluators.RolloutEvaluator``: with probability
    ``epsilon`` a uniformly random legal move; otherwise a move that wins at once if there is one
    (the first of ``game.legal_actions``), else a move drawn uniformly among those that leave the mover the
    largest flat lead (flats on top, komi counted; a move that hands the opponent a road counts as
    the worst lead).

    Each greedy step plays every legal move once, so a rollout costs about as many ``next_state``
    calls as there are legal moves per ply (``benchmarks/tak_speed.py`` measures it).

    Args:
        epsilon: exploration rate in [0, 1].
    """

    def __init__(self, epsilon: float = 0.1):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
        self.epsilon = float(epsilon)

    def __call__(self, game: Tak, state: TakState, rng: np.random.Generator) -> int:
        actions = game.legal_actions(state)
        if self.epsilon > 0.0 and rng.random() < self.epsilon:
            return actions[int(rng.random() * len(actions))]
        mover = game.to_move(state)
        best, best_lead = [], -np.inf
        for action in actions:
            child = game.next_state(state, action)
            if child.winner == mover:
                return action
            if child.winner == 1 - mover:
                lead = -np.inf
            else:
                flats = game.scores(child)
                lead = flats[mover] - flats[1 - mover]
            if lead > best_lead:
                best, best_lead = [action], lead
            elif lead == best_lead:
                best.append(action)
        return best[int(rng.random() * len(best))]


def report_mcts_agent(game: Tak, rng: np.random.Generator, simulations: int, epsilon: float = 0.1) -> MCTSAgent:
    """UCT (``azcourse.core.mcts``) with ``EpsilonGreedyRollout`` rollouts, named ``mcts``."""
    config = MCTSConfig(simulations=simulations, tree_policy="uct")
    return MCTSAgent(game, RolloutEvaluator(EpsilonGreedyRollout(epsilon)), config, rng, name="mcts")


def alphatak_agent(game: Tak, rng: np.random.Generator, simulations: int, source=None):
    """AlphaTak: PUCT search with the network shipped for this size (``ckpts/tak3/``, ``ckpts/tak4/``, ``ckpts/tak5/``,
    each trained by ``python -m azcourse.alphazero train --config configs/tak<n>.toml``), or with ``source``."""
    from ..alphazero.agent import shipped_agent

    return shipped_agent(game, rng, simulations, source, name="alphatak")


def classical_opponent(depth: int) -> Callable:
    """The builder of ``classical:<depth>``: the yardstick (``azcourse.tak.yardstick``, numba, imported only
    when one is built) to ``depth`` plies, ties broken with ``rng``; ``simulations`` is unused."""
    def build(game: Tak, rng: np.random.Generator, simulations: int):
        from ..registry import classical_agent

        return classical_agent(game, depth, rng)
    return build


CLASSICAL_DEPTHS = (2, 3, 4)  # the yardstick's depths named here; azcourse.registry.make_classical takes any
OPPONENTS: dict[str, Callable] = {
    "random": lambda game, rng, simulations: make_agent("random", game, rng),
    "uct": lambda game, rng, simulations: make_agent("uct", game, rng, simulations),
    "mcts": report_mcts_agent,
    "alphatak": lambda game, rng, simulations, source=None: alphatak_agent(game, rng, simulations, source),
    **{f"classical:{depth}": classical_opponent(depth) for depth in CLASSICAL_DEPTHS},
}


def make_opponent(name: str, game: Tak, rng: np.random.Generator, simulations: int = 1000):
    """The opponent called ``name`` (a key of ``OPPONENTS``) for ``game`` (``core.agents.make_opponent_of``)."""
    return make_opponent_of(OPPONENTS, "Tak", name, game, rng, simulations)
