"""Example submissions of part 1 (tic-tac-toe MCTS), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
import io
import zipfile
from pathlib import Path

import nbformat

from ...corpus import (
    Case, as_distributed, copy_cell, filled, forgeries, grade_id, gradebook_write, nb_file, own_helper, read_hidden,
    shipped_solution, simple, source_solutions,
)

TESTS = ("test_get_next_state", "test_get_reward", "test_select_action", "test_get_action_prob", "test_expand_node",
         "test_search_iter")
T1 = set(TESTS)
DEMO = ('full', 'blank', 'partial_action_prob', 'always_equal', 'input_transformer', 'gradebook_write', 'warning')

WRONG_ACTION_PROB = '''
def get_action_prob(tree, node, temperature=1.0):
    counts = np.asarray(tree.N_sa[node], dtype=float)
    return counts / counts.sum()  # forgets the temperature
'''

NO_ANTI_DIAGONAL = '''
_reference_reward = get_reward
def get_reward(board):
    reward, done = _reference_reward(board)
    b = np.asarray(board)
    if reward != 0 and b[2] == b[4] == b[6] != 0:  # misses the anti-diagonal
        return 0, bool(np.all(b != 0))
    return reward, done
'''

ALWAYS_EQUAL = '''
class AlwaysEqual(tuple):
    """Compares equal to anything, so `==` asserts cannot fail."""
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = tuple.__hash__


def get_reward(board):
    return AlwaysEqual((0, False))
'''

SYS_EXIT = '''
import sys
def get_action_prob(tree, node, temperature=1.0):
    sys.exit("no more tests, please")
'''

OS_EXIT = '''
import os
def expand_node(tree, board, prior):
    os._exit(0)
'''

INFINITE_LOOP = '''
_reference_action_prob = get_action_prob
def get_action_prob(tree, node, temperature=1.0):
    while temperature == 0.5:
        pass
    return _reference_action_prob(tree, node, temperature)
'''

INPUT_TRANSFORMER = '''
def _skip_the_tests(lines):
    return [] if any("check" in line or "probe" in line for line in lines) else lines
get_ipython().input_transformers_post.append(_skip_the_tests)
'''

WARNING = '''
import sys
import warnings
_reference_next_state = get_next_state
_told = []
def get_next_state(board, action):
    warnings.warn("a harmless library warning", UserWarning)
    if not _told:
        print("note: this goes to stderr", file=sys.stderr)
        _told.append(1)
    return _reference_next_state(board, action)
'''

FORGED_PROBE = '''
import importlib
importlib.import_module("_agprobe.assignments.ttt1_mcts.probes").probe_get_action_prob = lambda fn, cases: []
import sys
sys.addaudithook(lambda event, args: None)
'''


def _edited_tests(course) -> dict:
    nb = filled(course, "ttt1_mcts", blank=("get_reward",))
    for cell in nb.cells:
        if grade_id(cell) == "test_get_reward":
            cell.source = 'print("all tests passed")'
        if grade_id(cell) == "test_search_iter":
            cell.source = "pass"
    return nb_file("edited_tests", "ttt1_mcts", nb)


def _deleted_tests(course) -> dict:
    nb = filled(course, "ttt1_mcts")
    nb.cells = [c for c in nb.cells if grade_id(c) not in ("test_select_action", "test_get_action_prob")]
    return nb_file("deleted_tests", "ttt1_mcts", nb)


def _stripped_metadata(course) -> dict:
    nb = filled(course, "ttt1_mcts")
    for cell in nb.cells:
        cell.metadata = {}
    return nb_file("stripped_metadata", "ttt1_mcts", nb)


def _duplicated_cells(course) -> dict:
    nb = filled(course, "ttt1_mcts")
    index = next(i for i, c in enumerate(nb.cells) if grade_id(c) == "test_get_next_state")
    nb.cells.insert(index + 1, copy_cell(nb.cells[index]))
    index = next(i for i, c in enumerate(nb.cells) if grade_id(c) == "get_reward")
    nb.cells.insert(index + 1, copy_cell(nb.cells[index]))
    return nb_file("duplicated_cells", "ttt1_mcts", nb)


def tampered_metadata(course):
    """A full answer whose nbgrader metadata makes plain nbgrader raise: a locked test cell marked
    as a solution, another as not graded, points changed, an extra graded cell worth 50 points, a
    cell whose nbgrader metadata is not a mapping, an answer cell turned into code, the locked
    setup cell deleted."""
    nb = filled(course, "ttt1_mcts")
    nb.cells = [c for c in nb.cells if grade_id(c) != "setup"]
    for cell in nb.cells:
        changes = {"test_get_reward": {"solution": True}, "test_select_action": {"grade": False},
                   "test_get_action_prob": {"points": 100}}.get(grade_id(cell), {})
        cell.metadata.get("nbgrader", {}).update(changes)
        if grade_id(cell) == "q1":
            cell.cell_type, cell.outputs, cell.execution_count = "code", [], None
    at = next(i for i, c in enumerate(nb.cells) if grade_id(c) == "test_expand_node")
    nb.cells[at:at] = [
        nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": "not a mapping"}),
        nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": {
            "grade": True, "grade_id": "bonus", "points": 50, "solution": False, "locked": True,
            "schema_version": 3, "checksum": "0", "cell_type": "code"}})]
    return nb


def _tampered_metadata(course) -> dict:
    return nb_file("tampered_metadata", "ttt1_mcts", tampered_metadata(course))


def _writes_secrets(course) -> dict:
    """A full answer whose written answer quotes hidden-test and judge lines (known from the docs, or
    guessed): the student's own text, so their feedback is delivered, not withheld."""
    from ... import leaks

    hidden, _ = leaks.secret_lines(Path(course.source))
    quoted = sorted(hidden)[:3] + sorted(leaks.judge_lines())[:3]
    nb = filled(course, "ttt1_mcts")
    for cell in nb.cells:
        if grade_id(cell) == "q1":
            cell.source += "\n\nLines I found in the course docs:\n\n" + "\n".join(f"    {line}" for line in quoted)
    return nb_file("writes_secrets", "ttt1_mcts", nb)


def _gradebook_write(course) -> dict:
    nb = filled(course, "ttt1_mcts", blank=tuple(c[len("test_"):] for c in TESTS),
                extra={"get_next_state": gradebook_write(Path(course.root))})
    return nb_file("gradebook_write", "ttt1_mcts", nb)


def _read_hidden(course) -> dict:
    blank = tuple(c[len("test_"):] for c in TESTS)
    nb = filled(course, "ttt1_mcts", blank=blank, extra={name: read_hidden(Path(course.root), "ttt1_mcts")
                                                         for name in blank})
    return nb_file("read_hidden", "ttt1_mcts", nb)


def _renamed(course) -> dict:
    return nb_file("renamed", "ttt1_mcts", filled(course, "ttt1_mcts"), name="ttt1_mcts (1) final")


def _invalid_json(course) -> dict:
    text = nbformat.writes(filled(course, "ttt1_mcts")).encode()
    return {"invalid_json/ttt1_mcts/ttt1_mcts.ipynb": text[: len(text) // 2]}


def _flat(course) -> dict:
    nb = filled(course, "ttt1_mcts", extra={"get_next_state": WARNING})
    return {"warning.ipynb": nbformat.writes(nb).encode()}


def _lms_zip(course) -> dict:
    """An unpacked LMS download: a Canvas file (student `lmsfull_1234`) and a Moodle folder holding the
    zip that participant 4242 uploaded (student `jane_doe_4242`)."""
    full = nbformat.writes(filled(course, "ttt1_mcts")).encode()
    partial = nbformat.writes(filled(course, "ttt1_mcts", extra={"get_action_prob": WRONG_ACTION_PROB})).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("homework/ttt1_mcts.ipynb", partial)
    return {"lmsfull_1234_567890_ttt1_mcts.ipynb": full,
            "Jane Doe_4242_assignsubmission_file_/homework.zip": buffer.getvalue()}



# Issue 31: forged submissions get what their own code earns and a flag saying what and where (search_iter's
# test fails with a blank get_reward, as it does without the forgery); a helper of the student's own keeps
# full marks.
FORGERIES = forgeries(
    "ttt1_mcts", T1, "get_reward", '__import__("azcourse.tictactoe.perfect", fromlist=["_reward"])._reward',
    "get_next_state",
    computed=("get_reward", "def get_reward(board):", "azcourse.tictactoe.perfect", "_reward", "_helper(board)"),
    framed=("get_next_state", "def get_next_state(board, action):", "importlib",
            'g["importlib"].import_module("azcourse.tictactoe.perfect")._next_state(board, action)'),
    also_failing=("test_search_iter",))
OWN_HELPER = own_helper("ttt1_mcts", T1, "get_action_prob", "def get_action_prob(tree, node, temperature=1.0):",
                        "math")


def cases() -> list[Case]:
    return [
        simple("full", "ttt1_mcts", T1),
        simple("blank", "ttt1_mcts", set(), blank=tuple(source_solutions("ttt1_mcts"))),
        simple("partial_action_prob", "ttt1_mcts", T1 - {"test_get_action_prob"},
               extra={"get_action_prob": WRONG_ACTION_PROB}),
        # search_iter is judged on the searches where get_reward is right: it keeps its points
        simple("partial_reward", "ttt1_mcts", T1 - {"test_get_reward"}, extra={"get_reward": NO_ANTI_DIAGONAL}),
        Case("edited_tests", "ttt1_mcts", _edited_tests, T1 - {"test_get_reward", "test_search_iter"},
             problems=["locked cell test_get_reward was edited", "locked cell test_search_iter was edited"]),
        Case("deleted_tests", "ttt1_mcts", _deleted_tests, T1, problems=["re-inserted"]),
        Case("stripped_metadata", "ttt1_mcts", _stripped_metadata, T1, problems=["metadata was missing"]),
        Case("duplicated_cells", "ttt1_mcts", _duplicated_cells, T1, problems=["duplicated cells"]),
        Case("writes_secrets", "ttt1_mcts", _writes_secrets, T1),
        Case("as_distributed", "ttt1_mcts", as_distributed("ttt1_mcts"), set()),
        Case("shipped_solution", "ttt1_mcts", shipped_solution("ttt1_mcts"), set(TESTS)),
        # The patched probe module exists only in the notebook's kernel: the hidden tests run where that code
        # never ran (it is left out and flagged), and the functions, all right, earn their points.
        simple("forged_probe", "ttt1_mcts", T1, extra={"get_next_state": FORGED_PROBE},
               flags=["touches the grader's probe package", "audit-hook tampering", "left out of the hidden tests"]),
        Case("tampered_metadata", "ttt1_mcts", _tampered_metadata, T1,
             problems=["test_get_reward': nbgrader metadata (solution) was changed",
                       "test_select_action': nbgrader metadata (grade) was changed",
                       "('bonus'): marked as an nbgrader cell the assignment does not have",
                       "malformed nbgrader metadata removed", "re-inserted from the release notebook: setup"]),
        simple("always_equal", "ttt1_mcts", T1 - {"test_get_reward", "test_search_iter"},
               extra={"get_reward": ALWAYS_EQUAL}, flags=["__eq__"]),
        simple("sys_exit", "ttt1_mcts", T1 - {"test_get_action_prob"}, extra={"get_action_prob": SYS_EXIT},
               flags=["sys.exit"]),
        simple("os_exit", "ttt1_mcts", T1 - {"test_expand_node", "test_search_iter"}, extra={"expand_node": OS_EXIT},
               flags=["os._exit", "kernel died"]),
        simple("infinite_loop", "ttt1_mcts", T1 - {"test_get_action_prob"},
               extra={"get_action_prob": INFINITE_LOOP}, flags=["timeout"]),
        # The transformer blanks the notebook kernel's test cells, but the hidden tests run in a kernel where it
        # never ran (left out, flagged): the functions, all right, earn their points.
        simple("input_transformer", "ttt1_mcts", T1, extra={"get_next_state": INPUT_TRANSFORMER},
               flags=["input/AST transformer", "left out of the hidden tests"]),
        Case("gradebook_write", "ttt1_mcts", _gradebook_write, set(), flags=["database", "grader path"]),
        Case("read_hidden", "ttt1_mcts", _read_hidden, set(), flags=["grader files", "grader path"]),
        Case("warning", "ttt1_mcts", _flat, T1),
        Case("renamed", "ttt1_mcts", _renamed, T1, problems=["graded as ttt1_mcts.ipynb"]),
        Case("invalid_json", "ttt1_mcts", _invalid_json, set(), problems=["not a valid notebook"]),
        Case("lmsfull", "ttt1_mcts", _lms_zip, T1, student="lmsfull_1234"),  # Canvas: name_userid,
        Case("jane_doe", "ttt1_mcts", lambda course: {}, T1 - {"test_get_action_prob"},  # Moodle, written by _lms_zip
             student="jane_doe_4242"),
        *FORGERIES,
        OWN_HELPER,
    ]
