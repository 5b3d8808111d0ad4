"""``play.py hex`` and ``play.py ttt --opponent uct``: refusals leave the board alone, games end,
agents behave, and the trained-policy opponents refuse with one clear line."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.agents import PolicyUnavailable, make_agent
from azcourse.hex.game import Hex
from azcourse.hex.game import PLAYER_NAMES
from azcourse.core.terminal import TerminalMatch

ROOT = Path(__file__).resolve().parents[1]


def run_cli(stdin: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "play.py"), *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_hex_bad_input_is_refused_and_the_board_stays_as_it_was():
    proc = run_cli("c3\nzz\nc3\nf1\n3,9\nc6\nboard\nquit\n", "hex", "--size", "5", "--opponent", "random",
                   "--seed", "4")
    out = proc.stdout
    assert proc.returncode == 0 and proc.stderr == ""
    assert "You play c3." in out and out.count("random plays ") == 1
    refusals = [line for line in out.splitlines() if line.startswith("Refused")]
    assert refusals == [
        "Refused: 'zz' is not a cell: type a column letter and a row number such as c3, or row,column such as 3,3.",
        "Refused: c3 is taken by X (player 1).",
        "Refused: Column f is off the board: columns run from a to e.",
        "Refused: Column 9 is off the board: columns run from 1 to 5.",
        "Refused: Row 6 is off the board: rows run from 1 to 5.",
    ]
    before = out.split("Your move: zz", 1)[0].rsplit("random plays ", 1)[1].split("\n", 1)[1]
    after = out.split("Your move: board\n", 1)[1].split("Your move: quit", 1)[0]
    assert after == before  # the same position: refusals changed nothing
    assert after.count("X") - after.count("X joins") - after.count("X (player") == 1
    assert out.rstrip().endswith("You left the game.")


@pytest.mark.parametrize("opponent", ["anet", "mcts"])
def test_hex_trained_opponents_refuse_in_one_line_without_a_shipped_policy(opponent):
    proc = run_cli("", "hex", "--size", "4", "--opponent", opponent)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "play.py hex: no trained hex4 policy is shipped (only hex5 has one), so anet and mcts cannot play; "
        "use --opponent random or uct, or train one with python -m azcourse.hex train"]


@pytest.mark.parametrize("opponent", ["anet", "mcts"])
def test_hex5_trained_opponents_play_the_shipped_anet(opponent):
    proc = run_cli("c3\nquit\n", "hex", "--size", "5", "--opponent", opponent, "--simulations", "50", "--seed", "0")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "You play c3." in proc.stdout and proc.stdout.count(f"{opponent} plays ") == 1


def test_hex_options_are_checked_and_help_prints():
    proc = run_cli("", "hex", "--size", "9")
    assert proc.returncode == 2 and "must be from 3 to 8, got 9" in proc.stderr
    proc = run_cli("", "hex", "--help")
    assert proc.returncode == 0 and "--opponent {random,uct,anet,mcts,alphazero}" in proc.stdout


def test_hex_alphazero_plays_the_5x5_network_and_names_a_missing_one():
    proc = run_cli("c3\nquit\n", "hex", "--size", "5", "--opponent", "alphazero", "--simulations", "50", "--seed", "0")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "You play c3." in proc.stdout and proc.stdout.count("alphazero plays ") == 1
    proc = run_cli("", "hex", "--size", "6", "--opponent", "alphazero")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("play.py hex: no trained hex6 network is shipped (ckpts/hex6/ is missing), so the network "
                           "players cannot play\n")


def test_hex_computer_opens_with_second_and_end_of_input_leaves():
    proc = run_cli("", "hex", "--size", "3", "--second", "--opponent", "uct", "--simulations", "50", "--seed", "1")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0].startswith("You play O (player 2) against uct.")
    assert proc.stdout.splitlines()[2].startswith("uct plays ")
    assert "End of input." in proc.stdout


def scripted_match(game, opponent, human_moves, human=0, seed=0, simulations=300):
    """A match in-process where the person types ``human_moves(state)``; returns the transcript."""
    lines = []
    states = []
    agent = make_agent(opponent, game, np.random.default_rng(seed), simulations)
    match = TerminalMatch(game, agent, human, "help text", PLAYER_NAMES, np.random.default_rng(seed),
                          read=lambda prompt: human_moves(states[-1]), write=lines.append)
    original = match.ask

    def ask(state):
        states.append(state)
        return original(state)

    match.ask = ask
    assert match.run() == 0
    return lines


def test_hex_games_end_with_one_winner_and_uct_beats_random():
    game = Hex(4)
    results = []
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)

        def random_person(state):
            return game.action_to_text(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))

        lines = scripted_match(game, "uct", random_person, human=seed % 2, seed=seed)
        results.append(lines[-1])
        assert lines[-2].splitlines()[0].endswith("has won.")
    assert results.count("uct wins.") >= 5, results


def test_agents_seam_for_trained_policies():
    game = Hex(3)
    state = game.next_state(game.initial_state(), 4)
    preference = np.arange(9, dtype=float)[::-1].copy()  # prefers low cells
    preference[0] = 100  # ... a1 most of all

    anet = make_agent("anet", game, np.random.default_rng(0), policy=lambda s: preference)
    assert anet.choose(state) == 0
    assert anet.choose(game.next_state(state, 0)) == 1  # a1 taken: the next best legal cell
    mcts = make_agent("mcts", game, np.random.default_rng(0), simulations=50, policy=lambda s: preference)
    assert game.legal_mask(state)[mcts.choose(state)]
    for name in ("anet", "mcts"):
        with pytest.raises(PolicyUnavailable, match="needs a trained policy"):
            make_agent(name, game, np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphago", game, np.random.default_rng(0))


def test_uct_agent_keeps_its_tree_between_moves():
    game = Hex(4)
    agent = make_agent("uct", game, np.random.default_rng(0), simulations=200)
    state = game.initial_state()
    action = agent.choose(state)
    agent.observe(action)
    subtree = agent.mcts.root
    carried = int(subtree.n.sum())
    state = game.next_state(state, action)
    reply = agent.choose(state)
    assert agent.mcts.root is subtree and int(subtree.n.sum()) == carried + 200 and carried > 0
    assert game.legal_mask(state)[reply]


# -- tic-tac-toe against seed 001's computer ---------------------------------------------------------
@pytest.fixture(scope="module")
def rules():
    from azcourse.tictactoe.terminal import DEFAULT_RULES, load_rules

    return load_rules(DEFAULT_RULES)


def test_ttt_uct_draws_every_game_against_the_perfect_player(rules):
    from azcourse.tictactoe.minimax import PerfectPlayer
    from azcourse.tictactoe.rules import GameRules
    from azcourse.tictactoe.terminal import TerminalGame

    perfect = PerfectPlayer(GameRules(rules["get_next_state"], rules["get_reward"], rules["get_valid_mask"],
                                      rules["flip_board"]), seed=1)
    results = []
    for seed in range(4):
        boards, lines = [], []

        def read(prompt):
            return str(perfect(boards[-1]) + 1)

        game = TerminalGame(rules, "uct", seed, human_first=seed % 2 == 0, simulations=1000, read=read,
                            write=lines.append)
        original = game.human_move
        game.human_move = lambda board: (boards.append(board), original(board))[1]
        assert game.run() == 0
        results.append(lines[-1])
    assert results == ["Draw."] * 4, results


def test_ttt_uct_through_the_command_line(rules):
    proc = run_cli("5\n5\nquit\n", "ttt", "--opponent", "uct", "--seed", "3", "--simulations", "300")
    assert proc.returncode == 0, proc.stderr
    assert "You play X against uct." in proc.stdout and "uct plays square " in proc.stdout
    assert "Refused: square 5 is taken" in proc.stdout and proc.stdout.rstrip().endswith("Game left.")
