"""``play.py azul`` driven through a pipe, as a person would type. The test replays the same seeded
game with the engine (``session_rngs`` gives the CLI's generators) to know the legal codes, the
opponent's replies and the final scores."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from Azul_Simulator import (
    NOOP, action_to_string, current_seat, get_next_state, get_reward, get_valid_mask,
    illegal_reason, init_board, string_to_action,
)
from Azul_Visuals import render_text
from azcourse.azul.agents import greedy_agent, make_agent
from azcourse.azul.terminal import result_text, session_rngs

ROOT = Path(__file__).resolve().parents[1]
HUMAN_SEAT = 0
NAMES = {HUMAN_SEAT: "You", 1 - HUMAN_SEAT: "random"}


def run_cli(stdin: str, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "play.py"), "azul", *options],
                          input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)


def replay(seed: int, opponent: str = "random") -> list[dict]:
    """The game the CLI plays for ``seed`` when the person plays the greedy agent's moves: one
    entry per human turn with the board shown then, the code played and the opponent's replies
    until the next human turn. The last entry has ``code`` None and the final board."""
    deal_rng, opponent_rng = session_rngs(seed)
    agent, own_rng = make_agent(opponent), np.random.default_rng(99)
    board, turns, replies = init_board(deal_rng), [], []
    while not get_reward(board)[1]:
        if get_valid_mask(board)[NOOP]:
            board = get_next_state(board, NOOP, deal_rng)
        elif current_seat(board) == HUMAN_SEAT:
            action = greedy_agent(board, own_rng)
            turns.append({"board": board, "code": action_to_string(action), "replies": replies})
            replies = []
            board = get_next_state(board, action)
        else:
            action = agent(board, opponent_rng)
            replies.append(action_to_string(action))
            board = get_next_state(board, action)
    turns.append({"board": board, "code": None, "replies": replies})
    return turns


def first_illegal_take(board: np.ndarray) -> str:
    """A well-formed code that is illegal on ``board`` (a colour absent from its source)."""
    mask = get_valid_mask(board)
    return action_to_string(next(a for a in range(NOOP) if not mask[a]))


def test_bad_input_is_refused_and_leaves_the_game_untouched():
    seed = 11
    turns = replay(seed)
    start, second = turns[0], turns[1]
    illegal = first_illegal_take(start["board"])
    script = ["zz", "5Q2", illegal, "help", "board", start["code"].lower(), " " + second["code"] + " ",
              "quit"]
    proc = run_cli("\n".join(script) + "\n", "--opponent", "random", "--seed", str(seed), "--no-color")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "Refused: A move code has 3 characters" in out
    assert "Refused: Unknown colour 'Q'" in out
    assert f"Refused: {illegal_reason(start['board'], string_to_action(illegal))}" in out
    # `board` reprints the very position the bad codes were typed on.
    after_board_cmd = out.split("Your move: board\n", 1)[1]
    assert after_board_cmd.startswith(render_text(start["board"], color=False, seat_names=NAMES))
    # The valid codes still work, and the opponent answers exactly as in the replayed game.
    assert f"You play {start['code']}:" in out
    assert f"You play {second['code']}:" in out
    for code in second["replies"]:
        assert f"random plays {code}:" in out
    assert out.rstrip().endswith("You left the game.")


def test_help_lists_exactly_the_legal_codes():
    seed = 11
    board = replay(seed)[0]["board"]
    proc = run_cli("help\n", "--opponent", "random", "--seed", str(seed), "--no-color")
    assert proc.returncode == 0, proc.stderr
    help_block = proc.stdout.split("Your legal moves:\n", 1)[1].split("A move code is", 1)[0]
    listed = re.findall(r"\b[C1-5][BYRDW][1-5F]\b", help_block)
    legal = [action_to_string(a) for a in np.flatnonzero(get_valid_mask(board))]
    assert sorted(listed) == sorted(legal)
    assert "Factory" in help_block or "Centre" in help_block


def test_end_of_input_exits_cleanly_without_colour():
    proc = run_cli("", "--opponent", "greedy", "--seed", "5")  # no --no-color: a pipe is no tty
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert "End of input" in proc.stdout
    assert "\x1b[" not in proc.stdout


def test_a_whole_game_piped_to_the_end():
    seed = 3
    turns = replay(seed)
    codes = [t["code"] for t in turns[:-1]]
    proc = run_cli("\n".join(codes) + "\n", "--opponent", "random", "--seed", str(seed), "--no-color")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("You play ") == len(codes)
    assert "Refused" not in proc.stdout
    assert "End of round 1: wall-tiling." in proc.stdout
    final = turns[-1]["board"]
    assert proc.stdout.rstrip().endswith(result_text(final, NAMES))
    assert "Final score: You " in proc.stdout


def test_unknown_opponent_is_a_usage_error():
    proc = run_cli("", "--opponent", "grandmaster")
    assert proc.returncode == 2
    assert "invalid choice: 'grandmaster'" in proc.stderr


def test_help_of_every_command_prints():
    for args in ([], ["azul"], ["arena"]):
        done = subprocess.run([sys.executable, str(ROOT / "play.py"), *args, "--help"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "usage: play.py" in done.stdout


def test_arena_prints_a_json_summary_that_counts_every_game():
    done = subprocess.run([sys.executable, str(ROOT / "play.py"), "arena", "greedy", "random", "--games", "6", "--seed", "1",
                           "--workers", "1", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["wins"] + summary["draws"] + summary["losses"] == 6
    assert summary["wins"] >= 5, "greedy beats random"


def test_trained_models_are_opponents():
    done = run_cli("quit\n", "--opponent", "strong", "--seed", "2")
    assert done.returncode == 0 and "You left the game." in done.stdout


def test_the_notebook_game_checks_the_students_functions_and_plays_the_engines_reading():
    """``play()`` in azul3_play: the student's decode_move and legal_takes read every code typed; a
    disagreement with the engine is a "Check:" line, and the engine's reading is played."""
    import io

    from azcourse.azul.terminal import NotebookGame

    seed = next(s for s in range(50) if current_seat(init_board(session_rngs(s)[0])) == HUMAN_SEAT)
    board = init_board(session_rngs(seed)[0])  # the human moves first: this is the board of the first turn
    code = action_to_string(int(np.flatnonzero(get_valid_mask(board))[-1]))
    illegal = first_illegal_take(board)
    typed = iter(["0B1", illegal, code, "quit"])
    out = io.StringIO()
    game = NotebookGame("random", seed, HUMAN_SEAT, decode_move=lambda text: 5,
                        legal_takes=lambda state: np.ones(180, dtype=bool), read_line=lambda prompt: next(typed), out=out)
    game.run()
    text = out.getvalue()
    assert "Check: your decode_move('0B1') gives 5, but the engine refuses the code (Unknown source '0'" in text
    assert f"Check: your legal_takes says {illegal} is legal, the engine says illegal: " \
           f"{illegal_reason(board, string_to_action(illegal))}" in text
    assert f"Check: your decode_move({code!r}) gives 5; the engine reads it as {string_to_action(code)}" in text
    assert f"You play {code}" in text and "You left the game." in text
    assert text.count("Refused:") == 2  # the engine decides: the bad code and the illegal take
