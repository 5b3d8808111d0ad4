"""Leaf evaluation for the generic search: rollouts with a default policy, or a network (mixed with the game's guide or not).

An evaluator is called as ``evaluator(game, state, rng)`` on a decision state and returns
``(prior, values)``:

* ``prior``: float array ``(game.action_space_size,)`` of move probabilities, or ``None`` for
  uniform (the search keeps the legal entries and renormalises them);
* ``values``: float64 array ``(game.num_players,)``, the estimated result for every player.

Default policies (for rollouts) are called as ``policy(game, state, rng) -> action`` on a decision
state and return a legal action. Like every other module of the search, this one talks to games only
through ``azcourse.core.protocol``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def random_policy(game, state, rng: np.random.Generator) -> int:
    """A legal action drawn uniformly (the default policy of plain UCT)."""
    legal = game.legal_mask(state).nonzero()[0]
    return int(legal[int(rng.random() * len(legal))])


class EpsilonGreedyPolicy:
    """With probability ``epsilon`` a uniformly random legal action, otherwise the legal action with
    the highest probability under ``distribution`` (lowest index on ties).

    Args:
        distribution: ``distribution(state) -> (A,)`` float probabilities over the whole action
            space, e.g. an actor network's softmax; illegal entries are ignored (masked out).
        epsilon: exploration rate in [0, 1].
    """

    def __init__(self, distribution: Callable, epsilon: float = 0.1):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
        self.distribution, self.epsilon = distribution, float(epsilon)

    def __call__(self, game, state, rng: np.random.Generator) -> int:
        mask = game.legal_mask(state)
        if self.epsilon > 0.0 and rng.random() < self.epsilon:
            legal = mask.nonzero()[0]
            return int(legal[int(rng.random() * len(legal))])
        probabilities = np.asarray(self.distribution(state), dtype=np.float64)
        return int(np.argmax(np.where(mask, probabilities, -np.inf)))


class RolloutEvaluator:
    """Plays ``policy`` for every player from the leaf to the end of the game (drawing chance
    outcomes with the search's generator) and returns the final results; no prior (uniform).

    With the uniformly random policy (``random_policy``, the default) and ``playout=True``, a game
    that provides the protocol's optional ``random_playout(state, rng)`` plays the whole rollout
    itself: the same distribution of results, much faster, though it may draw from ``rng`` in
    another order than move-by-move calls of ``random_policy``.

    Args:
        policy: ``policy(game, state, rng) -> action``, the default policy.
        playout: use the game's ``random_playout`` when ``policy`` is ``random_policy``
            (False: always play move by move through the protocol).
    """

    def __init__(self, policy: Callable = random_policy, playout: bool = True):
        self.policy, self.playout = policy, playout

    def __call__(self, game, state, rng: np.random.Generator):
        if self.playout and self.policy is random_policy:
            playout = getattr(game, "random_playout", None)
            if playout is not None:
                return None, playout(state, rng)
        policy = self.policy
        while not game.is_terminal(state):
            if game.is_chance(state):
                state = game.resolve_chance(state, rng)
            else:
                state = game.next_state(state, policy(game, state, rng))
        return None, game.returns(state)


class NetworkEvaluator:
    """A network's prior and value at the leaf (AlphaZero), no rollout.

    Args:
        predict: ``predict(state) -> (prior, value)`` with ``prior`` of shape ``(A,)`` and ``value``
            either a number, the result expected by the player to move (two-player zero-sum
            games: the other player gets its negative), or an array ``(num_players,)``.
        predict_many: ``predict_many(states) -> [(prior, value), ...]``, the same for a list of states in
            one call (a batched network); without it ``many`` calls ``predict`` on each state.
    """

    def __init__(self, predict: Callable, predict_many: Callable | None = None):
        self.predict, self.predict_many = predict, predict_many

    def __call__(self, game, state, rng: np.random.Generator):
        prior, value = self.predict(state)
        return prior, self._values(game, state, value)

    def many(self, game, states: list) -> list:
        """``[self(game, s, rng) for s in states]`` in one batched prediction (an ``evaluate_many`` for
        ``azcourse.core.mcts.search_many``); a network draws nothing from ``rng``."""
        predicted = self.predict_many(states) if self.predict_many else [self.predict(s) for s in states]
        return [(prior, self._values(game, state, value)) for state, (prior, value) in zip(states, predicted)]

    @staticmethod
    def _values(game, state, value) -> np.ndarray:
        """float64 ``(num_players,)`` from the network's value (see the class docstring)."""
        value = np.asarray(value, dtype=np.float64)
        if value.ndim == 0:
            if game.num_players != 2:
                raise ValueError("a single value is read as zero-sum between two players; "
                                 f"this game has {game.num_players}: return one value per player")
            values = np.full(2, -float(value))
            values[game.to_move(state)] = float(value)
            return values
        if value.shape != (game.num_players,):
            raise ValueError(f"values must have shape ({game.num_players},), got {value.shape}")
        return value


class GuidedEvaluator:
    """A network's evaluation mixed with the game's hand-written one (the protocol's optional ``guide``):
    ``prior = (1 - prior_mix) * p_net + prior_mix * p_guide`` and ``value = (1 - value_mix) * v_net +
    value_mix * v_guide`` (values per player: ``NetworkEvaluator``'s convention). A chance state gets the
    mixed value only.

    Args:
        network: the ``NetworkEvaluator`` to mix with.
        prior_mix, value_mix: the guide's weight in the prior and in the value, in [0, 1].
    """

    def __init__(self, network: NetworkEvaluator, prior_mix: float, value_mix: float):
        if not (0.0 <= prior_mix <= 1.0 and 0.0 <= value_mix <= 1.0):
            raise ValueError(f"prior_mix and value_mix lie in [0, 1], got {prior_mix} and {value_mix}")
        self.network, self.prior_mix, self.value_mix = network, float(prior_mix), float(value_mix)

    def __call__(self, game, state, rng: np.random.Generator):
        return self._mixed(game, state, *self.network(game, state, rng))

    def many(self, game, states: list) -> list:
        """``[self(game, s, rng) for s in states]`` with the network's part in one batched prediction."""
        return [self._mixed(game, state, prior, values)
                for state, (prior, values) in zip(states, self.network.many(game, states))]

    def _mixed(self, game, state, prior, values):
        guide_prior, guide_value = game.guide(state)
        values = (1.0 - self.value_mix) * values + self.value_mix * NetworkEvaluator._values(game, state, guide_value)
        if guide_prior is None:
            return prior, values
        return (1.0 - self.prior_mix) * np.asarray(prior, np.float64) + self.prior_mix * guide_prior, values
