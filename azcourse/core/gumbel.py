"""Gumbel AlphaZero's pieces (Danihelka et al., ICLR 2022) as pure functions over Python lists.

``azcourse.core.mcts`` calls them when ``MCTSConfig.root_policy`` is ``"gumbel"``; each takes one decision
node's statistics, one entry per legal action in the node's order, and returns plain floats or an index.
They follow DeepMind's mctx: ``completed_q`` and ``sigma`` are its ``qtransforms.py``
(``qtransform_completed_by_mix_value``), ``considered_visits`` its ``seq_halving.py``, and the two choice
rules those of ``gumbel_muzero_policy``. The arithmetic is plain Python, in a fixed order, so a search
gives the same floats on every machine and ``azcourse.alphazero.compiled_search`` can repeat them
operation for operation.

Notation: ``N(a)`` and ``W(a)`` are an action's visit count and summed results (of the chooser), ``P(a)``
its prior, ``v`` the evaluator's value of the node for the chooser, ``g(a)`` the root's Gumbel noise.
"""
from __future__ import annotations

import math
import sys

TINY = sys.float_info.min  # the floor of a prior before its log (the smallest positive normal float64)
Q_EPSILON = 1e-8  # the least range of the min-max normalisation of completed Q (mctx's epsilon)


def considered_visits(considered: int, simulations: int) -> tuple:
    """Sequential halving's schedule at a Gumbel root: the visit count that simulation ``i`` gives to the
    next considered action (one entry per simulation), as mctx's ``get_sequence_of_considered_visits``.

    ``considered`` actions get one visit each, round after round, for ``simulations // (ceil(log2
    considered) * considered)`` rounds (at least one); then the considered actions are halved (at least
    two remain), and so on until the budget is spent. One considered action takes every simulation.
    """
    if considered <= 1:
        return tuple(range(simulations))
    phases = math.ceil(math.log2(considered))
    schedule, visits = [], 0
    while len(schedule) < simulations:
        for _ in range(max(1, simulations // (phases * considered))):
            schedule += [visits] * considered
            visits += 1
        considered = max(2, considered // 2)
    return tuple(schedule[:simulations])


def logits(prior: list) -> list:
    """``log max(P(a), TINY)`` of each action: a zero prior gives a very negative but finite logit."""
    return [math.log(max(p, TINY)) for p in prior]


def softmax(values: list) -> list:
    """``exp(v - max v) / sum exp(v - max v)`` of a list of floats ``v``."""
    top = max(values)
    e = [math.exp(v - top) for v in values]
    total = sum(e)
    return [v / total for v in e]


def mixed_value(counts: list, totals: list, prior: list, value: float) -> float:
    """The value that completes Q of an unvisited action (mctx's ``_compute_mixed_value``)::

        (v + sum_b N(b) * sum_{visited b} P(b) Q(b) / sum_{visited b} P(b)) / (1 + sum_b N(b))

    with ``Q(b) = W(b) / N(b)`` and each prior clipped at ``TINY``; ``v`` itself when nothing is visited."""
    visited = sum(counts)
    if not visited:
        return value
    seen = [(max(p, TINY), w / n) for p, n, w in zip(prior, counts, totals) if n]  # (P, Q) of the visited
    mass = sum(p for p, _ in seen)
    return (value + visited * sum(p * q / mass for p, q in seen)) / (visited + 1)


def completed_q(counts: list, totals: list, prior: list, value: float, action_space: int) -> list:
    """The completed Q of each action, min-max normalised to [0, 1] (mctx's
    ``qtransform_completed_by_mix_value`` before its scale)::

        q(a) = (Q(a) - low) / max(high - low, Q_EPSILON),  Q(a) = W(a) / N(a) if N(a) > 0 else mixed_value

    The min and max run over the completed Q of the whole action space of ``action_space`` actions, as
    mctx's do: an illegal action, never visited, counts with the mixed value, so the mixed value enters
    the range whenever the node has fewer actions than the space (or an unvisited one).
    """
    mixed = mixed_value(counts, totals, prior, value)
    completed = [w / n if n else mixed for n, w in zip(counts, totals)]
    low, high = min(completed), max(completed)
    if len(counts) < action_space:
        low, high = min(low, mixed), max(high, mixed)
    scale = max(high - low, Q_EPSILON)
    return [(q - low) / scale for q in completed]


def sigma(completed: list, counts: list, c_visit: float, c_scale: float) -> list:
    """``sigma(q(a)) = (c_visit + max_b N(b)) * c_scale * q(a)`` of each action, ``q`` the normalised
    completed Q (``completed_q``; ``c_visit`` and ``c_scale`` are mctx's ``maxvisit_init`` and ``value_scale``)."""
    factor = (c_visit + max(counts)) * c_scale
    return [factor * q for q in completed]


def improved_policy(logits: list, sigma: list) -> list:
    """Gumbel AlphaZero's improved policy ``pi'(a) = softmax(logits(a) + sigma(a))``: the policy target of
    a search, and the rule below the root (``interior_choice``)."""
    return softmax([lg + s for lg, s in zip(logits, sigma)])


def interior_choice(improved: list, counts: list) -> int:
    """The deterministic choice below the root: the index that maximises ``pi'(a) - N(a) / (1 + sum_b N(b))``
    (the visits that most lag the improved policy); the first best on ties."""
    share = 1 + sum(counts)
    best, pick = -math.inf, 0
    for i, (p, n) in enumerate(zip(improved, counts)):
        score = p - n / share
        if score > best:
            best, pick = score, i
    return pick


def considered_choice(counts: list, gumbel: list, logits: list, sigma: list, visits: int) -> int:
    """The root's choice among the actions visited exactly ``visits`` times: the index that maximises
    ``g(a) + (logits(a) - max logits) + sigma(a)``; the first best on ties.

    With ``visits = considered_visits(...)[sum N]`` it is sequential halving's pick for the next simulation
    (so the first simulations visit the actions of largest ``g + logits``: Gumbel-Top-k); with ``visits =
    max N`` it is the search's move, the best of the most visited actions.
    """
    top = max(logits)
    best, pick = -math.inf, 0
    for i, (n, g, lg, s) in enumerate(zip(counts, gumbel, logits, sigma)):
        score = g + (lg - top) + s
        if n == visits and score > best:
            best, pick = score, i
    return pick
