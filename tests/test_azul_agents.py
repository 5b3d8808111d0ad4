"""Baseline Azul agents: legality, the greedy rule (checked against the engine's own scoring), and
strength. Hand-built positions use ``azul_builders`` (player to move = ``me``)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import azul_builders as ab
from Azul_Simulator import (
    N_TAKES, NOOP, AzulState, action_to_string, get_next_state, get_valid_mask, init_board, string_to_action,
    wall_tiling,
)
from azcourse.azul.agents import (
    AGENTS, evaluate_takes, greedy_agent, greedy_candidates, make_agent, random_agent,
)
from azcourse.azul.arena import build_agent, function_match


def codes(actions) -> set[str]:
    return {action_to_string(a) for a in actions}


def reference_evaluation(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``evaluate_takes`` the slow way: play each legal take with ``get_next_state``, then score the
    mover's section with the engine's ``wall_tiling``."""
    values = np.full(N_TAKES, -1)
    line_tiles = np.full(N_TAKES, -1)
    before = AzulState.decode(board).players[0]
    seat = AzulState.decode(board).seat
    for action in np.flatnonzero(get_valid_mask(board)):
        mover = AzulState.decode(get_next_state(board, action)).by_seat(seat)
        complete = [(r, c) for r in range(5) for c in range(5) if mover.pattern[r, c] == r + 1]
        n_floor = int(mover.floor.sum()) + int(mover.has_marker)
        values[action] = wall_tiling(mover.score, mover.wall, complete, n_floor)[0]
        line_tiles[action] = int(mover.pattern.sum() - before.pattern.sum())
    return values, line_tiles


def take_positions(seed: int, policy: str) -> list[np.ndarray]:
    return [b for b, mask, _, _ in ab.random_game(seed, policy) if not mask[NOOP]]


# ----------------------------------------------------------------------------------------------
# Random agent
# ----------------------------------------------------------------------------------------------
def test_random_agent_only_picks_legal_moves_and_varies():
    rng = np.random.default_rng(1)
    for board in take_positions(2, "uniform"):
        mask = get_valid_mask(board)
        picks = {random_agent(board, rng) for _ in range(20)}
        assert all(mask[a] for a in picks)
        if mask.sum() > 5:
            assert len(picks) > 1


def test_random_agent_plays_noop_when_it_is_the_only_legal_action():
    board = ab.board(me=ab.player(pattern={1: "B"}), factories=())
    assert np.flatnonzero(get_valid_mask(board)).tolist() == [NOOP]
    assert random_agent(board, np.random.default_rng(0)) == NOOP
    assert greedy_agent(board, np.random.default_rng(0)) == NOOP


@pytest.mark.parametrize("agent", [random_agent, greedy_agent])
def test_agents_refuse_to_move_after_the_game_is_over(agent):
    board = ab.board(game_over=True)
    with pytest.raises(ValueError, match="game is over"):
        agent(board, np.random.default_rng(0))


# ----------------------------------------------------------------------------------------------
# Greedy agent: hand-built positions
# ----------------------------------------------------------------------------------------------
def test_greedy_prefers_the_completion_that_scores_most():
    # Wall row 1 holds Blue and Yellow: Red on pattern line 1 lands next to them (3 points).
    # 2 Yellow complete line 2 alone on its wall row (1 point).
    me = ab.player(score=4, wall_rows=("##...", ".....", ".....", ".....", "....."))
    board = ab.board(me=me, factories=("RBBD", "YYWW"))
    values, _ = evaluate_takes(board)
    assert values[string_to_action("1R1")] == 4 + 3
    assert values[string_to_action("2Y2")] == 4 + 1
    assert codes(greedy_candidates(board)) == {"1R1"}
    assert action_to_string(greedy_agent(board, np.random.default_rng(0))) == "1R1"


def test_greedy_counts_the_first_player_marker_on_the_floor():
    # One Blue from the centre would complete line 1 (+1) but also take the marker (-1);
    # a single Yellow or Black from factory 1 completes line 1 with no penalty. (Line 2 holds
    # White, so the two Reds cannot complete it.)
    board = ab.board(me=ab.player(score=5, pattern={2: "W"}), factories=("YRRD",), centre="B",
                     marker_in_centre=True)
    values, _ = evaluate_takes(board)
    assert values[string_to_action("CB1")] == 5
    assert values[string_to_action("1R1")] == 5  # 1 Red on the line, 1 Red on the floor
    assert values[string_to_action("1Y1")] == 6
    assert codes(greedy_candidates(board)) == {"1Y1", "1D1"}


def test_greedy_counts_tiles_already_on_the_floor_and_the_overflow():
    # Two items already on the floor (a tile and the marker) cost -1 -1; the whole floor counts.
    me = ab.player(score=10, floor="W", has_marker=True)
    board = ab.board(me=me, factories=("BBBY",))
    values, line_tiles = evaluate_takes(board)
    assert values[string_to_action("1BF")] == 10 - (1 + 1 + 2 + 2 + 2)  # 5 floor items
    assert values[string_to_action("1B2")] == 10 + 1 - (1 + 1 + 2)  # line 2 done, 1 Blue overflows
    assert line_tiles[string_to_action("1B2")] == 2
    assert line_tiles[string_to_action("1BF")] == 0


def test_greedy_breaks_ties_toward_more_tiles_on_pattern_lines():
    # No take completes a line: every line take keeps the score; Blue puts 3 tiles on a line,
    # Yellow 1. Lines 1-3 cannot take Blue or Yellow (wall row 1, other colours on lines 2 and 3).
    me = ab.player(score=10, pattern={2: "R", 3: "D"},
                   wall_rows=("##...", ".....", ".....", ".....", "....."))
    board = ab.board(me=me, factories=("BBBY",))
    values, line_tiles = evaluate_takes(board)
    assert {values[string_to_action(c)] for c in ("1B4", "1B5", "1Y4", "1Y5")} == {10}
    assert codes(greedy_candidates(board)) == {"1B4", "1B5"}
    picks = {action_to_string(greedy_agent(board, np.random.default_rng(s))) for s in range(40)}
    assert picks == {"1B4", "1B5"}  # the remaining tie is broken by the rng, both ways


def test_greedy_clamps_at_zero_before_comparing():
    # Score 0 and 4 floor items: 3 Blue on line 3 would be +1 -6 = -5, on line 4 or 5 -6. After
    # the clamp all three are worth 0 and put 3 tiles on a line: a three-way tie.
    me = ab.player(score=0, floor="RRDD")
    board = ab.board(me=me, factories=("BBBY",))
    values, _ = evaluate_takes(board)
    assert values[string_to_action("1B3")] == 0
    assert codes(greedy_candidates(board)) == {"1B3", "1B4", "1B5"}


def test_greedy_scores_lines_completed_earlier_in_the_round_top_to_bottom():
    # Line 2 already holds 2 White (complete; White's cell in row 2 is column 1). Completing line 1
    # with Blue puts Blue at (row 1, column 1) first, right above it: Blue scores 1, then White 2
    # (vertical run). With Yellow (row 1, column 2) the two tiles are apart: 1 + 1.
    me = ab.player(score=0, pattern={2: "WW"})
    board = ab.board(me=me, factories=("YBRD",))
    values, _ = evaluate_takes(board)
    assert values[string_to_action("1B1")] == 1 + 2
    assert values[string_to_action("1Y1")] == 1 + 1
    assert codes(greedy_candidates(board)) == {"1B1"}


# ----------------------------------------------------------------------------------------------
# Greedy agent: agreement with the engine on positions from real games
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["uniform", "lines", "floor"])
def test_evaluate_takes_matches_the_engine_on_game_positions(policy):
    positions = [b for seed in range(4) for b in take_positions(seed, policy)]
    assert len(positions) > 100
    for board in positions:
        values, line_tiles = evaluate_takes(board)
        expected_values, expected_tiles = reference_evaluation(board)
        np.testing.assert_array_equal(values, expected_values)
        np.testing.assert_array_equal(line_tiles, expected_tiles)


def test_greedy_candidates_are_the_best_by_value_then_line_tiles():
    for board in take_positions(5, "uniform"):
        values, line_tiles = reference_evaluation(board)
        best = values.max()
        most = line_tiles[values == best].max()
        expected = np.flatnonzero((values == best) & (line_tiles == most))
        np.testing.assert_array_equal(greedy_candidates(board), expected)


# ----------------------------------------------------------------------------------------------
# Strength and registry
# ----------------------------------------------------------------------------------------------
def test_greedy_beats_random_by_a_wide_margin():
    match = function_match(greedy_agent, random_agent, games=200, seed=2024)
    assert match.games == 200
    assert match.win_rate >= 0.95
    assert match.mean_score_a - match.mean_score_b >= 30


def test_registry_builds_the_named_agents():
    assert set(AGENTS) >= {"random", "greedy"}
    assert make_agent("random") is random_agent
    assert make_agent("greedy") is greedy_agent
    with pytest.raises(ValueError, match="greedy, random"):
        make_agent("grandmaster")


def test_the_command_lines_name_exactly_the_registered_agents():
    """``play.py azul --opponent`` offers ``azcourse.azul_cli.AGENT_NAMES`` without importing the engine: they must
    be the names of ``AGENTS``."""
    from azcourse.azul_cli import AGENT_NAMES

    assert AGENT_NAMES == tuple(sorted(AGENTS))


def test_every_opponent_of_play_azul_plays_and_its_help_gives_each_one_s_strength():
    from azcourse.azul_cli import DEFAULT_OPPONENT, OPPONENTS

    board = init_board(np.random.default_rng(4))
    for name in OPPONENTS:
        agent = build_agent(name)  # the arena's builder: the registry's agents and the model specs
        assert get_valid_mask(board)[agent(board, np.random.default_rng(0))]
    shown = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "play.py"), "azul", "--help"],
                           capture_output=True, text=True, check=True).stdout
    for name, words in OPPONENTS.items():
        assert f"  {name} " in shown and "against the" in words and "won " in words
    default_line = next(line for line in shown.splitlines() if line.startswith(f"  {DEFAULT_OPPONENT} "))
    assert default_line.endswith("(the default)") and DEFAULT_OPPONENT == "strong+search:0.5s"
