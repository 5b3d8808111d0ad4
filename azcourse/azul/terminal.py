"""Azul against a computer opponent in a terminal, by move codes (the engine behind ``play.py azul``).

The person types a move code (``5B2``, ``CWF``: source, colour, destination) or a command: ``help``
(the legal codes, grouped by source and colour), ``board`` (show the board again), ``quit``. A refused
code is explained with ``take_action_from_string``'s reason and asked for again; the game is left
untouched. End of input behaves like ``quit``, so the game runs with piped input too; when input is
not a terminal, each line read is echoed so that the transcript reads like a session (control
characters escaped). A blank line asks again; any other line is played or refused with a reason,
a line of more than ``azcourse.core.terminal.MAX_LINE`` characters before the engine reads it.

Randomness: ``session_rngs(seed)`` gives two independent generators, one for the deal (the starting
seat, the factories and every refill) and one for the opponent's choices, so a seed fixes the deal
of a game whatever the person plays, and a test can replay a whole game.
"""
from __future__ import annotations

import sys
from typing import Callable, TextIO

import numpy as np

from Azul_Simulator import (
    COLOUR_CODES, COLOUR_NAMES, MAX_ROUNDS, NOOP, AzulState, action_to_string, current_seat,
    describe_action, get_next_state, get_reward, get_valid_mask, illegal_reason, init_board,
    string_to_action, take_action_from_string, winner,
)
from Azul_Visuals import render_text
from azcourse.azul.checkpoints import make_model_agent
from azcourse.azul.agents import AGENTS, make_agent
from azcourse.core.terminal import echoed, line_problem

COMMANDS = "Commands: help (your legal moves), board (show the board), quit (leave the game)."
CODE_HELP = ("A move code is source (C = centre, 1-5 = factory), colour (B Y R D W; D = black), "
             "destination (1-5 = pattern line, F = floor): e.g. 5B2, CWF.")


def session_rngs(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """``(deal_rng, opponent_rng)`` of a terminal game: ``np.random.default_rng(seed)`` for the deal
    and refills, ``np.random.default_rng([seed, 1])`` for the opponent."""
    return np.random.default_rng(seed), np.random.default_rng([seed, 1])


def legal_moves_text(board: np.ndarray) -> str:
    """The legal move codes of the player to move, one line per source and colour, e.g.
    ``  Factory 3, Red:     3R1 3R2 3RF``."""
    groups: dict[str, list[str]] = {}  # action indices run source by source, colour by colour
    for code in map(action_to_string, np.flatnonzero(get_valid_mask(board))):
        where = "Centre" if code[0] == "C" else f"Factory {code[0]}"
        groups.setdefault(f"{where}, {COLOUR_NAMES[COLOUR_CODES.index(code[1])]}:", []).append(code)
    width = max(map(len, groups), default=0)
    lines = [f"  {label:<{width}}  {' '.join(codes)}" for label, codes in groups.items()]
    return "\n".join(["Your legal moves:", *lines, CODE_HELP, COMMANDS])


def result_text(board: np.ndarray, names: dict[int, str]) -> str:
    """The final result of a finished game: both scores and the winner (rule 20's tie-break)."""
    state = AzulState.decode(board)
    players = [state.by_seat(seat) for seat in (0, 1)]
    scores = [p.score for p in players]
    rows = [p.complete_rows() for p in players]
    table = ", ".join(f"{names[seat]} {scores[seat]}" for seat in (0, 1))
    best = winner(scores, rows)
    if best is None:
        return f"Final score: {table}. Shared victory (equal points and {rows[0]} complete rows each)."
    tie_break = (f", on complete rows ({rows[best]} to {rows[1 - best]})"
                 if scores[0] == scores[1] else "")
    return f"Final score: {table}. {names[best]} won{tie_break}."


class TerminalGame:
    """One game between a person and an agent, read from ``read_line`` and written to ``out``.

    Args:
        opponent: a name in ``azcourse.azul.agents.AGENTS``.
        seed: fixes the deal (see ``session_rngs``).
        human_seat: the person's absolute seat (0 or 1); who starts round 1 is drawn by the deal
            RNG (rule 3).
        color: ANSI colours in the board pictures.
        read_line: ``read_line(prompt) -> str``, raising EOFError at end of input (``input``).
        out: where everything is written (default: ``sys.stdout``).
        echo: write each line read after its prompt (for piped input).
    """

    def __init__(self, opponent: str, seed: int, human_seat: int, color: bool,
                 read_line: Callable[[str], str] = input, out: TextIO | None = None,
                 echo: bool = False):
        self.opponent = make_agent(opponent) if opponent in AGENTS else make_model_agent(opponent)
        self.deal_rng, self.opponent_rng = session_rngs(seed)
        self.human_seat = human_seat
        self.names = {human_seat: "You", 1 - human_seat: opponent}
        self.color = color
        self.read_line, self.out, self.echo = read_line, out or sys.stdout, echo
        self.board = init_board(self.deal_rng)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def show_board(self) -> None:
        self.say(render_text(self.board, color=self.color, seat_names=self.names))

    def run(self) -> int:
        """Play until the game ends or the person leaves; returns the exit code (0)."""
        self.say(f"Azul: you are seat {self.human_seat}, playing {self.names[1 - self.human_seat]}. "
                 f"{self.starts(current_seat(self.board))} round 1.")
        self.say(CODE_HELP)
        self.say(COMMANDS)
        self.show_board()
        while not get_reward(self.board)[1]:
            if get_valid_mask(self.board)[NOOP]:
                self.end_round()
            elif current_seat(self.board) == self.human_seat:
                if not self.human_turn():
                    return 0
            else:
                self.opponent_turn()
        self.say(result_text(self.board, self.names))
        return 0

    def human_turn(self) -> bool:
        """Read commands until the person plays a legal move (True) or leaves (False)."""
        while True:
            try:
                text = self.read_line("Your move: ")
            except EOFError:
                self.say("\nEnd of input: the game is left unfinished.")
                return False
            if self.echo:
                self.say(echoed(text))
            problem = line_problem(text)
            if problem:
                self.say(f"Refused: {problem} Type help for your legal moves.")
                continue
            command = text.strip().lower()
            if command in ("quit", "exit"):
                self.say("You left the game.")
                return False
            if command == "help":
                self.say(legal_moves_text(self.board))
            elif command == "board":
                self.show_board()
            elif command:
                self.check_code(text)
                new_board, error = take_action_from_string(self.board, text, self.deal_rng)
                if error is None:
                    self.play(new_board, string_to_action(text), "You play")
                    return True
                self.say(f"Refused: {error} Type help for your legal moves.")

    def check_code(self, text: str) -> None:
        """Called with every move code typed, before the engine reads it (a hook: nothing here)."""

    def opponent_turn(self) -> None:
        action = self.opponent(self.board, self.opponent_rng)
        new_board = get_next_state(self.board, action, self.deal_rng)
        self.play(new_board, action, f"{self.names[1 - self.human_seat]} plays")

    def play(self, new_board: np.ndarray, action: int, who: str) -> None:
        """Announce a take (by code and sentence), make ``new_board`` current and show it."""
        self.say(f"{who} {action_to_string(action)}: {describe_action(action)}.")
        self.board = new_board
        self.show_board()

    def end_round(self) -> None:
        """Apply the NOOP (wall-tiling, then refill) and sum up the round."""
        before = AzulState.decode(self.board)
        self.board = get_next_state(self.board, NOOP, self.deal_rng)
        after = AzulState.decode(self.board)
        gains = ", ".join(f"{self.names[seat]} {after.by_seat(seat).score} "
                          f"({after.by_seat(seat).score - before.by_seat(seat).score:+d})"
                          for seat in (0, 1))
        self.say(f"End of round {before.round}: wall-tiling. Scores: {gains}.")
        if after.game_over:
            row_done = any(p.complete_rows() for p in after.players)
            reason = ("a horizontal wall row is complete" if row_done
                      else f"the cap of {MAX_ROUNDS} rounds is reached")
            self.say(f"The game ends: {reason}. End bonuses are included in the scores below.")
        else:
            self.say(f"Round {after.round}: the factories are refilled; {self.starts(after.seat)}.")
        self.show_board()

    def starts(self, seat: int) -> str:
        """'You start' or '<opponent> starts'."""
        return "You start" if seat == self.human_seat else f"{self.names[seat]} starts"


class NotebookGame(TerminalGame):
    """A game in a notebook (``input`` is Jupyter's input box) that also checks the student's own
    ``decode_move(code) -> action`` and ``legal_takes(state) -> bool (180,)`` on every code typed:
    where they disagree with the engine it says so ("Check: ..."); the engine's reading is played.

    Args:
        opponent: a name of ``AGENTS`` or a model spec such as ``strong+search:0.5s``.
        decode_move, legal_takes: the student's functions (None: not checked).
        Other arguments as ``TerminalGame`` (no colours: notebooks show ANSI codes poorly).
    """

    def __init__(self, opponent: str, seed: int, human_seat: int = 0, decode_move=None, legal_takes=None,
                 read_line: Callable[[str], str] = input, out: TextIO | None = None, echo: bool = False):
        super().__init__(opponent, seed, human_seat, color=False, read_line=read_line, out=out, echo=echo)
        self.decode_move, self.legal_takes = decode_move, legal_takes

    def check_code(self, text: str) -> None:
        for note in student_disagreements(self.board, text, self.decode_move, self.legal_takes):
            self.say(f"Check: {note}")


def _attempt(action):
    try:
        return action(), None
    except Exception as error:  # noqa: BLE001 (the student's function: any error is reported)
        return None, f"{type(error).__name__}: {error}"


def student_disagreements(board: np.ndarray, text: str, decode_move=None, legal_takes=None) -> list[str]:
    """Where the student's ``decode_move`` / ``legal_takes`` disagree with the engine on ``text``
    in ``board`` (sentences; empty when they agree or are not given)."""
    notes = []
    engine, engine_error = _attempt(lambda: string_to_action(text))
    if decode_move is not None:
        mine, error = _attempt(lambda: int(decode_move(text)))
        if engine_error and not error:
            notes.append(f"your decode_move({text!r}) gives {mine}, but the engine refuses the code "
                         f"({engine_error.split(': ', 1)[-1]})")
        elif error and not engine_error:
            notes.append(f"your decode_move({text!r}) fails ({error}); the engine reads it as {engine} "
                         f"({action_to_string(engine)})")
        elif not error and mine != engine:
            notes.append(f"your decode_move({text!r}) gives {mine}; the engine reads it as {engine}")
    if legal_takes is not None and engine_error is None and engine != NOOP:
        legal = bool(get_valid_mask(board)[engine])
        mask, error = _attempt(lambda: np.asarray(legal_takes(AzulState.decode(board)), dtype=bool))
        if error or mask.shape != (180,):
            notes.append(f"your legal_takes failed on this position ({error or f'shape {mask.shape}'})")
        elif bool(mask[engine]) != legal:
            why = illegal_reason(board, engine) if not legal else "the rules allow it"
            notes.append(f"your legal_takes says {action_to_string(engine)} is {'legal' if mask[engine] else 'illegal'}, "
                         f"the engine says {'legal' if legal else 'illegal'}: {why}")
    return notes
