"""Azul (``Azul_Simulator``) behind the game layer (``azcourse.core.protocol``).

The engine's (160,) int16 board is the state, unchanged. Players are the absolute seats 0 and 1
(``current_seat``), so results and ``to_move`` never depend on whose view a board is canonical in.

Chance
    The refill that ends a round (the engine's ``NOOP``, action 180) is the chance step: a board whose
    offer is exhausted (and the game not over) is a chance state, ``resolve_chance`` plays ``NOOP``
    with the caller's generator, and ``legal_mask`` there is all False. ``NOOP`` is never a player's
    action, but the action space keeps the engine's 181 entries so that policies line up with
    the Azul network's outputs.
Turns
    The next round's starter (the holder of the first-player marker) moves right after the refill,
    so the same seat may move twice in a row; ``to_move`` reports it.
"""
from __future__ import annotations

import numpy as np

import Azul_Simulator as az
from Azul_Visuals import render_text

from ..core.protocol import IllegalAction


class Azul:
    """Two-player Azul: 181 actions (``NOOP`` never legal for a player), encoding ``(1499,)``
    float32 (``azcourse.azul.features.encode``) that ends with 6 features of each of the 180 takes
    (``action_features``: what the take scores, sends to the floor, completes; a network's
    ``action_head`` reads them)."""

    name = "azul"
    num_players = 2
    action_space_size = az.ACTION_DIM

    def __init__(self):
        from azcourse.azul import features

        self.encoder = features.encode  # board -> float32 (1499,), numba
        self.encoding_shape = (features.FEATURE_DIM,)
        self.action_features = (az.N_TAKES, features.ACTION_FEATURES)
        self._mask_of = (None, None)  # (board, its engine mask): boards are never mutated
        self._symmetry_maps = None

    def _valid_mask(self, board: np.ndarray) -> np.ndarray:
        """The engine's mask of ``board``, computed once for consecutive calls on the same board
        (a play loop asks ``is_chance`` and ``legal_mask`` of each position)."""
        if self._mask_of[0] is not board:
            self._mask_of = (board, az.get_valid_mask(board))
        return self._mask_of[1]

    def initial_state(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A new deal; the starting seat and the factories are drawn from ``rng``."""
        return az.init_board(rng)

    def to_move(self, board: np.ndarray) -> int:
        return az.current_seat(board)

    def legal_mask(self, board: np.ndarray) -> np.ndarray:
        mask = self._valid_mask(board).copy()
        mask[az.NOOP] = False
        return mask

    def next_state(self, board: np.ndarray, action: int) -> np.ndarray:
        if int(action) == az.NOOP:
            raise ValueError("illegal action: the refill (NOOP) is a chance step, use resolve_chance")
        return az.get_next_state(board, action)

    def is_terminal(self, board: np.ndarray) -> bool:
        return bool(board[az.GAME_OVER])

    def returns(self, board: np.ndarray) -> np.ndarray:
        reward, over = az.get_reward(board)
        result = np.zeros(2)
        if over:
            seat = az.current_seat(board)
            result[seat], result[1 - seat] = reward, -reward
        return result

    def scores(self, board: np.ndarray) -> tuple[int, int]:
        """Points by seat (end bonuses included once the game is over), for the arena's score columns."""
        state = az.AzulState.decode(board)
        return state.by_seat(0).score, state.by_seat(1).score

    def is_chance(self, board: np.ndarray) -> bool:
        return not board[az.GAME_OVER] and bool(self._valid_mask(board)[az.NOOP])

    def resolve_chance(self, board: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if not self.is_chance(board):
            raise ValueError("not a chance state: the refill happens only once the round's offer is exhausted")
        return az.get_next_state(board, az.NOOP, rng)

    def symmetry_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """The 120 orders of the five factories, which change nothing in the game, as index maps of the
        encoding and the policy (``features.factory_order_maps``): int64 ``(120, D)`` and ``(120, 181)``."""
        from azcourse.azul.features import factory_order_maps

        if self._symmetry_maps is None:
            self._symmetry_maps = factory_order_maps(self.action_features[1])
        return self._symmetry_maps

    def guide(self, board: np.ndarray) -> tuple[np.ndarray | None, float]:
        """The hand-written evaluation (``azcourse.azul.heuristics``): the softmax of the mover's projected
        score after each take (float64 (181,); None at the refill, a chance board) and ``tanh(projected
        score difference / 12)`` for the player to move."""
        from azcourse.azul import heuristics

        prior = None if self.is_chance(board) else heuristics.prior(board)
        return prior, float(heuristics.evaluate(board))

    def state_key(self, board: np.ndarray) -> bytes:
        return board.tobytes()

    def encode(self, board: np.ndarray) -> np.ndarray:
        return self.encoder(board)

    def render(self, board: np.ndarray) -> str:
        return render_text(board, color=False)

    def action_to_text(self, board, action: int) -> str:
        return az.action_to_string(action)

    def parse_action(self, board: np.ndarray, text: str) -> int:
        try:
            action = az.string_to_action(text)
        except ValueError as problem:
            raise IllegalAction(str(problem)) from None
        reason = az.illegal_reason(board, action)
        if reason is None and action == az.NOOP:
            reason = "NOOP is the refill, a chance step, not a player's move."
        if reason is not None:
            raise IllegalAction(reason)
        return action


class AzulReplies(Azul):
    """Azul whose encoding also says what each take leaves the opponent (``features.encode_replies``:
    ``(1859,)`` float32, 8 values a take, the last two the opponent's best reply gain after it and its
    change). The same game, rules and actions; only a network's inputs differ."""

    name = "azul_replies"

    def __init__(self):
        from azcourse.azul import features

        super().__init__()
        self.encoder = features.encode_replies
        self.encoding_shape = (features.REPLIES_FEATURE_DIM,)
        self.action_features = (az.N_TAKES, features.REPLIES_ACTION_FEATURES)
