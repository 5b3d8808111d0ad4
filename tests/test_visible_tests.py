"""The notebooks' visible tests catch realistic mistakes and name the culprit (issue 12).

For every wrong answer in ``tests/student_mistakes.py`` (at least three per TODO), the notebook's
code cells run as a student runs them (provided cells, answer cells with the mistake in place of
one function, then each visible test, hidden tests left out). The test of the wrong function must
fail with a message that names it and says what was expected and what came back; no other
function's test may fail (a test whose prerequisite is wrong stops with "fix X first" instead,
``PrerequisiteNotPassed``, which the autograder leaves to the hidden test).
"""
import ast
import contextlib
import io
import re

import nbformat
import pytest

from azcourse import visible_checks
from azcourse.notebook_code import strip_solution_markers
from azcourse.visible_checks import PASSED
from autograder.grading_config import REPO_ROOT
from student_mistakes import MISTAKES, NOTEBOOK_OF, function_of

# Locked cells the answers and tests need (the demos, training and matches are left out).
PROVIDED = {"ttt1_mcts": {"setup", "game_provided", "mcts_provided", "mcts_eval"},
            "ttt2_selfplay": {"setup", "part1_solutions", "self_play", "network", "agents"},
            "azul3_play": {"setup"},
            "hex4_onpolicy": {"setup", "board_helpers", "mcts_provided", "anet_provided", "anet_agents"},
            "othello5_planning": {"setup", "board_helpers", "network", "tree_provided"},
            "tak6_alphazero": {"setup", "board_helpers", "search_provided", "network_provided"}}


def notebook_cells(assignment: str) -> list[tuple[str, str, str]]:
    """(grade_id, kind, source) of the cells to run: provided, answer ("solution") and test (visible part)."""
    nb = nbformat.read(REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    cells = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if cell.cell_type != "code" or grade_id is None:
            continue
        if meta.get("solution"):
            cells.append((grade_id, "solution", strip_solution_markers(cell.source)))
        elif meta.get("grade"):
            cells.append((grade_id, "test", cell.source.split("### BEGIN HIDDEN TESTS")[0]))
        elif grade_id in PROVIDED[assignment]:
            cells.append((grade_id, "provided", cell.source))
    return cells


def affected_tests(assignment: str, function: str) -> set[str]:
    """The tests a mistake in `function` can reach (its own, and those whose answer or test uses it),
    with the tests of their prerequisites and of the prerequisites' own (they must pass first)."""
    cells = notebook_cells(assignment)
    answers = [grade_id for grade_id, kind, _ in cells if kind == "solution"]
    text = {grade_id: "\n".join(s for g, _, s in cells if g in (grade_id, f"test_{grade_id}")) for grade_id in answers}
    uses = lambda name, other: re.search(rf"\b{other}\b", text[name]) is not None  # noqa: E731
    reached = {name for name in answers if name == function or uses(name, function)}
    needed, todo = set(reached), list(reached)
    while todo:  # part 5 chains them: monte_carlo_move calls rollout_value, which calls state_value
        name = todo.pop()
        for other in answers:
            if other not in needed and uses(name, other):
                needed.add(other)
                todo.append(other)
    return {f"test_{name}" for name in needed}


def run_visible_tests(assignment: str, mistake: tuple[str, str] | None = None, only=None, namespace=None) -> dict:
    """{test grade_id: (status, message)}: status passed, skipped (a prerequisite to fix first) or failed.
    The cells run in `namespace` when given (a dict, left as the notebook leaves it)."""
    PASSED.clear()
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    results = {}
    for grade_id, kind, source in notebook_cells(assignment):
        if kind != "test":
            exec(compile(source, grade_id, "exec"), namespace)  # noqa: S102 (the notebook's own cells)
            if mistake and grade_id == mistake[0]:
                exec(compile(mistake[1], f"{grade_id} (mistake)", "exec"), namespace)  # noqa: S102
            continue
        if only is not None and grade_id not in only:
            continue
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(source, grade_id, "exec"), namespace)  # noqa: S102
        except visible_checks.PrerequisiteNotPassed as stop:
            results[grade_id] = ("skipped", str(stop))
            continue
        except Exception as exc:  # noqa: BLE001 (any error is a failed test, as in Jupyter)
            results[grade_id] = ("failed", f"{type(exc).__name__}: {exc}")
            continue
        results[grade_id] = ("passed", printed.getvalue())
    return results


CASES = [(key, label) for key, mistakes in MISTAKES.items() for label in mistakes]
# Mistakes that a hand-made case catches before any sweep or comparison: what its message must say.
CAUGHT_FIRST_BY = {("flips", "seven directions: down-left forgotten"): "the one going down-left",
                   ("simulate", "N(s, a) under the square root"): "the PUCT term",
                   ("simulate", "sqrt of the sum of N, without the 1"): "the PUCT term",
                   ("simulate", "UCB without the prior"): "the PUCT term",
                   ("tree_policy", "ln of the edges' visits for N(s)"): "N(s) is the argument parent_visits"}


def test_every_todo_has_at_least_three_mistakes():
    assert set(MISTAKES) == set(NOTEBOOK_OF)
    assert all(len(mistakes) >= 3 for mistakes in MISTAKES.values())
    for assignment in PROVIDED:  # every answer cell of every notebook, and nothing else
        answers = {grade_id for grade_id, kind, _ in notebook_cells(assignment) if kind == "solution"}
        assert answers == {function_of(key) for key, notebook in NOTEBOOK_OF.items() if notebook == assignment}


@pytest.mark.slow
@pytest.mark.parametrize("assignment", sorted(PROVIDED))
def test_the_reference_passes_every_visible_test(assignment):
    results = run_visible_tests(assignment)
    assert results and all(status == "passed" for status, _ in results.values()), results
    assert all("visible tests passed" in message for _, message in results.values())


@pytest.mark.slow
@pytest.mark.parametrize("key, label", CASES, ids=[f"{key}: {label}" for key, label in CASES])
def test_a_mistake_fails_its_own_test_only_and_names_it(key, label):
    assignment, function = NOTEBOOK_OF[key], function_of(key)
    affected = affected_tests(assignment, function)
    results = run_visible_tests(assignment, (function, MISTAKES[key][label]), only=affected)
    status, message = results[f"test_{function}"]
    assert status == "failed", f"{function} ({label}) passes its visible test"
    assert function in message and "expected" in message and "got" in message, message
    assert CAUGHT_FIRST_BY.get((key, label), "") in message, message
    others = {name: result for name, result in results.items() if name != f"test_{function}"}
    assert all(status != "failed" for status, _ in others.values()), others
    for name, (status, message) in others.items():
        if status == "skipped":  # a test that calls the wrong function says which one to fix
            assert f"fix {function}" in message, message


def test_a_dependent_test_says_which_prerequisite_to_fix():
    results = run_visible_tests("ttt1_mcts", ("select_action", MISTAKES["select_action"]["ignores c_base"]))
    status, message = results["test_search_iter"]
    assert status == "skipped" and "search_iter was not tested: fix select_action first" in message


def test_messages_name_the_call_the_expected_and_the_actual_value():
    with pytest.raises(AssertionError) as failure:
        visible_checks.check_equal("f(1, 2)", 4, 3, "f adds its arguments")
    assert str(failure.value) == "f(1, 2)\n  expected: 3\n  got:      4\n  why: f adds its arguments"
    with pytest.raises(AssertionError, match="expected: raises ValueError\n  got:      returned 7"):
        visible_checks.check_raises("g('x')", ValueError, lambda: 7)
    with pytest.raises(AssertionError):
        visible_checks.check_equal("h()", True, 1)  # a number is not a boolean
    with pytest.raises(AssertionError):
        visible_checks.check_close("k()", [float("nan")], [0.0])


def test_an_unwritten_function_is_named_with_its_cell_in_words():
    blank = "def flips(board, row, col, colour):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    status, message = run_visible_tests("othello5_planning", ("flips", blank), only={"test_flips"})["test_flips"]
    assert status == "failed" and message == (
        "NotWrittenYet: flips is not written yet: the cell that starts with `def flips(` still raises "
        "NotImplementedError. Write the function there, run that cell, then run this test again.")


def test_prerequisite_messages_are_sentences_for_one_several_and_a_demo():
    message = visible_checks.prerequisite_message
    assert message("legal_moves", ["flips"]).startswith(
        "legal_moves was not tested: fix flips first (its visible test above fails, or was not run since you last "
        "changed it). legal_moves calls it,")
    assert message("search_iter", ["get_reward", "select_action", "expand_node"]).startswith(
        "search_iter was not tested: fix get_reward, select_action and expand_node first (their visible tests above "
        "fail, or were not run since you last changed them). search_iter calls them,")
    assert message("the experiments", ["win_rate_interval", "puct_select"]).startswith(
        "This cell did not run the experiments: fix win_rate_interval and puct_select first (their visible tests "
        "above fail, or were not run since you last changed them). The cell uses them:")


@pytest.mark.parametrize("demo", ["round_robin", "mcts_strength"])
def test_othello_matches_stop_before_running_a_wrong_simulate(demo):
    """The round robin and the simulation sweep play MCTS for minutes: a simulate that fails its visible test
    (mcts_move's own test uses a stand-in simulate, so it passes) stops them at once, naming simulate."""
    namespace = {}
    results = run_visible_tests("othello5_planning", ("simulate", MISTAKES["simulate"]["UCB without the prior"]),
                                namespace=namespace)
    assert results.pop("test_simulate")[0] == "failed" and all(s == "passed" for s, _ in results.values()), results
    nb = nbformat.read(REPO_ROOT / "assignments" / "othello5_planning" / "othello5_planning.ipynb", as_version=4)
    source = next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == demo)
    first = ast.get_source_segment(source, ast.parse(source).body[0])
    assert first.startswith("needs(")
    with pytest.raises(visible_checks.PrerequisiteNotPassed, match=r"^This cell did not run the \w[\w ]+: fix "
                                                                   r"simulate first \(its visible test above fails"):
        exec(compile(first, demo, "exec"), namespace)  # noqa: S102 (the notebook's own cell)


def test_a_library_that_raises_not_implemented_is_not_an_unwritten_answer():
    """NotImplementedError from a library's code (JAX or numpy refusing an operation) goes through as it is;
    only a function of the notebook (module __main__) still raising it is "not written yet"."""
    library = {"__name__": "some_backend"}
    exec("def run():\n    raise NotImplementedError('this backend cannot do that')", library)  # noqa: S102
    with pytest.raises(NotImplementedError, match="^this backend cannot do that$") as raised:
        visible_checks.attempt(library["run"])
    assert not isinstance(raised.value, visible_checks.NotWrittenYet)
    notebook = {"__name__": "__main__"}
    exec("def flips():\n    raise NotImplementedError()", notebook)  # noqa: S102
    with pytest.raises(visible_checks.NotWrittenYet, match="^flips is not written yet"):
        visible_checks.attempt(notebook["flips"])
