"""Self-play games with the generic MCTS, and their training positions.

One game: from ``game.initial_state(rng)``, every decision is a PUCT search (``MCTS.search``, root
noise in the search's config) from the current position; the search policy ``pi`` is the root's
visit distribution at temperature 1; the move is drawn from ``pi`` for the first
``temperature_moves`` decisions and is the most visited action afterwards (lowest index on ties);
the search keeps the chosen child's subtree (``MCTS.advance``) or starts afresh. Chance states are
resolved with the same generator. At the end every position gets ``z``, the final result of the
player who was to move there.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from azcourse.core.mcts import MCTS, visit_distribution


class SelfPlayGame(NamedTuple):
    """One self-play game's positions, in order.

    Attributes:
        x: float32 ``(T, *encoding_shape)``: ``game.encode`` of each decision state.
        pi: float32 ``(T, A)``: the search policy there (visit distribution, T = 1).
        z: float32 ``(T,)``: the final result of the player to move there.
        returns: float64 ``(num_players,)``: ``game.returns`` of the final state.
    """

    x: np.ndarray
    pi: np.ndarray
    z: np.ndarray
    returns: np.ndarray

    @property
    def moves(self) -> int:
        return len(self.z)


def play_game(game, search: MCTS, temperature_moves: int, rng: np.random.Generator,
              reuse_tree: bool = True) -> SelfPlayGame:
    """One game of ``search`` against itself (see the module docstring); ``rng`` draws the initial
    state, chance outcomes and the sampled moves (the trainer gives the search the same generator,
    so a run has one stream of draws)."""
    search.reset()
    state = game.initial_state(rng)
    xs, pis, movers = [], [], []
    while not game.is_terminal(state):
        if game.is_chance(state):
            state = game.resolve_chance(state, rng)
            continue
        pi = visit_distribution(search.search(state).visits, 1.0)
        xs.append(game.encode(state))
        pis.append(pi)
        movers.append(game.to_move(state))
        if len(movers) <= temperature_moves:
            action = int(rng.choice(len(pi), p=pi))
        else:
            action = int(np.argmax(pi))
        if reuse_tree:
            search.advance(action)
        else:
            search.reset()
        state = game.next_state(state, action)
    returns = np.asarray(game.returns(state), np.float64)
    return SelfPlayGame(np.asarray(xs, np.float32), np.asarray(pis, np.float32),
                        returns[np.asarray(movers, dtype=np.int64)].astype(np.float32), returns)


def augment(game, played: SelfPlayGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every image of every position under ``game.symmetries`` (the positions themselves when the
    game has none): ``(x (n, *encoding_shape), pi (n, A), z (n,))``, the images of a position
    next to each other and sharing its ``z``."""
    if not hasattr(game, "symmetries"):
        return played.x, played.pi, played.z
    xs, pis, zs = [], [], []
    for x, pi, z in zip(played.x, played.pi, played.z):
        for image_x, image_pi in game.symmetries(x, pi):
            xs.append(image_x)
            pis.append(image_pi)
            zs.append(z)
    return np.asarray(xs, np.float32), np.asarray(pis, np.float32), np.asarray(zs, np.float32)
