"""Othello opponents by name, for terminal play (``play.py othello --opponent NAME``).

``OPPONENTS`` maps a name to a builder ``build(game, rng, simulations) -> agent`` (the network players
also take ``source=``, another checkpoint than the shipped one; an agent as in
``azcourse.core.agents``: ``name``, ``choose(state)``, ``observe(action)``). A new player, e.g. one
with a trained network, joins the command line by one more entry here.

    random  uniformly random legal moves (``azcourse.core.agents``).
    greedy  the move that leaves the mover the most discs; ties to the lowest action index.
    uct     plain UCT with uniformly random rollouts, ``simulations`` search games per move
            (``azcourse.core.agents``).
    classical  the classical yardstick (``azcourse.othello.yardstick``): compiled alpha-beta to 6 plies
            with a hand-made evaluation, the exact endgame from 12 empty squares; ``classical:<depth>``
            names other depths (``azcourse.registry.make_classical``).

The players of the planning tutorial read the shipped network (``ckpts/<game name>/``, the best
network of its AlphaZero run; only 6x6 has one) through ``azcourse.core.planners``:

    value        one move ahead: the move whose position the value head likes most.
    policy       the policy head's most probable legal move.
    monte-carlo  the 3 most probable moves, each judged by 10 rollouts of up to 5 policy moves that
                 start after it, the value head where they stop.
    alphazero    PUCT search with the network (``simulations`` per move).

``evaluate`` is the static evaluation of the alpha-beta yardstick (``azcourse.core.alphabeta``,
named ``alphabeta:<depth>`` by ``azcourse.registry.make_alphabeta``): corners and mobility.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..core.agents import make_agent, make_opponent_of
from ..core.planners import MonteCarloAgent, PolicyNetAgent, ValueAgent
from .game import Othello, OthelloState


class GreedyAgent:
    """The legal action after which the mover holds the most discs (lowest index on ties; the pass
    when it is the only legal action)."""

    def __init__(self, game: Othello, name: str = "greedy"):
        self.game, self.name = game, name

    def choose(self, state: OthelloState) -> int:
        game, mover = self.game, state.player
        legal = np.flatnonzero(game.legal_mask(state))
        counts = [game.scores(game.next_state(state, int(action)))[mover] for action in legal]
        return int(legal[int(np.argmax(counts))])

    def observe(self, action: int) -> None:
        """Nothing to remember."""


CORNER_WEIGHT = 0.6  # the rest of the evaluation's range is mobility's


def evaluate(game: Othello, state: OthelloState, player: int) -> float:
    """What ``state`` (not finished) is worth to ``player`` in [-1, 1]: corners and mobility.

    ``0.6 * (c - c') / 4 + 0.4 * (m - m') / (m + m')``, with ``c, c'`` the corners held by
    ``player`` and by the opponent, ``m, m'`` the placing moves each would have if it were to move
    (the mobility term 0 when neither has one). Zero-sum: the two players' values are opposite.
    """
    n = game.size
    own, opponent = (state.black, state.white) if player == 0 else (state.white, state.black)
    corners = 1 | 1 << (n - 1) | 1 << (n * (n - 1)) | 1 << (n * n - 1)
    corner_term = ((own & corners).bit_count() - (opponent & corners).bit_count()) / 4
    mine = game.placing_moves(own, opponent).bit_count()
    theirs = game.placing_moves(opponent, own).bit_count()
    mobility = (mine - theirs) / (mine + theirs) if mine + theirs else 0.0
    return CORNER_WEIGHT * corner_term + (1 - CORNER_WEIGHT) * mobility


def shipped_network(game: Othello, source=None) -> Callable:
    """``predict(state)`` of the shipped network (``azcourse.alphazero.agent.shipped_predictor``)."""
    from ..alphazero.agent import shipped_predictor

    return shipped_predictor(game, source)


def alphazero_agent(game: Othello, rng: np.random.Generator, simulations: int, source=None):
    """PUCT search with the shipped network (``azcourse.alphazero.agent.shipped_agent``)."""
    from ..alphazero.agent import shipped_agent

    return shipped_agent(game, rng, simulations, source)


CLASSICAL_DEPTH = 6  # plies of ``play.py othello --opponent classical`` (the yardstick's DEFAULT_DEPTH; a test holds them equal)


def classical(game: Othello):
    """The classical yardstick at its default depth (``azcourse.othello.yardstick``, numba: by name through the registry)."""
    from ..registry import classical_agent

    return classical_agent(game, CLASSICAL_DEPTH)


OPPONENTS: dict[str, Callable] = {
    "random": lambda game, rng, simulations: make_agent("random", game, rng),
    "greedy": lambda game, rng, simulations: GreedyAgent(game),
    "uct": lambda game, rng, simulations: make_agent("uct", game, rng, simulations),
    "classical": lambda game, rng, simulations: classical(game),
    "value": lambda game, rng, simulations, source=None: ValueAgent(game, shipped_network(game, source)),
    "policy": lambda game, rng, simulations, source=None: PolicyNetAgent(game, shipped_network(game, source)),
    "monte-carlo": lambda game, rng, simulations, source=None: MonteCarloAgent(
        game, shipped_network(game, source), rng, top_k=3, rollouts=10, depth=5),
    "alphazero": alphazero_agent,
}


def make_opponent(name: str, game: Othello, rng: np.random.Generator, simulations: int = 1000):
    """The opponent called ``name`` (a key of ``OPPONENTS``) for ``game`` (``core.agents.make_opponent_of``)."""
    return make_opponent_of(OPPONENTS, "Othello", name, game, rng, simulations)
