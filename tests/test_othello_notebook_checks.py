"""The hidden tests of part 5 (Othello planning) pass the reference and fail every wrong answer of the corpus.

No kernel: ``check_<name>`` probes and judges in this process (``autograder.probes.run_check``), as in an
instructor's own notebook. A wrong answer of ``tests/student_mistakes.py`` is executed in a copy of the
reference namespace, so its globals hold the notebook's helpers (``legal_prior``, ``Node``,
``state_value`` ...) as in a student's kernel. The stand-in networks of the cases are tiny numpy
functions: every check takes well under a second.
"""

import numpy as np
import pytest

from autograder import reference
from autograder.assignments.othello5_planning import checks as othello_checks
from student_mistakes import MISTAKES, NOTEBOOK_OF, function_of, mistake, with_globals


@pytest.fixture(scope="module")
def ref():
    return reference.reference_namespace("othello5_planning", "othello5_planning")


def hidden_failure(ref: dict, key: str, label: str) -> str:
    """The message of the hidden check's failure on a wrong answer (the check must fail)."""
    with pytest.raises(AssertionError) as failure:
        getattr(othello_checks, f"check_{function_of(key)}")(mistake(ref, key, label))
    return str(failure.value)


OTHELLO = [(key, label) for key, mistakes in MISTAKES.items() if NOTEBOOK_OF[key] == "othello5_planning"
           for label in mistakes]


@pytest.mark.parametrize("name", list(othello_checks.JUDGES))
def test_the_reference_passes_every_check(ref, name):
    getattr(othello_checks, f"check_{name}")(ref[name])


def test_every_othello_function_has_its_mistakes():
    assert {function_of(key) for key, _ in OTHELLO} == set(othello_checks.JUDGES)


@pytest.mark.parametrize("key, label", OTHELLO, ids=[f"{key}: {label}" for key, label in OTHELLO])
def test_every_mistake_fails_its_hidden_check_and_names_it(ref, key, label):
    message = hidden_failure(ref, key, label)
    assert message.startswith(f"{function_of(key)} gives a wrong result on "), message


# ---------------------------------------------------------------- what the judges say

def test_a_flips_that_places_the_disc_is_told_so(ref):
    assert "flips changed the board it was given" in hidden_failure(ref, "flips", "places the disc on the board")


def test_a_wrong_flips_is_shown_its_board_as_code(ref):
    message = hidden_failure(ref, "flips", "a line that runs off the board counts")
    assert 'as code: board_from_rows("' in message and "expected: []" in message


def test_a_pass_at_the_end_of_the_game_is_explained(ref):
    message = hidden_failure(ref, "legal_moves", "a pass whenever there is no placing move, even at the end")
    assert "when neither has, the game is over: nothing is legal" in message


def test_a_float_mask_is_told_its_dtype(ref):
    assert "expected bool" in hidden_failure(ref, "legal_moves", "a float mask of 0 and 1")


def test_state_value_slips_are_diagnosed(ref):
    assert "the sign is wrong" in hidden_failure(ref, "state_value", "the network's value as it is (no change of view)")
    assert "a draw is worth 0 to both players, not a loss" in hidden_failure(ref, "state_value", "a draw counted as a loss")
    assert "that is the network's guess" in hidden_failure(ref, "state_value", "asks the network about a finished game")


def test_value_move_with_the_opponents_view_is_told_so(ref):
    message = hidden_failure(ref, "value_move", "the move with the lowest value")
    assert "that is the move worth least to the mover" in message and "values for the mover after each legal move" in message


def test_value_move_ties_go_to_the_lowest_index(ref):
    assert "ties go to the lowest action index" in hidden_failure(ref, "value_move", "ties go to the highest index")


def test_rollout_value_judge_names_the_moves_and_the_generator(ref):
    assert "the moves played differ from move" in hidden_failure(ref, "rollout_value", "one move more than depth")
    message = hidden_failure(ref, "rollout_value", "a draw counted as a loss at the end")
    assert "a draw is worth 0, not a loss" in message


def test_the_tutorials_monte_carlo_fault_is_named(ref):
    message = hidden_failure(ref, "monte_carlo_move", "rollouts from the current position (the tutorial's fault)")
    assert "rollouts started from the current position, before the candidate was played" in message


def test_monte_carlo_view_and_generator_slips_are_named(ref):
    assert "the view is the player to move in state" in hidden_failure(
        ref, "monte_carlo_move", "the view of the player to move after the candidate")
    assert "pass the generator rng given" in hidden_failure(ref, "monte_carlo_move", "a generator of its own for the rollouts")
    assert "the candidates are the top_k" in hidden_failure(
        ref, "monte_carlo_move", "the first legal moves as candidates, not the most probable")


def test_a_backup_without_the_sign_change_is_named(ref):
    message = hidden_failure(ref, "simulate", "backs up the leaf's value without changing its sign")
    assert "after simulation" in message and "the values have the wrong sign" in message


def test_mcts_move_protocol_slips_are_named(ref):
    assert "every simulation must run on one root" in hidden_failure(ref, "mcts_move", "a new root for every simulation")
    assert "simulate was called" in hidden_failure(ref, "mcts_move", "one simulation too few")
    assert "pass c_puct" in hidden_failure(ref, "mcts_move", "ignores the c_puct given")


def test_interval_slips_are_diagnosed(ref):
    assert "which is the draws counted as losses" in hidden_failure(ref, "win_rate_interval", "draws counted as losses")
    assert "which is the textbook interval" in hidden_failure(
        ref, "win_rate_interval", "the textbook interval p +- z sqrt(p (1 - p) / n)")


def test_the_judge_accepts_the_exact_normal_quantile():
    cases = [{"wins": 13, "draws": 0, "losses": 7}]
    z = 1.959964
    p, n = 0.65, 20
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    othello_checks.judge_win_rate_interval(cases, [list(othello_checks._wilson(13, 20))], [[p, centre - half, centre + half]])


def test_value_move_and_rollouts_are_graded_with_a_correct_state_value(ref):
    """A reference value_move and rollout_value pass where the notebook's state_value is wrong, and the
    wrong one is back in place afterwards."""
    wrong = mistake(ref, "state_value", "the network's value as it is (no change of view)")
    namespace = with_globals(ref, ("value_move", "rollout_value"), state_value=wrong)
    othello_checks.check_value_move(namespace["value_move"])
    othello_checks.check_rollout_value(namespace["rollout_value"])
    assert namespace["state_value"] is wrong


def test_monte_carlo_and_mcts_players_are_graded_without_their_helpers(ref):
    """monte_carlo_move and mcts_move pass with a broken rollout_value and simulate (the spies stand in)."""
    namespace = with_globals(ref, ("monte_carlo_move", "mcts_move"), rollout_value=lambda *args: 1 / 0,
                             simulate=lambda *args: 1 / 0)
    othello_checks.check_monte_carlo_move(namespace["monte_carlo_move"])
    othello_checks.check_mcts_move(namespace["mcts_move"])


def test_a_blank_answer_is_named_as_not_written_rather_than_wrong():
    def blank(*args):
        raise NotImplementedError()

    with pytest.raises(AssertionError, match="^NotImplementedError: rollout_value is not written yet"):
        othello_checks.check_rollout_value(blank)
    with pytest.raises(AssertionError, match="^NotImplementedError: win_rate_interval is not written yet"):
        othello_checks.check_win_rate_interval(blank)
