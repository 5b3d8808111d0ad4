"""A person against an agent in a terminal, for any game of the game layer (``play.py hex``).

The person types a move in the game's own notation (``game.parse_action``) or a command: ``board``
(show the position again), ``help`` (how to type a move), ``quit``. A move that cannot be read or is
not legal is refused with the game's reason and asked for again; the game is left as it was. End of
input behaves like ``quit``. When input is not a terminal, each line read is echoed so that the
transcript reads like a session.

Any line is answered, never crashes the game: a line of more than ``MAX_LINE`` characters is refused
before the game reads it, the echo shows control characters escaped (``echoed``), and a parser that
fails with anything but ``IllegalAction``, or returns an action that is not legal, is a bug in the
game: the line is refused with a message that says so and names the error, and the game goes on.
``MAX_LINE``, ``line_problem`` and ``echoed`` serve the other games' terminals too.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .protocol import IllegalAction, check_action, quoted

COMMANDS = "Commands: board (show the position again), help, quit."
MAX_LINE = 200  # characters; a longer line is refused before any parser sees it


def line_problem(text: str) -> str | None:
    """Why a line read is refused before anything reads it (it is longer than ``MAX_LINE``
    characters), or None."""
    if len(text) > MAX_LINE:
        return f"the line has {len(text):,} characters; a move or a command has at most {MAX_LINE}."
    return None


def echoed(text: str) -> str:
    """A line read as a transcript shows it: unchanged when printable and at most ``MAX_LINE``
    characters, else ``quoted`` (escaped and cut), so an escape sequence read is never obeyed."""
    return text if len(text) <= MAX_LINE and text.isprintable() else quoted(text, 60)


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
                self.write(echoed(text))
            problem = line_problem(text)
            command = "" if problem else text.strip().lower()
            if command in ("q", "quit", "exit"):
                return None
            if command == "board":
                self.write(self.game.render(state))
            elif command == "help":
                self.write(f"{self.move_help}\n{COMMANDS}")
            else:
                action, problem = (None, problem) if problem else self.read_action(state, text)
                if problem is None:
                    return action
                self.write(f"Refused: {problem}")

    def read_action(self, state, text: str) -> tuple[int | None, str | None]:
        """``(action, None)`` when ``text`` names a legal action, else ``(None, reason)``. The reason
        is the game's ``IllegalAction`` message, or, when its parser fails otherwise or answers an
        illegal action, a sentence that reports the bug."""
        name = getattr(self.game, "name", "the game")
        try:
            action = self.game.parse_action(state, text)
        except IllegalAction as refusal:
            return None, str(refusal)
        except Exception as bug:  # noqa: BLE001 (any parser bug is reported, and the game goes on)
            return None, (f"{name}'s parse_action failed on {quoted(text)} with {type(bug).__name__}: "
                          f"{quoted(str(bug), 120)}. This is a bug in the game (it must raise IllegalAction "
                          "for text it cannot read); please report it.")
        try:
            return check_action(self.game, state, action), None
        except (TypeError, ValueError) as bug:
            return None, (f"{name}'s parse_action read {quoted(text)} as {action!r}, which is not a legal "
                          f"action here ({quoted(str(bug), 120)}). This is a bug in the game; please report it.")

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
