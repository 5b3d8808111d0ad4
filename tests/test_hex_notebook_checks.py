"""The hidden tests of part 4 (Hex) pass the reference and fail every wrong answer of the corpus.

No kernel: ``check_<name>`` probes and judges in this process (``autograder.probes.run_check``),
as in an instructor's own notebook. A wrong answer of ``tests/student_mistakes.py`` is executed in a
copy of the reference namespace, so its globals hold the notebook's helpers (``place``,
``play_game``, ``policy_loss`` ...) as in a student's kernel. The checks of the two JAX functions
(``policy_loss``, ``train_step``) trace and differentiate networks for each case: they are slow.
"""
import re

import numpy as np
import pytest

from autograder import reference
from autograder.assignments.hex4_onpolicy import checks as hex_checks
from student_mistakes import MISTAKES, NOTEBOOK_OF, function_of, mistake, with_globals

JAX_FUNCTIONS = {"policy_loss", "train_step"}
slow_if_jax = {name: [pytest.mark.slow] if name in JAX_FUNCTIONS else [] for name in hex_checks.JUDGES}


@pytest.fixture(scope="module")
def ref():
    return reference.reference_namespace("hex4_onpolicy", "hex4_onpolicy")


def hidden_failure(ref: dict, key: str, label: str) -> str:
    """The message of the hidden check's failure on a wrong answer (the check must fail)."""
    function = function_of(key)
    with pytest.raises(AssertionError) as failure:
        getattr(hex_checks, f"check_{function}")(mistake(ref, key, label))
    return str(failure.value)


HEX = [(key, label) for key, mistakes in MISTAKES.items() if NOTEBOOK_OF[key] == "hex4_onpolicy" for label in mistakes]


@pytest.mark.parametrize("name", [pytest.param(name, marks=slow_if_jax[name]) for name in hex_checks.JUDGES])
def test_the_reference_passes_every_check(ref, name):
    getattr(hex_checks, f"check_{name}")(ref[name])


def test_every_hex_function_has_its_mistakes():
    assert {function_of(key) for key, _ in HEX} == set(hex_checks.JUDGES)


@pytest.mark.parametrize("key, label", [pytest.param(key, label, marks=slow_if_jax[function_of(key)]) for key, label in HEX],
                         ids=[f"{key}: {label}" for key, label in HEX])
def test_every_mistake_fails_its_hidden_check_and_names_it(ref, key, label):
    message = hidden_failure(ref, key, label)
    function = function_of(key)
    assert message.startswith(f"{function} gives a wrong result on "), message


# ---------------------------------------------------------------- what the judges say

def test_a_winner_that_marks_the_board_is_told_so(ref):
    assert "winner changed the board it was given" in hidden_failure(ref, "winner", "marks the visited cells on the board")


def test_a_wrong_winner_is_shown_its_board_as_code(ref):
    message = hidden_failure(ref, "winner", "four neighbours (no diagonal)")
    assert 'as code: board_from_rows("' in message and "expected: 1\n  got:      0" in message


def test_tree_policy_ties_go_to_the_lowest_index(ref):
    message = hidden_failure(ref, "tree_policy", "ties go to the highest index")
    assert "have the same N and Q, so the same score: ties go to the lowest index" in message


def test_tree_policy_judge_accepts_any_equal_score_but_not_a_later_copy_of_an_edge():
    """Scores equal up to rounding may come from different formulas: any of those edges passes. An edge
    with the same N and Q as an earlier one has the very same score: only the earlier one passes."""
    def verdict(N, got):
        case = {"parent_visits": 9, "N": np.array(N), "Q": np.array([0.5, 0.5]), "player": 1, "c": 0.0}
        try:
            hex_checks.judge_tree_policy([case], [0], [got])
        except AssertionError as failure:
            return str(failure)
        return None

    assert verdict([3, 5], 1) is None  # c = 0: equal scores, different edges
    assert "ties go to the lowest index" in verdict([3, 3], 1)
    assert verdict([3, 3], 0) is None


def test_a_rollout_that_plays_on_after_the_end_is_shown_the_calls(ref):
    message = hidden_failure(ref, "rollout", "moves before checking for a win")
    assert "expected: {'result': 2, 'players': [], 'stones': []" in message  # a board already won


def test_rollout_is_graded_with_a_correct_winner(ref):
    """A reference rollout passes even where the notebook's winner is broken (always 0), and the
    broken winner is back in place afterwards."""
    def broken(board):
        return 0

    namespace = with_globals(ref, ("rollout",), winner=broken)
    hex_checks.check_rollout(namespace["rollout"])
    assert namespace["winner"] is broken


def test_topp_is_graded_with_a_correct_winner(ref):
    namespace = with_globals(ref, ("play_game", "topp"), winner=lambda board: 0)
    hex_checks.check_topp(namespace["topp"])


def test_legal_distribution_in_float32_is_told_so(ref):
    assert "an array of float32 (expected float64" in hidden_failure(ref, "legal_distribution", "keeps the input's float32")


def test_legal_distribution_tiny_mass_is_renormalised(ref):
    message = hidden_failure(ref, "legal_distribution", "tiny probabilities taken for none")
    assert re.search(r"probability on the empty cells: [0-9.]+e-(2|3)\d\n", message), message


def test_topp_with_j_opening_the_even_games_names_the_opener(ref):
    message = hidden_failure(ref, "topp", "agent j opens the even games")
    assert "expected agent 0 to open as player 1, got agent 1 as player 1" in message


def test_topp_counting_losses_shows_the_tables(ref):
    message = hidden_failure(ref, "topp", "counts losses (the table transposed)")
    assert "the games were played as the protocol says, but the table differs" in message


@pytest.mark.slow
def test_policy_loss_over_all_cells_is_diagnosed(ref):
    assert "which is the softmax over ALL cells" in hidden_failure(ref, "policy_loss", "softmax over all cells")


@pytest.mark.slow
def test_policy_loss_with_minus_infinity_returns_nan(ref):
    assert "got:           'returned nan'" in hidden_failure(ref, "policy_loss", "-inf on the taken cells")


@pytest.mark.slow
def test_a_correct_policy_loss_that_jit_cannot_trace_passes():
    """The probe compiles loss and gradient per shape; a loss that only runs op by op is still graded on its values."""
    import jax
    import jax.numpy as jnp

    def masked_rows(logits, x, target):  # boolean indexing: a shape that depends on the values
        empty = np.asarray((x[:, 2::2] + x[:, 3::2]) == 0)
        rows, batch = np.nonzero(empty)[0], logits.shape[0]
        picked = logits[empty]  # the empty cells' logits, row after row
        top = jax.ops.segment_max(picked, rows, num_segments=batch)[rows]
        log_pi = picked - top - jnp.log(jax.ops.segment_sum(jnp.exp(picked - top), rows, num_segments=batch))[rows]
        return -jnp.sum(target[empty] * log_pi) / batch

    def branching(logits, x, target):  # Python control flow on a value of the input
        empty = (x[:, 2::2] + x[:, 3::2]) == 0
        if bool(jnp.all(empty)):
            log_pi = jax.nn.log_softmax(logits, axis=-1)
        else:
            log_pi = jax.nn.log_softmax(jnp.where(empty, logits, -1e9), axis=-1)
        return -jnp.mean(jnp.sum(jnp.where(empty, target * log_pi, 0.0), axis=-1))

    hex_checks.check_policy_loss(masked_rows)
    hex_checks.check_policy_loss(branching)


@pytest.mark.slow
def test_train_step_drawing_from_rng_itself_is_told_so(ref):
    for label in ("draws the indices with rng.integers", "samples a second minibatch for the gradient"):
        assert "the random generator was used differently" in hidden_failure(ref, "hex4_onpolicy.train_step", label)


@pytest.mark.slow
def test_train_step_without_apply_gradients_is_told_so(ref):
    message = hidden_failure(ref, "hex4_onpolicy.train_step", "never applies the gradients")
    assert "the step counter is 0 after 3 calls" in message


@pytest.mark.slow
def test_train_step_is_graded_with_a_correct_policy_loss(ref):
    wrong_loss = mistake(ref, "policy_loss", "softmax over all cells")
    namespace = with_globals(ref, ("train_step",), policy_loss=wrong_loss)
    hex_checks.check_train_step(namespace["train_step"])
    assert namespace["policy_loss"] is wrong_loss


def test_a_blank_answer_is_named_as_not_written_rather_than_wrong():
    def blank(*args):
        raise NotImplementedError()

    with pytest.raises(AssertionError, match="^NotImplementedError: rollout is not written yet"):
        hex_checks.check_rollout(blank)

    def half_written(board, player, policy):
        raise NotImplementedError() if board.shape[0] == 3 else ValueError("no")

    with pytest.raises(AssertionError, match="^rollout gives a wrong result"):  # not every case: the usual report
        hex_checks.check_rollout(half_written)
