"""The Azul alpha-beta yardstick (``benchmarks/azul_alphabeta.py``): legal moves, its evaluation, its
search against plain minimax, and its command line."""
import sys
from pathlib import Path

import numpy as np
import pytest

import azul_builders as ab
import Azul_Simulator as az
from azcourse.azul.agents import random_agent
from azcourse.azul.arena import function_match

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import azul_alphabeta as yardstick
finally:
    sys.path.remove(str(ROOT / "benchmarks"))


def positions(seeds, policy: str = "uniform", takes: bool = True) -> list[np.ndarray]:
    """Boards reached by random play in the games of ``seeds``: those where a take is legal, or
    (``takes=False``) those where only the refill is."""
    return [b for seed in seeds for b, mask, _, _ in ab.random_game(seed, policy) if mask[az.NOOP] != takes]


@pytest.mark.parametrize("depth, widths, seeds", [(1, (1, 7), range(4)), (2, (1, 3, 7, 40), range(4, 8)),
                                                  (3, (7,), range(8, 9))])
def test_moves_are_legal_in_random_positions(depth, widths, seeds):
    boards = positions(seeds) + positions(seeds, "lines")
    assert len(boards) >= (300 if depth < 3 else 60)
    for width in widths:
        agent = yardstick.alphabeta_agent(depth, width)
        for board in boards:
            action = agent(board, None)
            assert action != az.NOOP and az.get_valid_mask(board)[action], az.action_to_string(action)


def test_noop_when_only_the_refill_is_legal_and_an_error_after_the_game():
    agent = yardstick.alphabeta_agent(2)
    for board in positions(range(2), takes=False):
        assert agent(board, None) == az.NOOP
    with pytest.raises(ValueError, match="game is over"):
        agent(ab.board(game_over=True), None)


def test_the_time_cap_still_gives_a_legal_move_and_the_arguments_are_checked():
    agent = yardstick.alphabeta_agent(5, time_limit=1e-4)
    assert agent.name == "alphabeta-d5w7@0.0001s"
    for board in positions(range(1))[::4]:
        assert az.get_valid_mask(board)[agent(board, None)]
    for kwargs in ({"depth": 0}, {"depth": 6}, {"width": 0}, {"time_limit": 0}):
        with pytest.raises(ValueError):
            yardstick.alphabeta_agent(**kwargs)


def test_the_evaluation_is_antisymmetric():
    for board in positions(range(3))[::3]:
        seat = int(board[az.SEAT])
        value = yardstick.evaluate(board)
        assert value == yardstick.evaluate(board, seat) == pytest.approx(-yardstick.evaluate(board, 1 - seat))
        assert yardstick.evaluate(az.flip_board(board)) == pytest.approx(-value)


def test_the_projection_is_the_engines_wall_tiling():
    """At a round's end the projected score is what the refill's wall-tiling gives."""
    tiled = np.empty((5, 5), dtype=np.int64)
    for board in positions(range(6), takes=False):
        after = az.AzulState.decode(az.get_next_state(board, az.NOOP, np.random.default_rng(0)))
        for section, seat in ((yardstick.ME, int(board[az.SEAT])), (yardstick.OPP, 1 - int(board[az.SEAT]))):
            score = yardstick._project(board, section, tiled)
            player = after.by_seat(seat)
            assert np.array_equal(tiled.astype(bool), player.wall)
            assert score == player.score - (az.end_game_bonus(player.wall) if after.game_over else 0)


def test_one_pass_scores_every_take_as_its_child_board_does():
    """The last ply's shortcut: ``_take_values`` is finite exactly on the legal takes and equals the
    evaluation of the board ``get_next_state`` gives, for the mover's seat."""
    for board in positions(range(2), "lines")[::2]:
        values = yardstick._take_values(board, yardstick.ME, yardstick.OPP)
        legal = az.get_valid_mask(board)[:az.N_TAKES]
        assert np.array_equal(np.isfinite(values), legal)
        seat = int(board[az.SEAT])
        for action in np.flatnonzero(legal):
            child = az.get_next_state(board, int(action))
            assert values[action] == pytest.approx(yardstick.evaluate(child, seat))


def minimax(board: np.ndarray, seat: int, depth: int) -> float:
    """Full-width minimax within the round, for ``seat``, by child boards only."""
    if depth == 0 or az.get_valid_mask(board)[az.NOOP]:
        return yardstick.evaluate(board, seat)
    values = [minimax(az.get_next_state(board, int(a)), seat, depth - 1)
              for a in np.flatnonzero(az.get_valid_mask(board))]
    return max(values) if int(board[az.SEAT]) == seat else min(values)


def test_full_width_alpha_beta_finds_the_minimax_value():
    late = [b for b in positions(range(6)) if az.get_valid_mask(b).sum() <= 12]
    assert len(late) >= 20
    for board in late:
        moves = int(az.get_valid_mask(board).sum())
        for depth in (2, 3, 4) if moves <= 8 else (2, 3):
            expected = minimax(board, int(board[az.SEAT]), depth)
            found = yardstick._negamax(board, depth, -np.inf, np.inf, az.N_TAKES, None)
            assert found == pytest.approx(expected)


def test_it_beats_random_play():
    match = function_match(yardstick.alphabeta_agent(2), random_agent, games=4, seed=0)
    assert match.wins == 4 and match.mean_score_a > match.mean_score_b + 20


def test_the_command_line_plays_an_arena_agent(capsys):
    yardstick.main(["--opponent", "greedy", "--depth", "1", "--games", "2", "--workers", "1"])
    out = capsys.readouterr().out
    assert "alphabeta-d1w7 vs greedy: 2 games" in out and "score rate" in out and "ms/move" in out
