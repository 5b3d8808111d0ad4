"""The hidden tests of part 6 (Tak and AlphaZero) pass the reference and fail every wrong answer of the corpus.

No kernel: ``check_<name>`` probes and judges in this process (``autograder.probes.run_check``), as in an
instructor's own notebook. A wrong answer of ``tests/student_mistakes.py`` is executed in a copy of the
reference namespace, so its globals hold the notebook's helpers (``STEPS``, ``CAP``, ``exploration_rate``
...) as in a student's kernel. The pack's Tak engine is the rules' source of truth: the reference's moves and
roads agree with it on every hidden case. The loss's check differentiates a network per case: it is slow.
"""
import math

import numpy as np
import pytest

from autograder import reference
from autograder.assignments.tak6_alphazero import checks as tak_checks
from azcourse.tak.game import Tak
from student_mistakes import MISTAKES, NOTEBOOK_OF, function_of, mistake, with_globals

JAX_FUNCTIONS = {"alphazero_loss"}
slow_if_jax = {name: [pytest.mark.slow] if name in JAX_FUNCTIONS else [] for name in tak_checks.JUDGES}
TAK = [(key, label) for key, mistakes in MISTAKES.items() if NOTEBOOK_OF[key] == "tak6_alphazero" for label in mistakes]


@pytest.fixture(scope="module")
def ref():
    return reference.reference_namespace("tak6_alphazero", "tak6_alphazero")


def hidden_failure(ref: dict, key: str, label: str) -> str:
    """The message of the hidden check's failure on a wrong answer (the check must fail)."""
    with pytest.raises(AssertionError) as failure:
        getattr(tak_checks, f"check_{function_of(key)}")(mistake(ref, key, label))
    return str(failure.value)


@pytest.mark.parametrize("name", [pytest.param(name, marks=slow_if_jax[name]) for name in tak_checks.JUDGES])
def test_the_reference_passes_every_check(ref, name):
    getattr(tak_checks, f"check_{name}")(ref[name])


def test_every_tak_function_has_its_mistakes():
    assert {function_of(key) for key, _ in TAK} == set(tak_checks.JUDGES)


@pytest.mark.parametrize("key, label", [pytest.param(key, label, marks=slow_if_jax[function_of(key)]) for key, label in TAK],
                         ids=[f"{key}: {label}" for key, label in TAK])
def test_every_mistake_fails_its_hidden_check_and_names_it(ref, key, label):
    message = hidden_failure(ref, key, label)
    assert message.startswith(f"{function_of(key)} gives a wrong result on "), message


# ---------------------------------------------------------------- the rules' source of truth

def test_the_reference_moves_and_roads_agree_with_the_engine_on_every_hidden_case(ref):
    for case in tak_checks.cases_stack_moves():
        board, square = tuple(tuple(s) for s in case["board"]), case["square"]
        game = Tak(math.isqrt(len(board)))
        engine = []
        if board[square]:
            state = ref["state_of"](board, ply=2 + (board[square][-1] & 1))
            engine = [game.move_of(a) for a in game.legal_actions(state) if a >= game.placements]
            engine = [(d, drops) for s, d, drops in engine if s == square]
        assert sorted(ref["stack_moves"](board, square)) == sorted(engine), case
    roads = 0
    for case in tak_checks.cases_has_road():
        board = tuple(tuple(s) for s in case["board"])
        expected = Tak(math.isqrt(len(board))).has_road(ref["state_of"](board), case["colour"])
        assert ref["has_road"](board, case["colour"]) == expected, case
        roads += expected
    assert 40 <= roads  # enough roads for a wrong answer to show


def test_the_hidden_cases_hold_tall_stacks_and_capstones_facing_walls():
    cases = tak_checks.cases_stack_moves()
    tall = [c for c in cases if len(c["board"][c["square"]]) > math.isqrt(len(c["board"]))]
    capstones = [c for c in cases if c["board"][c["square"]] and c["board"][c["square"]][-1] >> 1 == 2]
    assert len(tall) >= 20 and len(capstones) >= 20
    assert {math.isqrt(len(c["board"])) for c in cases} == {3, 4, 5, 6}


# ---------------------------------------------------------------- what the judges say

def test_a_carry_limit_slip_is_told_the_rule(ref):
    message = hidden_failure(ref, "stack_moves", "ignores the carry limit")
    assert "the carry limit is the board size" in message and "as code: stacks(" in message


def test_a_capstone_carrying_others_onto_a_wall_is_told_so(ref):
    assert "the capstone flattens a wall only alone" in hidden_failure(ref, "stack_moves",
                                                                      "the capstone flattens while carrying others")


def test_missing_flattening_moves_are_listed(ref):
    assert "legal but not returned" in hidden_failure(ref, "stack_moves", "no capstone flattening")


def test_a_road_judge_lists_the_road_squares(ref):
    message = hidden_failure(ref, "has_road", "walls count as road squares")
    assert "its road squares (a flat or capstone of its own on top)" in message


def test_the_reports_exploration_rate_is_recognised(ref):
    assert "which is the report's formula" in hidden_failure(ref, "exploration_rate",
                                                             "the report's formula (c_init inside the log)")


def test_puct_select_is_graded_with_a_correct_exploration_rate(ref):
    broken = lambda visits, c_init, c_base: -9.0  # noqa: E731
    namespace = with_globals(ref, ("puct_select",), exploration_rate=broken)
    tak_checks.check_puct_select(namespace["puct_select"])
    assert namespace["exploration_rate"] is broken


def test_a_constant_exploration_rate_in_puct_select_fails(ref):
    assert "C(s) = " in hidden_failure(ref, "puct_select", "C(s) constant (c_init)")


@pytest.mark.parametrize("label, said", [
    ("noise over every action, illegal ones too", "illegal actions got probability"),
    ("the prior not renormalised", "which is the prior's legal entries not renormalised"),
    ("the weights swapped", "which is the weights swapped"),
    ("renormalised after mixing", "which is the mixture renormalised after mixing an unrenormalised prior"),
    ("a generator of its own", "the random generator was used differently"),
    ("mixes in place", "it changed prior or legal"),
])
def test_noise_slips_are_named(ref, label, said):
    assert said in hidden_failure(ref, "add_dirichlet_noise", label)


@pytest.mark.slow
@pytest.mark.parametrize("label, said", [
    ("cross-entropy over illegal moves too", "which is the softmax over ALL actions"),
    ("L2 on the kernels only", "which is the kernels only (the biases left out)"),
    ("L2 subtracted", "which is with a minus sign"),
    ("the L2 term without c", "which is without the factor c"),
    ("the value loss summed over the batch", "the value loss (terms[0])"),
])
def test_loss_slips_are_named(ref, label, said):
    assert said in hidden_failure(ref, "alphazero_loss", label)


@pytest.mark.parametrize("label, said", [
    ("the normal approximation", "which is the normal approximation"),
    ("draws counted as losses", "which is draws counted as losses"),
    ("draws left out of the games", "which is draws left out of the games"),
    ("z fixed at 1.96", "which is z = 1.96 whatever z is given"),
])
def test_interval_slips_are_named(ref, label, said):
    assert said in hidden_failure(ref, "tak6_alphazero.win_rate_interval", label)


def test_a_blank_answer_is_named_as_not_written_rather_than_wrong():
    def blank(*args):
        raise NotImplementedError()

    with pytest.raises(AssertionError, match="^NotImplementedError: has_road is not written yet"):
        tak_checks.check_has_road(blank)


def test_the_wilson_helper_of_the_judge_matches_the_arena():
    from azcourse.core.arena import wilson_interval

    for wins, n in ((0, 10), (3, 10), (10, 10), (250, 400)):
        assert np.allclose(tak_checks.wilson(wins / n, n, 1.959964)[1:], wilson_interval(wins, n))
