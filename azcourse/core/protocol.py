"""The game layer: one small interface that search, agents and play loops use for every game.

This is the "state manager" of the Hex assignment: all game logic lives behind it, and the generic
search (``azcourse.core.mcts``) knows nothing else about a game.

Contract
--------
States
    A state is an opaque value owned by the game. It is never mutated after it is made: every
    method that returns a state returns a new one (or an unchanged input), so a search may keep
    states in its tree and share them freely. ``state_key(state)`` gives a hashable key that is
    equal for equal positions (the search uses it to recognise a position it already holds).
Players
    Players are numbered ``0 .. num_players - 1``. ``to_move(state)`` is the player who chooses the
    next action. Nothing assumes that turns alternate: the same player may move twice in a row (in
    Azul the holder of the first-player marker opens the next round, even when that seat made the
    last move of the round before), so a search must always ask ``to_move``. A player who cannot act
    is never skipped silently: where a game's rules let a player pass, the pass is an action of its
    own, and the player must play it (Othello's pass, the only legal action when the mover has no
    placing move; after it the other player moves).
Actions
    The action space is fixed: ``action_space_size`` (A) integers ``0 .. A - 1`` for every state
    of the game, so a network can have one policy output per action. ``legal_mask(state)`` is a
    ``bool`` array of shape ``(A,)``; it has at least one True entry at a decision state and none
    at a terminal or chance state. ``next_state(state, action)`` plays a legal action for
    ``to_move(state)`` and raises ``ValueError`` for an illegal one.
Chance
    A state where nature moves (Azul's refill of the factories) is a *chance state*:
    ``is_chance(state)`` is True, it has no legal action, and ``resolve_chance(state, rng)`` draws
    one outcome with the caller's ``numpy.random.Generator``. Outcomes are sampled, never
    enumerated: Azul's refill has far too many. A game without chance returns False and raises in
    ``resolve_chance``.
End and results
    ``is_terminal(state)`` is True once the game is over. ``returns(state)`` is a float64 array of
    shape ``(num_players,)``: for a terminal state each player's result (+1 win, -1 loss, 0 draw
    or shared victory, for two-player games); all zeros before the end. Results are per player,
    so a search backs up ``returns[p]`` for the player ``p`` who chose at each node and never
    negates values.
Encoding and text
    ``encode(state)`` is a float32 array of shape ``encoding_shape``, the network input; it tells
    who is to move (a view from the mover, or an explicit player indicator). ``render(state)`` is a multi-line string for a terminal.
    ``action_to_text(state, action)`` names an action the way a person types it, and
    ``parse_action(state, text)`` reads such text back, raising ``IllegalAction`` with a sentence
    saying why when the text is not a legal action here; it takes any text a person may type
    (huge numbers, emoji, control characters, a megabyte line) and raises nothing else.
Optional methods
    A game may define these; code that uses them checks ``hasattr`` first.
    ``scores(state)``: the final scores per player when the game keeps points (Azul), reported by
    the arena next to the returns.
    ``symmetries(encoded, policy)``: the board symmetries as a list of ``(encoded, policy)`` pairs,
    the identity first: ``encoded`` is a float32 array of shape ``encoding_shape`` (an
    ``encode`` output) and ``policy`` a float array ``(A,)`` over the action space; each pair is
    the encoding of the transformed position and the policy with every action moved to its image
    (an action that no symmetry moves, such as a pass, keeps its index). The list has the same
    length and order for every input, so transforming a legal mask with the same call lines it
    up with the policies. A position and its images have the same value. The AlphaZero trainer
    (``azcourse.alphazero``) stores every image of each self-play position. Tic-tac-toe has 8
    (the square's rotations and reflections), Hex 2 (the identity and the half turn), Othello and Tak
    8 (``azcourse.core.square_symmetry``).
    ``symmetry_maps() -> (x_maps, pi_maps)``: symmetries as index maps, for a game with too many to store
    every image (Azul's 120 orders of its factories): int arrays ``(K, D)`` and ``(K, A)``, ``D`` the size
    of ``encoding_shape``, such that image ``k`` of ``(encoded, policy)`` is
    ``(encoded.reshape(-1)[x_maps[k]].reshape(encoding_shape), policy[pi_maps[k]])``, row 0 the identity.
    The AlphaZero trainer draws one image per minibatch row from them (``sample_symmetries``).
    ``guide(state) -> (prior, value)``: a hand-written evaluation of a state that is not terminal: ``prior``
    a float64 array ``(A,)`` of move probabilities, zero on illegal actions (None at a chance state),
    ``value`` a float in [-1, 1], the result expected by the player to move (two players, zero-sum).
    ``GuidedEvaluator`` (``azcourse.core.evaluators``) mixes it into a network's; the AlphaZero trainer's
    self-play does so with ``guide_prior_mix`` and ``guide_value_mix`` (Azul: its projected score).

Optional: a fast random rollout
    A game may also provide ``random_playout(state, rng) -> returns``: the float64 array
    ``(num_players,)`` of ``returns`` at the end of a game played on from ``state`` with uniformly
    random legal actions for every player (and chance outcomes drawn with ``rng`` as
    ``resolve_chance`` draws them); ``returns(state)`` itself if ``state`` is terminal. Its results
    must have the same distribution as such a move-by-move game (``RolloutEvaluator(random_policy)``
    in ``azcourse.core.evaluators``), which uses it in place of the move-by-move rollout when the
    game has it; it may draw from ``rng`` in another order, and it may return a shared read-only
    array. It exists for speed: one call instead of a ``legal_mask`` and a new state per move (Hex
    fills the board at random and checks for a chain once). It is not part of ``Game`` below, so
    games without it still satisfy the protocol.

``check_action(game, state, action)`` below is the shared legality check implementations use, and
``quoted(text)`` the bounded, escaped form in which a ``parse_action`` message shows what was typed.
"""
from __future__ import annotations

from typing import Hashable, Protocol, runtime_checkable

import numpy as np


class IllegalAction(ValueError):
    """An action, or a person's text for one, that is not legal in this state; the message says why."""


def quoted(text: str, limit: int = 40) -> str:
    """``text`` as a Python literal for a message about it, e.g. ``'c9'``: control and other
    unprintable characters escaped (a terminal shows them, never obeys them), and text longer than
    ``limit`` characters cut, with its length noted: ``'aaaa…' (5,000 characters)``."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


@runtime_checkable
class Game(Protocol):
    """What a game provides; see the module docstring for the full contract.

    Attributes:
        name: short name, e.g. ``"hex5"``.
        num_players: number of players P (players are ``0 .. P - 1``).
        action_space_size: number of actions A (fixed for the game).
        encoding_shape: shape of ``encode(state)``.
    """

    name: str
    num_players: int
    action_space_size: int
    encoding_shape: tuple[int, ...]

    def initial_state(self, rng: np.random.Generator | None = None):
        """The start of a game. Games with a random setup (Azul's deal) draw from ``rng``."""

    def to_move(self, state) -> int:
        """The player (0-based) who chooses the next action at a decision state."""

    def legal_mask(self, state) -> np.ndarray:
        """``bool`` array of shape ``(action_space_size,)``: True where an action is legal."""

    def next_state(self, state, action: int):
        """The new state after ``to_move(state)`` plays ``action``; ``state`` is left unchanged.

        Raises:
            ValueError: ``action`` is not legal in ``state``.
        """

    def is_terminal(self, state) -> bool:
        """True when the game is over."""

    def returns(self, state) -> np.ndarray:
        """float64 array ``(num_players,)``: each player's final result; zeros before the end."""

    def is_chance(self, state) -> bool:
        """True when nature moves next (no player chooses)."""

    def resolve_chance(self, state, rng: np.random.Generator):
        """One random outcome of a chance state, drawn with ``rng``."""

    def state_key(self, state) -> Hashable:
        """A hashable key, equal exactly for equal positions."""

    def encode(self, state) -> np.ndarray:
        """float32 array of shape ``encoding_shape``: the network input."""

    def render(self, state) -> str:
        """The position as text for a terminal."""

    def action_to_text(self, state, action: int) -> str:
        """How a person names ``action`` (what ``parse_action`` reads back)."""

    def parse_action(self, state, text: str) -> int:
        """The legal action that ``text`` names. ``text`` is whatever a person typed: any ``str``
        of any length (a number of thousands of digits, emoji, control characters, a megabyte).

        Raises:
            IllegalAction: the text is malformed or names an illegal action; the message says why,
                in a few lines at most (show the text with ``quoted``). Any other exception is a bug.
        """


def check_action(game: Game, state, action: int) -> int:
    """``action`` as an int if it is legal in ``state``.

    Raises:
        ValueError: the game is over, nature moves next, the index is outside the action space, or
            the action is not legal here.
    """
    action = int(action)
    if game.is_terminal(state):
        raise ValueError("illegal action: the game is over")
    if game.is_chance(state):
        raise ValueError("illegal action: nature moves next (use resolve_chance)")
    if not 0 <= action < game.action_space_size:
        raise ValueError(f"illegal action: {action} is outside 0..{game.action_space_size - 1}")
    if not game.legal_mask(state)[action]:
        raise ValueError(f"illegal action: {game.action_to_text(state, action)} is not legal here")
    return action
