"""Tic-tac-toe in a terminal, with the rules and the search of a part-1 notebook.

The course pack keeps the tic-tac-toe rules and MCTS in the notebooks, where students write them,
and nowhere in the framework code they receive. This game therefore loads them from a notebook:
the solution notebook by default, or a student's own completed ``ttt1_mcts.ipynb``.

Squares are numbered like a phone keypad read row by row:

    1 | 2 | 3
    4 | 5 | 6
    7 | 8 | 9
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.agents import make_agent
from ..core.protocol import quoted
from ..core.terminal import echoed, line_problem
from .game import TicTacToe
from ..notebook_code import notebook_namespace
from .minimax import PerfectPlayer
from .rules import GameRules

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_RULES = REPO_ROOT / "solutions" / "ttt1_mcts" / "ttt1_mcts.ipynb"
OPPONENTS = ("random", "mcts", "uct", "perfect")
NEEDED = ("init_board", "flip_board", "get_valid_mask", "get_next_state", "get_reward", "mcts_eval",
          "get_action_prob", "toy_model")


class RulesUnavailable(Exception):
    """The notebook cannot provide working rules (missing, or its answers are not filled in)."""


def load_rules(notebook: Path) -> dict:
    """The part-1 functions defined by `notebook` (solution and provided cells).

    Raises:
        RulesUnavailable: the file is missing, does not define a needed function, or a needed
            function still raises NotImplementedError.
    """
    notebook = Path(notebook)
    if not notebook.is_file():
        raise RulesUnavailable(f"{notebook} not found. Pass --rules with your completed ttt1_mcts.ipynb "
                               f"(the rules and MCTS come from part 1's notebook).")
    try:
        namespace = notebook_namespace(notebook, "ttt_rules")
    except Exception as exc:  # a student's notebook may not even run
        raise RulesUnavailable(f"{notebook} does not run: {type(exc).__name__}: {exc}") from None
    missing = [name for name in NEEDED if name not in namespace]
    if missing:
        raise RulesUnavailable(f"{notebook} does not define {', '.join(missing)}")
    try:
        board = namespace["init_board"]()
        namespace["get_reward"](namespace["get_next_state"](board, 4))
        namespace["mcts_eval"](board, namespace["toy_model"], 2)
    except NotImplementedError:
        raise RulesUnavailable(f"{notebook}: fill in get_next_state, get_reward and the MCTS cells "
                               "first (they still raise NotImplementedError)") from None
    except Exception as exc:
        raise RulesUnavailable(f"{notebook}: its rules or MCTS fail on a first move: "
                               f"{type(exc).__name__}: {exc}") from None
    return namespace


def square_grid(board: np.ndarray, human_is_x: bool) -> str:
    """The board with X and O, and the number of each empty square (board seen by the mover)."""
    marks = {1: "X", -1: "O"} if human_is_x else {1: "O", -1: "X"}
    cells = [marks.get(int(v), str(i + 1)) for i, v in enumerate(board)]
    rows = [" " + " | ".join(cells[r * 3:r * 3 + 3]) for r in range(3)]
    return "\n---+---+---\n".join(rows)


class TerminalGame:
    """One game: a person against `opponent` by square numbers: random, mcts (the notebook's search
    with the toy model), uct (the library's plain UCT with random rollouts, on the library's
    tic-tac-toe) or perfect."""

    def __init__(self, rules: dict, opponent: str, seed: int, human_first: bool, simulations: int = 200,
                 read=input, write=print, echo: bool = False):
        self.ns, self.opponent, self.human_first = rules, opponent, human_first
        self.simulations, self.read, self.write, self.echo = simulations, read, write, echo
        self.rng = np.random.default_rng(seed)
        game_rules = GameRules(rules["get_next_state"], rules["get_reward"], rules["get_valid_mask"],
                               rules["flip_board"])
        self.perfect = PerfectPlayer(game_rules, seed=seed) if opponent == "perfect" else None
        self.uct = (make_agent("uct", TicTacToe(), np.random.default_rng([seed, 2]), simulations)
                    if opponent == "uct" else None)

    def computer_move(self, board: np.ndarray) -> int:
        if self.opponent == "random":
            return int(self.rng.choice(np.flatnonzero(self.ns["get_valid_mask"](board))))
        if self.opponent == "perfect":
            return self.perfect(board)
        if self.opponent == "uct":
            return self.uct.choose(TicTacToe().from_mover_board(board))
        tree, root = self.ns["mcts_eval"](board, self.ns["toy_model"], self.simulations)
        return int(np.argmax(self.ns["get_action_prob"](tree, root, temperature=0)))

    def human_move(self, board: np.ndarray) -> int | None:
        """A legal square index from the player, asking again after a bad entry; None to leave."""
        valid = self.ns["get_valid_mask"](board)
        while True:
            try:
                text = self.read("Your move (1-9): ")
            except EOFError:
                return None
            if self.echo:  # piped input: show what was "typed" (escaped if unprintable)
                self.write(echoed(text))
            problem = line_problem(text)
            if problem:
                self.write(f"Refused: {problem}")
                continue
            text = text.strip().lower()
            if text in ("q", "quit", "exit"):
                return None
            if not (len(text) == 1 and text in "123456789"):
                self.write(f"Refused: {quoted(text)} is not a square; type a number from 1 to 9 (or quit).")
                continue
            if not valid[int(text) - 1]:
                self.write(f"Refused: square {text} is taken; free squares: "
                           f"{' '.join(str(i + 1) for i in np.flatnonzero(valid))}.")
                continue
            return int(text) - 1

    def run(self) -> int:
        """Play to the end (or until the player leaves); returns the exit code 0."""
        board = self.ns["init_board"]()
        human_to_move = self.human_first
        human_is_x = self.human_first  # X moves first
        self.write(f"You play {'X' if human_is_x else 'O'} against {self.opponent}.")
        while True:
            if human_to_move:
                self.write(square_grid(board, human_is_x))
                action = self.human_move(board)
                if action is None:
                    self.write("Game left.")
                    return 0
            else:
                action = self.computer_move(board)
                self.write(f"{self.opponent} plays square {action + 1}.")
            if self.uct is not None:
                self.uct.observe(action)  # keep the search tree of the position reached
            board = self.ns["flip_board"](self.ns["get_next_state"](board, action))
            reward, done = self.ns["get_reward"](board)
            if done:
                # `reward` is for the player to move now, i.e. the one who did not just move.
                self.write(square_grid(self.ns["flip_board"](board) if human_to_move else board, human_is_x))
                mover_result = -reward
                if mover_result == 0:
                    self.write("Draw.")
                else:
                    self.write("You win!" if (mover_result > 0) == human_to_move else f"{self.opponent} wins.")
                return 0
            human_to_move = not human_to_move
