"""Players for any game of the game layer, and the seam where trained policies plug in.

An agent has ``name``, ``choose(state) -> action`` (a legal action at a decision state) and
``observe(action)``, which the caller invokes after **every** move of the actual game, whoever made
it, so a searching agent can keep the subtree of the position reached. Calling ``observe`` is
optional: without it a searching agent starts a fresh tree at each ``choose``.

Agents by name (``make_agent``):
    random  uniformly random legal moves.
    uct     plain UCT with uniformly random rollouts (the course report's tic-tac-toe computer).
    anet    greedy moves of a trained policy (an actor network): the most probable legal action.
    mcts    UCT whose rollouts follow the trained policy epsilon-greedily (on-policy MCTS).
``anet`` and ``mcts`` need ``policy``: ``policy(state) -> (A,)`` move probabilities.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from .evaluators import EpsilonGreedyPolicy, RolloutEvaluator, random_policy
from .mcts import MCTS, MCTSConfig

AGENT_NAMES = ("random", "uct", "anet", "mcts")


class PolicyUnavailable(Exception):
    """An agent needs a trained policy that is not available; the message says which."""


class RandomAgent:
    """Uniformly random legal moves."""

    def __init__(self, game, rng: np.random.Generator, name: str = "random"):
        self.game, self.rng, self.name = game, rng, name

    def choose(self, state) -> int:
        return random_policy(self.game, state, self.rng)

    def observe(self, action: int) -> None:
        """Nothing to remember."""


class PolicyAgent:
    """The legal action with the highest probability under ``policy`` (lowest index on ties)."""

    def __init__(self, game, policy: Callable, name: str = "anet"):
        self.game, self.name = game, name
        self._greedy = EpsilonGreedyPolicy(policy, epsilon=0.0)

    def choose(self, state) -> int:
        return self._greedy(self.game, state, None)

    def observe(self, action: int) -> None:
        """Nothing to remember."""


class MCTSAgent:
    """Plays the most visited action of an ``MCTS`` search (lowest index on ties) and keeps the
    subtree of every observed move."""

    def __init__(self, game, evaluator, config: MCTSConfig, rng: np.random.Generator, name: str = "uct"):
        self.name = name
        self.mcts = MCTS(game, evaluator, config, rng)

    def choose(self, state) -> int:
        return int(np.argmax(self.mcts.search(state).visits))

    def observe(self, action: int) -> None:
        self.mcts.advance(action)


def make_agent(name: str, game, rng: np.random.Generator, simulations: int = 1000,
               policy: Callable | None = None, epsilon: float = 0.1):
    """The agent called ``name`` (see ``AGENT_NAMES``) for ``game``.

    Args:
        rng: the agent's generator.
        simulations: search games per move (``uct``, ``mcts``).
        policy: ``policy(state) -> (A,)`` probabilities, needed by ``anet`` and ``mcts``.
        epsilon: exploration rate of ``mcts``'s rollouts.
    Raises:
        ValueError: unknown name.
        PolicyUnavailable: ``anet`` or ``mcts`` without a policy.
    """
    if name not in AGENT_NAMES:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_NAMES)}")
    if name == "random":
        return RandomAgent(game, rng)
    config = MCTSConfig(simulations=simulations, tree_policy="uct")
    if name == "uct":
        return MCTSAgent(game, RolloutEvaluator(random_policy), config, rng, name="uct")
    if policy is None:
        raise PolicyUnavailable(f"the {name} agent needs a trained policy for {game.name}")
    if name == "anet":
        return PolicyAgent(game, policy)
    return MCTSAgent(game, RolloutEvaluator(EpsilonGreedyPolicy(policy, epsilon)), config, rng, name="mcts")


def make_opponent_of(opponents: Mapping[str, Callable], family: str, name: str, game, rng: np.random.Generator,
                     simulations: int):
    """A game package's opponent called ``name``: ``opponents[name](game, rng, simulations)``.

    Raises:
        ValueError: unknown name (the message names ``family`` and the choices).
    """
    if name not in opponents:
        raise ValueError(f"unknown {family} opponent {name!r}; choose from {', '.join(opponents)}")
    return opponents[name](game, rng, simulations)
