"""Terminal tic-tac-toe (`play.py ttt`): rules from a notebook, bad entries refused, real games."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.tictactoe.minimax import PerfectPlayer
from azcourse.tictactoe.rules import GameRules
from azcourse.tictactoe.terminal import DEFAULT_RULES, RulesUnavailable, TerminalGame, load_rules

ROOT = Path(__file__).resolve().parents[1]
BLANK = ROOT / "release" / "ttt1_mcts" / "ttt1_mcts.ipynb"


@pytest.fixture(scope="module")
def rules():
    return load_rules(DEFAULT_RULES)


def play(rules, opponent, human, human_first=True, seed=0):
    """A game where `human(board) -> square index` types the moves; returns the transcript."""
    lines = []
    boards = []

    def read(prompt):
        board = boards[-1]
        return str(human(board) + 1)

    game = TerminalGame(rules, opponent, seed, human_first, simulations=200, read=read, write=lines.append)
    original = game.human_move

    def human_move(board):
        boards.append(board)
        return original(board)
    game.human_move = human_move
    assert game.run() == 0
    return lines


def perfect_human(rules, seed):
    return PerfectPlayer(GameRules(rules["get_next_state"], rules["get_reward"], rules["get_valid_mask"],
                                   rules["flip_board"]), seed=seed)


@pytest.mark.parametrize("human_first", [True, False])
def test_perfect_against_perfect_is_always_a_draw(rules, human_first):
    for seed in range(5):
        lines = play(rules, "perfect", perfect_human(rules, seed + 100), human_first, seed)
        assert lines[-1] == "Draw.", lines


def test_the_perfect_player_never_loses_to_the_mcts_opponent_and_beats_random(rules):
    results = [play(rules, "mcts", perfect_human(rules, seed), seed % 2 == 0, seed)[-1] for seed in range(4)]
    assert set(results) <= {"Draw.", "You win!"}, results
    results = [play(rules, "random", perfect_human(rules, seed), True, seed)[-1] for seed in range(10)]
    assert results.count("You win!") >= 8 and "random wins." not in results, results


def test_bad_entries_are_refused_and_leave_the_board_alone(rules):
    entries = iter(["5", "5", "0", "10", "x", " 1 ", "quit"])
    lines = []
    game = TerminalGame(rules, "perfect", 3, True, read=lambda prompt: next(entries), write=lines.append)
    assert game.run() == 0
    refusals = [line for line in lines if line.startswith("Refused")]
    reply = int(lines[2].removeprefix("perfect plays square ").rstrip("."))
    free = " ".join(str(square) for square in range(1, 10) if square not in (5, reply))
    assert refusals == [f"Refused: square 5 is taken; free squares: {free}.",
                        "Refused: '0' is not a square; type a number from 1 to 9 (or quit).",
                        "Refused: '10' is not a square; type a number from 1 to 9 (or quit).",
                        "Refused: 'x' is not a square; type a number from 1 to 9 (or quit)."]
    assert lines[-1] == "Game left."
    grid_after_refusals = lines[-2]
    assert grid_after_refusals.count("X") == 2 and grid_after_refusals.count("O") == 2, lines


def test_the_computer_opens_when_asked(rules):
    lines = []
    entries = iter(["quit"])
    TerminalGame(rules, "mcts", 0, human_first=False, read=lambda prompt: next(entries), write=lines.append).run()
    assert lines[0] == "You play O against mcts." and lines[1].startswith("mcts plays square ")
    assert lines[2].count("X") == 1 and "O" not in lines[2].replace("You play O", "")


def test_a_blank_release_notebook_gives_a_clear_message():
    with pytest.raises(RulesUnavailable, match="NotImplementedError"):
        load_rules(BLANK)
    with pytest.raises(RulesUnavailable, match="not found"):
        load_rules(ROOT / "no_such_notebook.ipynb")


def test_the_command_line_plays_a_piped_game_and_refuses_bad_rules():
    done = subprocess.run([sys.executable, str(ROOT / "play.py"), "ttt", "--opponent", "perfect", "--seed", "2"],
                          input="5\n5\n1\n9\n3\n7\n2\n8\n4\n6\n", capture_output=True, text=True, timeout=300,
                          cwd="/")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Refused: square 5 is taken" in out and "You win!" not in out
    assert out.rstrip().splitlines()[-1] in ("Draw.", "perfect wins.", "Game left."), out
    bad = subprocess.run([sys.executable, str(ROOT / "play.py"), "ttt", "--rules", str(BLANK)], input="",
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "NotImplementedError" in bad.stderr and not bad.stdout


def test_a_notebook_whose_rules_crash_gives_a_clear_message(tmp_path):
    import json
    notebook = json.loads(DEFAULT_RULES.read_text())
    for cell in notebook["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "get_reward":
            cell["source"] = "def get_reward(board):\n    return board[42], False\n"
    broken = tmp_path / "ttt1_mcts.ipynb"
    broken.write_text(json.dumps(notebook))
    with pytest.raises(RulesUnavailable, match="IndexError"):
        load_rules(broken)
