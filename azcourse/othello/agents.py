"""Othello opponents by name, for terminal play (``play.py othello --opponent NAME``).

``OPPONENTS`` maps a name to a builder ``build(game, rng, simulations) -> agent`` (the network players
also take ``source=``, another checkpoint than the shipped one; an agent as in
``azcourse.core.agents``: ``name``, ``choose(state)``, ``observe(action)``). A new player, e.g. one
with a trained network, joins the command line by one more entry here.

    random  uniformly random legal moves (``azcourse.core.agents``).
    greedy  the move that leaves the mover the most discs; ties to the lowest action index.
    uct     plain UCT with uniformly random rollouts, ``simulations`` search games per move
            (``azcourse.core.agents``).

The players of the planning tutorial read the shipped network (``ckpts/<game name>/``, the best
network of its AlphaZero run; only 6x6 has one) through ``azcourse.core.planners``:

    value        one move ahead: the move whose position the value head likes most.
    policy       the policy head's most probable legal move.
    monte-carlo  the 3 most probable moves, each judged by 10 rollouts of up to 5 policy moves that
                 start after it, the value head where they stop.
    alphazero    PUCT search with the network (``simulations`` per move).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..core.agents import PolicyUnavailable, make_agent
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


def shipped_network(game: Othello, source=None) -> Callable:
    """``predict(state) -> (prior, value)`` of the shipped network for ``game`` (or of the checkpoint
    ``source``: a folder, a run folder or a name under ``ckpts/``).

    Raises:
        PolicyUnavailable: no network is shipped for this board size.
    """
    from ..alphazero.checkpoints import load_checkpoint
    from ..alphazero.network import Predictor

    try:
        checkpoint = load_checkpoint(source or game.name)
    except FileNotFoundError:
        raise PolicyUnavailable(f"no trained {game.name} network is shipped (only othello6 has one), so value, "
                                "policy, monte-carlo and alphazero cannot play; use random, greedy or uct") from None
    if checkpoint.game.name != game.name:
        raise PolicyUnavailable(f"{source} holds a network for {checkpoint.game.name}, not {game.name}")
    return Predictor(game, checkpoint.net)


def alphazero_agent(game: Othello, rng: np.random.Generator, simulations: int, source=None):
    """PUCT search with the shipped network (``azcourse.alphazero.agent``)."""
    from ..alphazero.agent import AlphaZeroAgent
    from ..alphazero.checkpoints import load_checkpoint

    shipped_network(game, source)  # the same refusal as the other network players
    checkpoint = load_checkpoint(source or game.name)
    play = checkpoint.card["play"]
    return AlphaZeroAgent(game, checkpoint.net, simulations, rng, play["c_init"], play["c_base"],
                          play["unvisited_value"], name="alphazero")


OPPONENTS: dict[str, Callable] = {
    "random": lambda game, rng, simulations: make_agent("random", game, rng),
    "greedy": lambda game, rng, simulations: GreedyAgent(game),
    "uct": lambda game, rng, simulations: make_agent("uct", game, rng, simulations),
    "value": lambda game, rng, simulations, source=None: ValueAgent(game, shipped_network(game, source)),
    "policy": lambda game, rng, simulations, source=None: PolicyNetAgent(game, shipped_network(game, source)),
    "monte-carlo": lambda game, rng, simulations, source=None: MonteCarloAgent(
        game, shipped_network(game, source), rng, top_k=3, rollouts=10, depth=5),
    "alphazero": alphazero_agent,
}


def make_opponent(name: str, game: Othello, rng: np.random.Generator, simulations: int = 1000):
    """The opponent called ``name`` (a key of ``OPPONENTS``) for ``game``.

    Raises:
        ValueError: unknown name.
    """
    if name not in OPPONENTS:
        raise ValueError(f"unknown Othello opponent {name!r}; choose from {', '.join(OPPONENTS)}")
    return OPPONENTS[name](game, rng, simulations)
