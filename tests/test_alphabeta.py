"""The alpha-beta yardstick (``azcourse.core.alphabeta``) and its evaluations (Othello, Hex)."""
import functools
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.alphabeta import WIN, AlphaBetaAgent
from azcourse.core.arena import random_opening
from azcourse.hex import agents as hex_agents
from azcourse.hex.game import Hex
from azcourse.othello import agents as othello_agents
from azcourse.othello.game import Othello
from azcourse.registry import make_alphabeta

ROOT = Path(__file__).resolve().parents[1]


def random_positions(game, count: int, seed: int) -> list:
    """``count`` unfinished positions after 0 to 40 random moves."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        state = random_opening(game, rng, int(rng.integers(0, 41)))
        if not game.is_terminal(state):
            out.append(state)
    return out


def minimax(game, evaluate, state, player: int, depth: int) -> float:
    """The value alpha-beta must find, by full minimax without pruning."""
    if game.is_terminal(state):
        return float(game.returns(state)[player]) * (WIN + depth)
    if depth == 0:
        return evaluate(state, player)
    values = [minimax(game, evaluate, game.next_state(state, int(a)), player, depth - 1)
              for a in np.flatnonzero(game.legal_mask(state))]
    return max(values) if game.to_move(state) == player else min(values)


@pytest.mark.parametrize("game_name, depth, count", [("othello8", 2, 40), ("othello6", 3, 20), ("hex5", 2, 40),
                                                      ("hex7", 2, 15)])
def test_moves_are_legal_in_random_positions(game_name, depth, count):
    agent = make_alphabeta(f"alphabeta:{depth}", game_name)
    game = agent.game
    for state in random_positions(game, count, seed=depth):
        action = agent.choose(state)
        assert game.legal_mask(state)[action], game.render(state)


@pytest.mark.parametrize("game, module", [(Othello(4), othello_agents), (Hex(4), hex_agents)])
def test_pruned_values_equal_full_minimax(game, module):
    evaluate = functools.partial(module.evaluate, game)
    agent = AlphaBetaAgent(game, evaluate, depth=3)
    for state in random_positions(game, 6, seed=1):
        me = game.to_move(state)
        for action, value in agent.action_values(state).items():
            assert value == pytest.approx(minimax(game, evaluate, game.next_state(state, action), me, 2))
        best = max(agent.action_values(state).values())
        assert agent.action_values(state)[agent.choose(state)] == pytest.approx(best)


def wins_in_one(game, count: int, seed: int) -> list:
    """``count`` positions (from random games) where some legal moves win at once and others do not,
    each with the set of its winning moves."""
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(found) < count:
            legal = [int(a) for a in np.flatnonzero(game.legal_mask(state))]
            me = game.to_move(state)
            winning = {a for a in legal if game.returns(game.next_state(state, a))[me] > 0}
            if winning and len(winning) < len(legal):
                found.append((state, winning))
            state = game.next_state(state, legal[int(rng.integers(len(legal)))])
    return found


@pytest.mark.parametrize("game_name", ["othello6", "hex5"])
def test_a_win_in_one_is_played_at_every_depth(game_name):
    agents = [make_alphabeta(f"alphabeta:{depth}", game_name) for depth in (1, 2, 3)]
    for state, winning in wins_in_one(agents[0].game, 5, seed=3):
        for agent in agents:
            assert agent.choose(state) in winning


def test_hex_win_in_one_drawn_by_hand():
    game = Hex(5)
    rows = ["O.X..", "O.X..", "O.X..", "O.X..", "....."]  # X to move: b5 or c5 joins row 1 to row 5
    state = game.from_seed_tuple((1, *[".XO".index(ch) for row in rows for ch in row]))
    wins = {game.parse_action(state, "b5"), game.parse_action(state, "c5")}
    assert make_alphabeta("alphabeta:2", "hex5").choose(state) in wins


def test_evaluations_are_zero_sum_bounded_and_signed():
    othello, hex_game = Othello(8), Hex(7)
    for game, module in ((othello, othello_agents), (hex_game, hex_agents)):
        for state in random_positions(game, 30, seed=5):
            mine, theirs = module.evaluate(game, state, 0), module.evaluate(game, state, 1)
            assert mine == pytest.approx(-theirs) and -1 <= mine <= 1
    board = np.zeros((8, 8), dtype=int)
    board[0, 0] = board[7, 7] = 1  # black holds two corners, white the two discs between
    board[3, 3], board[3, 4] = 2, 2
    assert othello_agents.evaluate(othello, othello.from_board(board, 1), 0) > 0.25
    cells = bytearray(49)
    for row in range(6):
        cells[row * 7 + 3] = 1  # X (player 0) needs one more cell, O (player 1) seven
    state = hex_game.initial_state()._replace(cells=bytes(cells), player=1)
    assert hex_agents.distance(hex_game, state.cells, 0) == 1 and hex_agents.distance(hex_game, state.cells, 1) == 7
    assert hex_agents.evaluate(hex_game, state, 0) > 0.8


def test_hex_distance_counts_empty_cells_and_walls():
    game = Hex(3)
    empty = bytes(9)
    assert hex_agents.distance(game, empty, 0) == 3 and hex_agents.distance(game, empty, 1) == 3
    wall = bytes([0, 0, 0, 2, 2, 2, 0, 0, 0])  # O's chain across row 2 cuts every X path
    assert hex_agents.distance(game, wall, 0) == 10 and hex_agents.distance(game, wall, 1) == 0


def test_names_and_errors():
    assert make_alphabeta("alphabeta:3", "othello8").name == "alphabeta:3"
    for spec in ("alphabeta", "alphabeta:0", "minimax:2", "alphabeta:x"):
        with pytest.raises(ValueError, match="alphabeta:<depth>"):
            make_alphabeta(spec, "hex5")
    with pytest.raises(ValueError, match="no alpha-beta evaluation for tictactoe"):
        make_alphabeta("alphabeta:2", "tictactoe")
    with pytest.raises(ValueError, match="at least 1 ply"):
        AlphaBetaAgent(Hex(3), lambda state, player: 0.0, depth=0)


def test_the_strength_benchmark_plays_alphabeta_against_openspiel(capsys):
    pytest.importorskip("pyspiel", reason="OpenSpiel is a developer requirement (pip install -r requirements-dev.txt)")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import openspiel_strength
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    openspiel_strength.main(["alphabeta:2", "--game", "hex4", "--games", "2", "--opponent-simulations", "20",
                             "--workers", "1"])
    out = capsys.readouterr().out
    assert "alphabeta:2 vs openspiel-mcts20: 2 games" in out
    assert any(line.startswith("| alphabeta:2 on hex4 vs OpenSpiel MCTS @20 |") for line in out.splitlines())
    with pytest.raises(ValueError, match="needs a game"):
        openspiel_strength.match("alphabeta:2", 20, 2, 1, 0)
