"""Players that plan with a policy/value network, for any two-player zero-sum game of the layer.

They all read a network through one function, ``predict(state) -> (prior, value)``: ``prior`` float
``(A,)`` move probabilities (illegal entries are ignored), ``value`` the result the player to move at
``state`` expects, in [-1, 1]. (``azcourse.core.evaluators.NetworkEvaluator`` reads the same function
inside the search.)

    ValueAgent       one move ahead: the legal action whose next position is worth most to the mover.
    PolicyNetAgent   the network's policy alone: its most probable legal action, or one sampled from it.
    MonteCarloAgent  the ``top_k`` legal actions by the policy, each judged by ``rollouts`` rollouts that
                     start *after* that action, follow the policy for up to ``depth`` moves, and read
                     the value network where they stop.

Values are always turned into the chooser's view by asking ``game.to_move`` (never by negating per
ply), so a game where a player moves twice in a row is handled; a finished game counts its
``returns`` instead of the network's guess.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def value_for(game, state, player: int, predict: Callable) -> float:
    """What ``state`` is worth to ``player``: the result at a terminal state, else the network's value
    seen from ``player`` (its negative when the opponent is to move)."""
    if game.is_terminal(state):
        return float(game.returns(state)[player])
    value = float(predict(state)[1])
    return value if game.to_move(state) == player else -value


def masked_prior(game, state, predict: Callable) -> np.ndarray:
    """float64 ``(A,)``: the network's prior over the legal actions, renormalised (uniform over them
    when it puts no mass there)."""
    mask = game.legal_mask(state)
    prior = np.where(mask, np.asarray(predict(state)[0], dtype=np.float64), 0.0)
    total = prior.sum()
    return prior / total if total > 0 else mask / mask.sum()


class ValueAgent:
    """Plays the legal action whose resulting position has the highest value for the mover (lowest
    index on ties)."""

    def __init__(self, game, predict: Callable, name: str = "value"):
        self.game, self.predict, self.name = game, predict, name

    def choose(self, state) -> int:
        game, me = self.game, self.game.to_move(state)
        legal = np.flatnonzero(game.legal_mask(state))
        values = [value_for(game, game.next_state(state, int(a)), me, self.predict) for a in legal]
        return int(legal[int(np.argmax(values))])

    def observe(self, action: int) -> None:
        """Nothing to remember."""


class PolicyNetAgent:
    """The network's policy without search: the most probable legal action (lowest index on ties), or,
    with ``sample=True``, an action drawn from the masked prior with ``rng``."""

    def __init__(self, game, predict: Callable, rng: np.random.Generator | None = None, sample: bool = False,
                 name: str = "policy"):
        if sample and rng is None:
            raise ValueError("a sampling policy player needs a random generator")
        self.game, self.predict, self.rng, self.sample, self.name = game, predict, rng, sample, name

    def choose(self, state) -> int:
        prior = masked_prior(self.game, state, self.predict)
        if self.sample:
            return int(self.rng.choice(len(prior), p=prior))
        return int(np.argmax(prior))

    def observe(self, action: int) -> None:
        """Nothing to remember."""


class MonteCarloAgent:
    """Monte Carlo planning with a policy and a value network.

    Args:
        game: a two-player game of the layer (chance states are resolved with ``rng``).
        predict: ``predict(state) -> (prior, value)``.
        rng: draws the rollouts' moves.
        top_k: candidate actions, the most probable legal ones under the policy.
        rollouts: rollouts per candidate.
        depth: moves per rollout at most, after the candidate.
    """

    def __init__(self, game, predict: Callable, rng: np.random.Generator, top_k: int = 3, rollouts: int = 10,
                 depth: int = 5, name: str = "monte-carlo"):
        if min(top_k, rollouts) < 1 or depth < 0:
            raise ValueError("top_k and rollouts must be at least 1, depth at least 0")
        self.game, self.predict, self.rng, self.name = game, predict, rng, name
        self.top_k, self.rollouts, self.depth = top_k, rollouts, depth

    def rollout(self, state, player: int) -> float:
        """One rollout from ``state``: up to ``depth`` moves sampled from the policy; returns what the
        position where it stops is worth to ``player``."""
        game = self.game
        for _ in range(self.depth):
            if game.is_terminal(state):
                break
            if game.is_chance(state):
                state = game.resolve_chance(state, self.rng)
                continue
            prior = masked_prior(game, state, self.predict)
            state = game.next_state(state, int(self.rng.choice(len(prior), p=prior)))
        return value_for(game, state, player, self.predict)

    def action_values(self, state) -> dict[int, float]:
        """{candidate action: mean rollout value for the mover}: each candidate's rollouts start from
        the position *after* it is played."""
        game, me = self.game, self.game.to_move(state)
        prior = masked_prior(game, state, self.predict)
        legal = np.flatnonzero(prior > 0) if np.any(prior > 0) else np.flatnonzero(game.legal_mask(state))
        candidates = sorted(legal, key=lambda a: (-prior[a], a))[:self.top_k]
        values = {}
        for action in candidates:
            after = game.next_state(state, int(action))
            values[int(action)] = float(np.mean([self.rollout(after, me) for _ in range(self.rollouts)]))
        return values

    def choose(self, state) -> int:
        values = self.action_values(state)
        return max(values, key=lambda a: (values[a], -a))

    def observe(self, action: int) -> None:
        """Nothing to remember."""
