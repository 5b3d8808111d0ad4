"""A person against an agent in a terminal, for any game of the game layer (``play.py hex``).

The person types a move in the game's own notation (``game.parse_action``) or a command: ``board``
(show the position again), ``help`` (how to type a move), ``quit``. A move that cannot be read or is
not legal is refused with the game's reason and asked for again; the game is left as it was. End of
input behaves like ``quit``. When input is not a terminal, each line read is echoed so that the
transcript reads like a session.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .protocol import IllegalAction

COMMANDS = "Commands: board (show the position again), help, quit."


class TerminalMatch:
    """One game: a person (player ``human``) against ``agent``.

    Args:
        game: a game of the layer.
        agent: the computer player (``azcourse.core.agents``).
        human: the person's player number.
        move_help: one sentence on how to type a move (shown at the start and by ``help``).
        names: display names of the players, indexed by player number.
        rng: draws chance outcomes, if the game has any.
        read, write: input and output (``input`` and ``print`` by default).
        echo: write each line read (for piped input).
    """

    def __init__(self, game, agent, human: int, move_help: str, names: tuple[str, ...],
                 rng: np.random.Generator, read: Callable = input, write: Callable = print, echo: bool = False):
        self.game, self.agent, self.human, self.move_help = game, agent, human, move_help
        self.names, self.rng, self.read, self.write, self.echo = names, rng, read, write, echo

    def ask(self, state) -> int | None:
        """A legal action from the person, asking again after a refused entry; None to leave."""
        while True:
            try:
                text = self.read("Your move: ")
            except EOFError:
                self.write("End of input.")
                return None
            if self.echo:
                self.write(text)
            command = text.strip().lower()
            if command in ("q", "quit", "exit"):
                return None
            if command == "board":
                self.write(self.game.render(state))
            elif command == "help":
                self.write(f"{self.move_help}\n{COMMANDS}")
            else:
                try:
                    return self.game.parse_action(state, text)
                except IllegalAction as problem:
                    self.write(f"Refused: {problem}")

    def result_text(self, state) -> str:
        results = self.game.returns(state)
        best = np.flatnonzero(results == results.max())
        if len(best) > 1:
            return "Draw."
        return "You win!" if best[0] == self.human else f"{self.agent.name} wins."

    def run(self) -> int:
        """Play to the end or until the person leaves; returns the exit code 0."""
        game = self.game
        state = game.initial_state(self.rng)
        self.write(f"You play {self.names[self.human]} against {self.agent.name}. {self.move_help}")
        self.write(COMMANDS)
        while not game.is_terminal(state):
            if game.is_chance(state):
                state = game.resolve_chance(state, self.rng)
                continue
            if game.to_move(state) == self.human:
                self.write(game.render(state))
                action = self.ask(state)
                if action is None:
                    self.write("You left the game.")
                    return 0
                self.write(f"You play {game.action_to_text(state, action)}.")
            else:
                action = self.agent.choose(state)
                self.write(f"{self.agent.name} plays {game.action_to_text(state, action)}.")
            self.agent.observe(action)
            state = game.next_state(state, action)
        self.write(game.render(state))
        self.write(self.result_text(state))
        return 0
