"""OpenSpiel's MCTS bot as a player of the game layer: the independent yardstick of the pack's networks.

OpenSpiel (``pip install -r requirements-dev.txt``; never in a student bundle) is DeepMind's
framework of games and game-playing algorithms, written by others. ``OpenSpielMCTSAgent`` plays one
of the pack's games with OpenSpiel's own C++ implementation of that game and its C++ ``MCTSBot``
(UCT, random rollouts, the MCTS-Solver's proven wins and losses), so a match against it measures a
network against search that shares no code with the pack.

Games and moves (``SPIEL_GAMES``): tic-tac-toe is ``tic_tac_toe``, ``othello8`` is ``othello`` (OpenSpiel
has only the 8x8 board), ``hex<n>`` is ``hex(board_size=n)``. In all of them an action is the same
number on both sides (a square or cell ``row * n + col``; Othello's pass ``n * n``) and player 0 moves
first; ``to_spiel`` and ``from_spiel`` check it, and tests/test_openspiel_agent.py plays random games
through both implementations with 0 disagreements on legal moves, the player to move and the results.
"""
from __future__ import annotations

import numpy as np

# family or name of the game layer -> (OpenSpiel game name, parameters for a game of that name)
SPIEL_GAMES = {
    "tictactoe": lambda game: ("tic_tac_toe", {}),
    "othello8": lambda game: ("othello", {}),  # by name: the family would take othello4 and othello6 too
    "hex": lambda game: ("hex", {"board_size": game.size}),
}
BOT = {"uct_c": 2.0, "rollouts": 1, "max_memory_mb": 1000, "solve": True}  # OpenSpiel's mcts example


def spiel_game(game):
    """The OpenSpiel game of ``game`` (a game of the layer).

    Raises:
        ValueError: OpenSpiel has no such game (its Othello is 8x8 only).
    """
    import pyspiel

    family = game.name.rstrip("0123456789")
    make = SPIEL_GAMES.get(game.name) or SPIEL_GAMES.get(family)
    if make is None:
        raise ValueError(f"no OpenSpiel game for {game.name}; known: tictactoe, othello8, hex<n>")
    name, params = make(game)
    return pyspiel.load_game(name, params)


def to_spiel(game, action: int) -> int:
    """The OpenSpiel action of the pack's ``action`` (the same number, checked to be in range)."""
    if not 0 <= int(action) < game.action_space_size:
        raise ValueError(f"{game.name} has actions 0..{game.action_space_size - 1}, got {action}")
    return int(action)


def from_spiel(game, action: int) -> int:
    """The pack's action of OpenSpiel's ``action`` (the same number, checked to be in range)."""
    return to_spiel(game, action)


class OpenSpielMCTSAgent:
    """OpenSpiel's C++ ``MCTSBot`` (random rollouts, ``BOT`` settings) following the game in OpenSpiel.

    It keeps OpenSpiel's state of the game, starting from the initial state and applying every
    observed move; ``choose`` checks that both implementations agree on the player to move and the
    legal moves before it asks the bot. One agent plays one game (``play_match`` makes a fresh one
    per game).

    Args:
        game: the game of the layer (see ``SPIEL_GAMES``).
        rng: seeds the bot (``numpy.random.Generator`` or a seed).
        simulations: the bot's simulations per move.
        name: label in match summaries.
    """

    def __init__(self, game, rng=None, simulations: int = 1000, name: str | None = None):
        import pyspiel

        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        seed = int(rng.integers(2 ** 31))
        self.game, self.spiel = game, spiel_game(game)
        evaluator = pyspiel.RandomRolloutEvaluator(BOT["rollouts"], seed)
        self.bot = pyspiel.MCTSBot(self.spiel, evaluator, BOT["uct_c"], simulations, BOT["max_memory_mb"],
                                   BOT["solve"], seed, False)
        self.state = self.spiel.new_initial_state()
        self.name = name or f"openspiel-mcts{simulations}"

    def choose(self, state) -> int:
        legal = np.flatnonzero(self.game.legal_mask(state)).tolist()
        if self.state.current_player() != self.game.to_move(state) or \
                sorted(from_spiel(self.game, a) for a in self.state.legal_actions()) != legal:
            raise RuntimeError(f"OpenSpiel's {self.spiel} and the pack's {self.game.name} disagree on the position "
                               f"(legal moves {self.state.legal_actions()} there, {legal} here)")
        return from_spiel(self.game, self.bot.step(self.state))

    def observe(self, action: int) -> None:
        self.state.apply_action(to_spiel(self.game, action))
