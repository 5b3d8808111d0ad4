"""Issue 11, items 5, 8 and 9 as units: nbgrader metadata restored before nbgrader reads it, an
autograde failure's real cause, flags read from the code in the grader's process, and the audit
pipe whose evidence the kernel cannot take back. (tests/test_autograder_e2e.py runs each of these
through real nbgrader and the sandbox.)"""
import copy
import json
import os
import random
import subprocess
import sys

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator

from autograder import audit, build, code_scan, corpus, grading_config, pipeline, probe_program, restore_cells
from autograder.grading_config import REPO_ROOT

ASSIGNMENTS = ("ttt1_mcts", "ttt2_selfplay", "azul3_play", "hex4_onpolicy", "othello5_planning", "tak6_alphazero")


def release(assignment):
    return nbformat.read(REPO_ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)


def solution(assignment):
    return nbformat.read(REPO_ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)


def known_cells(nb) -> dict:
    """What the gradebook holds for a release notebook: {grade_id: (cell_type, source, metadata)}."""
    return {c.metadata.nbgrader["grade_id"]: (c.cell_type, c.source, dict(c.metadata.nbgrader))
            for c in nb.cells if "nbgrader" in c.metadata}


def nbgrader_cells(nb) -> list:
    return [(c.metadata.nbgrader["grade_id"], c.cell_type, dict(c.metadata.nbgrader))
            for c in nb.cells if "nbgrader" in c.metadata]


def test_every_assignment_is_covered():
    assert sorted(ASSIGNMENTS) == sorted(build.ASSIGNMENTS)


# ----------------------------------------------------------------------------- item 5: restore

DAMAGE = {
    "solution": lambda cell, rng: cell.metadata.nbgrader.update(solution=not cell.metadata.nbgrader["solution"]),
    "grade": lambda cell, rng: cell.metadata.nbgrader.update(grade=not cell.metadata.nbgrader["grade"]),
    "locked": lambda cell, rng: cell.metadata.nbgrader.update(locked=not cell.metadata.nbgrader["locked"]),
    "task": lambda cell, rng: cell.metadata.nbgrader.update(task=True),
    "points": lambda cell, rng: cell.metadata.nbgrader.update(points=rng.choice([0, -1, 1e9, "ten", None])),
    "checksum": lambda cell, rng: cell.metadata.nbgrader.update(checksum="0" * 32),
    "schema": lambda cell, rng: cell.metadata.nbgrader.update(schema_version=rng.choice([1, 99, "x"])),
    "not a mapping": lambda cell, rng: cell.metadata.update(nbgrader=rng.choice(["x", 3, None, ["grade"]])),
    "unknown id": lambda cell, rng: cell.metadata.nbgrader.update(grade_id=f"bonus_{rng.randrange(99)}"),
    "id not text": lambda cell, rng: cell.metadata.nbgrader.update(grade_id=rng.choice([7, None, ["a"]])),
    "cell type": lambda cell, rng: cell.update(cell_type="markdown" if cell.cell_type == "code" else "raw"),
}


def _damaged(nb, rng, kinds):
    for cell in nb.cells:
        if "nbgrader" in cell.metadata and rng.random() < 0.3:
            DAMAGE[rng.choice(kinds)](cell, rng)
    for _ in range(rng.randrange(3)):  # deleted cells
        graded = [i for i, c in enumerate(nb.cells) if "nbgrader" in c.metadata]
        if graded:
            del nb.cells[rng.choice(graded)]
    for _ in range(rng.randrange(3)):  # duplicated cells, and extra graded cells
        source = copy.deepcopy(rng.choice(nb.cells))
        source["id"] = f"copy-{rng.randrange(10 ** 6)}"
        nb.cells.insert(rng.randrange(len(nb.cells) + 1), source)
    extra = nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": {
        "grade": True, "grade_id": "extra", "points": 50, "solution": False, "locked": True, "schema_version": 3}})
    nb.cells.insert(rng.randrange(len(nb.cells) + 1), extra)
    return nb


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.parametrize("seed", range(12))
def test_any_metadata_damage_is_restored_exactly(assignment, seed):
    rng = random.Random(seed)
    original = release(assignment)
    known = known_cells(original)
    nb = _damaged(copy.deepcopy(original), rng, sorted(DAMAGE))
    problems = restore_cells.restore(nb, known, list(known))
    # every known cell exactly once, as released (a copy moved by the student may keep its place)
    assert sorted(nbgrader_cells(nb), key=str) == sorted(nbgrader_cells(original), key=str)
    MetadataValidator().validate_nb(nb)  # what nbgrader checks before it grades
    nbformat.validate(nb)
    assert problems and all(isinstance(p, str) and p for p in problems)


def test_an_untouched_submission_reports_nothing():
    nb = solution("ttt1_mcts")
    released = release("ttt1_mcts")
    known = known_cells(released)
    for cell in nb.cells:  # solutions carry the release's metadata
        if "nbgrader" in cell.metadata:
            cell.metadata.nbgrader = copy.deepcopy(known[cell.metadata.nbgrader["grade_id"]][2])
    sources = {k: v[1] for k, v in known.items()}
    assert restore_cells.restore(nb, known, list(known), sources) == []


@pytest.mark.parametrize("kind, expected", [
    ("solution", "nbgrader metadata (solution) was changed; restored from the release"),
    ("grade", "nbgrader metadata (grade) was changed"),
    ("points", "nbgrader metadata (points) was changed"),
    ("not a mapping", "its nbgrader metadata was not a mapping; removed"),
    ("unknown id", "marked as an nbgrader cell the assignment does not have"),
    ("cell type", "was changed from code to 'markdown'; converted back"),
])
def test_each_change_is_reported_in_words(kind, expected):
    nb = release("ttt1_mcts")
    known = known_cells(nb)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_get_reward")
    DAMAGE[kind](cell, random.Random(0))
    problems = restore_cells.restore(nb, known, list(known))
    assert any(expected in p for p in problems), problems
    if kind == "unknown id":
        assert "cell 'test_get_reward' was missing; put back from the release" in problems


def test_a_deleted_cell_goes_back_where_it_was():
    nb = release("ttt1_mcts")
    known = known_cells(nb)
    order = [c.metadata.nbgrader["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") not in ("setup", "test_get_reward",
                                                                                              "get_reward")]
    problems = restore_cells.restore(nb, known, order)
    assert [c.metadata.nbgrader["grade_id"] for c in nb.cells if "nbgrader" in c.metadata] == order
    assert "cell 'get_reward' was missing; put back from the release (unanswered)" in problems


def test_an_edited_copy_of_a_locked_cell_does_not_displace_the_original():
    nb = release("ttt1_mcts")
    known = known_cells(nb)
    sources = {k: v[1] for k, v in known.items()}
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "test_get_reward")
    edited = copy.deepcopy(nb.cells[at])
    edited.source, edited["id"] = "pass", "edited-copy"
    nb.cells.insert(0, edited)
    problems = restore_cells.restore(nb, known, list(known), sources)
    assert "nbgrader" not in nb.cells[0].metadata  # the copy is a plain cell; the original stays graded
    assert nb.cells[at + 1].metadata.nbgrader["grade_id"] == "test_get_reward"
    assert any("a second copy of an assignment cell" in p for p in problems)


# ----------------------------------------------------------------------------- item 5 / 9: failure causes

NBGRADER_TRACEBACK = """[AutogradeApp | WARNING] Attribute 'points' for cell x has changed!
[AutogradeApp | ERROR] There was an error processing assignment: /tmp/x/submitted/bob/ttt1_mcts
[AutogradeApp | ERROR] Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/nbgrader/converters/base.py", line 336, in convert_notebooks
    self.convert_single_notebook(notebook_filename)
  File "/venv/lib/python3.11/site-packages/nbgrader/preprocessors/overwritecells.py", line 238, in preprocess_cell
    raise RuntimeError("Inconsistent checksums for cell {}".format(source_cell.name))
RuntimeError: Inconsistent checksums for cell test_get_reward

[AutogradeApp | ERROR] Please see the error log (.nbgrader.log) for details on the specific errors on the above failures.
"""


@pytest.mark.parametrize("stderr, cause", [
    (NBGRADER_TRACEBACK, "RuntimeError: Inconsistent checksums for cell test_get_reward"),
    ("nbformat.reader.NotJSONError: Notebook does not appear to be JSON: '{'\n[X | ERROR] Please see the error log",
     "NotJSONError: Notebook does not appear to be JSON: '{'"),
    ("[AutogradeApp | ERROR] No notebooks were matched by 'submitted/bob/ttt1_mcts/*.ipynb'\n",
     "No notebooks were matched by 'submitted/bob/ttt1_mcts/*.ipynb'"),
    ("[AutogradeApp | ERROR] Please see the error log (.nbgrader.log) for details\n", "nbgrader exited with status 1"),
    ("", "nbgrader exited with status 1"),
])
def test_the_real_cause_of_a_failed_autograde(stderr, cause):
    assert pipeline.failure_cause(stderr, "", 1) == cause


# ----------------------------------------------------------------------------- item 8: static flags

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_flag_on_the_notebooks_as_distributed_or_solved(assignment):
    assert code_scan.scan(release(assignment), assignment, assignment) == []
    assert code_scan.scan(solution(assignment), assignment, assignment) == []


def _with(assignment, answers: dict, extra_cells=()):
    nb = solution(assignment)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    nb.cells += [nbformat.v4.new_code_cell(source) for source in extra_cells]
    nb.cells.append(nbformat.v4.new_markdown_cell("I did not use string_to_action, _agprobe or sys.addaudithook."))
    return nb


@pytest.mark.parametrize("answers, extra, flag", [
    ({"decode_move": "def decode_move(code):\n    return string_to_action(code)"}, (),
     "decode_move calls a helper the notebook forbids: string_to_action"),
    ({"decode_move": "import Azul_Simulator as az\ndef decode_move(code):\n    return az.string_to_action(code)"}, (),
     "decode_move calls a helper the notebook forbids: string_to_action"),
    ({"decode_move": "def decode_move(code):\n    return parse(code)"},
     ("from Azul_Simulator import string_to_action as s2a\n_p = s2a\ndef parse(code):\n    return _p(code)",),
     "decode_move calls a helper the notebook forbids: string_to_action"),
    ({"legal_takes": "def legal_takes(state):\n    return getattr(sim, 'get_valid_mask')(state.encode())[:180]"},
     ("import Azul_Simulator as sim",), "legal_takes calls a helper the notebook forbids: get_valid_mask"),
    ({"arena": "from azcourse.core import arena as core\ndef arena(a, b, n, seed):\n    return core.play_match(a, b, n, seed)"},
     (), "arena calls a helper the notebook forbids: play_match"),
    ({}, ("import importlib\nimportlib.import_module('_agprobe.assignments.azul3_play.probes')",),
     "touches the grader's probe package (_agprobe) outside a test cell"),
    ({}, ("import sys\nsys.addaudithook(lambda e, a: None)",), "audit-hook tampering"),
    ({}, ("import os\nos.close(int(os.environ['AG_AUDIT_FD']))",), "audit-hook tampering"),
])
def test_flags_from_the_code(answers, extra, flag):
    flags = code_scan.scan(_with("azul3_play", answers, extra), "azul3_play", "azul3_play")
    assert any(flag in f for f in flags), flags


def test_a_helper_of_the_students_own_is_not_the_engines():
    own = ("def get_valid_mask(state):\n    return np.ones(180, dtype=bool)\n\n"
           "def legal_takes(state):\n    return get_valid_mask(state) & True")
    assert code_scan.scan(_with("azul3_play", {"legal_takes": own}), "azul3_play", "azul3_play") == []


# ----------------------------------------------------------------------------- issue 31: the hidden tests' kernel

HEAVY = {grade_id for grade_id in grading_config.CELL_TIMEOUTS if not grade_id.startswith("test_")}


def _program(nb):
    probes = {i: f"probe({c.metadata.nbgrader['grade_id'][len('test_'):]})" for i, c in enumerate(nb.cells)
              if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}
    return probe_program.probe_program(nb, probes, HEAVY)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nothing_honest_is_left_out_of_the_hidden_tests(assignment):
    """The notebooks as distributed, their solutions and every example submission that expects no flag: no
    statement is left out of the kernel of the hidden tests, no flag."""
    course = type("Course", (), {"release": str(REPO_ROOT / "release"), "root": "/nonexistent",
                                 "source": str(REPO_ROOT / "assignments")})
    notebooks = [release(assignment), solution(assignment)]
    for case in corpus.example_modules()[assignment].cases():
        if not case.flags and not case.problems and case.name != "as_distributed":
            notebooks += [nbformat.reads(data.decode(), as_version=4)
                          for name, data in case.make(course).items() if name.endswith(".ipynb")]
    for nb in notebooks:
        program, flags = _program(nb)
        assert flags == [] and code_scan.scan(nb, assignment, assignment) == []
        assert sum(item.kind == "probe" for item in program) == sum(
            bool(c.metadata.get("nbgrader", {}).get("grade")) and c.cell_type == "code" for c in nb.cells)


REFLECTIVE = [
    ("import sys\n_rt = sys.modules['_ag' + 'probe._runtime']", "(.modules)", True),
    ("import importlib\n_rt = importlib.import_module('_ag' + 'probe._runtime')", "(.import_module)", True),
    ("_rt = __import__('_ag' + 'probe._runtime')", "(__import__)", True),
    ("import gc\n_rt = [m for m in gc.get_objects() if m]", "(.get_objects)", True),
    ("import sys\ndef winner(board):\n    return sys._getframe(1).f_back.f_globals['board_winner'](board)",
     "(._getframe, .f_back, .f_globals)", True),
    ("def winner(board):\n    try:\n        1 / 0\n    except Exception as e:\n"
     "        return e.__traceback__.tb_frame.f_back.f_globals['board_winner'](board)", "(.__traceback__", True),
    ("import inspect\ndef winner(board):\n    return inspect.currentframe().f_back.f_globals['w'](board)",
     "(import inspect)", True),
    ("import azcourse.core.planners as p\ndef winner(board):\n    return getattr(p, 'value' + '_for')(board)",
     "(getattr with a computed name)", True),
    ("import numpy as np\nnp.sum = lambda *a, **k: 0", "(assigns np.sum on a module)", True),
    ("import builtins\nsetattr(builtins, 'print', None)", "(import builtins)", True),
    ("import sys\nsys.meta_path.insert(0, object())", "(.meta_path)", True),
    ("def winner(board):\n    return vars(__builtins__)['eval']('1')", "(__builtins__, vars)", True),
    ("def winner(board):\n    return winner.__globals__['x']", "(.__globals__)", True),
    ("import threading\nthreading.Thread(target=print).start()", "(import threading)", False),
    ("import numpy as np\nlib = np.ctypeslib.ctypes.pythonapi", "(.ctypes, .ctypeslib, .pythonapi)", False),
    ("from functools import reduce\ndef winner(board):\n    return reduce(getattr, ['a', 'b'], board)",
     "(getattr passed as a value)", True),
    ("get_ipython().input_transformers_post.append(lambda lines: [])", "(get_ipython)", False),
]


@pytest.mark.parametrize("code, what, aimed", REFLECTIVE, ids=[w for _, w, _ in REFLECTIVE])
def test_reflection_is_left_out_and_flagged_with_cell_and_line(code, what, aimed):
    nb = solution("hex4_onpolicy")
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "winner")
    nb.cells[at].source += "\n\n" + code
    program, flags = _program(nb)
    line = len(nb.cells[at].source.splitlines()) - len(code.splitlines()) + 1
    assert len(flags) == 1 and flags[0].startswith("left out of the hidden tests") and what in flags[0], flags
    assert f"cell {at + 1}, line " in flags[0]
    first_line = int(flags[0].split("line ")[1].split(" ")[0])
    assert line <= first_line < line + len(code.splitlines())
    left_out = nb.cells[at].source.splitlines()[first_line - 1]
    assert not any(left_out in item.source.splitlines() for item in program if item.origin == at)
    scanned = code_scan.scan(nb, "hex4_onpolicy", "hex4_onpolicy")
    assert any(f.startswith("reaches the grader's runtime") and f"cell {at + 1}, line" in f for f in scanned) == aimed


def test_a_students_own_helper_and_import_reach_the_hidden_tests_but_not_their_demos():
    nb = solution("othello5_planning")
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "win_rate_interval")
    nb.cells[at].source = "def win_rate_interval(wins, draws, losses):\n    return _own(wins, draws, losses)"
    own = ("import statistics as stats\nfrom math import *\nRATE = 1.96\n\ndef _own(wins, draws, losses):\n"
           "    return stats.fmean([RATE, sqrt(4)])\n\nprint(_own(1, 2, 3))\nslow = sum(range(10**9))\nimport inspect")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(own))
    program, flags = _program(nb)
    sources = [item.source for item in program if item.origin == at + 1]
    assert sources == ["import statistics as stats", "from math import *", "RATE = 1.96",
                       "def _own(wins, draws, losses):\n    return stats.fmean([RATE, sqrt(4)])"], sources
    assert flags == [] and code_scan.scan(nb, "othello5_planning", "othello5_planning") == []
    kinds = [item.kind for item in program]
    assert kinds.index("provided") < kinds.index("answer") and kinds[-1] == "probe"
    assert not any(item.kind == "provided" and item.grade_id in HEAVY for item in program)


def test_a_graded_function_written_in_a_cell_of_ones_own_is_tested():
    nb = release("ttt1_mcts")  # every answer cell holds its stub
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "get_reward")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell("def get_reward(board):\n    return 0, False"))
    program, flags = _program(nb)
    assert [item.kind for item in program if item.origin == at + 1] == ["helper"] and flags == []


def test_a_cell_that_does_not_parse_is_skipped():
    nb = _with("azul3_play", {}, ("def broken(:\n    pass", "%timeit decode_move('5B2')\n!ls"))
    assert code_scan.scan(nb, "azul3_play", "azul3_play") == []


# ----------------------------------------------------------------------------- item 8: the audit pipe

WRITER = """
import os, sys
fd = int(os.environ["AG_AUDIT_FD"])
os.write(fd, b'{"probe": "n1"}\\n{"event": "open", "path": "/x/gradebook.db"}\\n')
os.write(fd, b'{"event": "sys.addaudithook"}\\nnot json\\n' + b'x' * int(sys.argv[1]))
"""


def _child(channel, flood=0):
    fd = channel.kernel_descriptor()
    try:
        subprocess.run([sys.executable, "-c", WRITER, str(flood)], env={**os.environ, audit.ENV: str(fd)},
                       pass_fds=[fd], check=True, timeout=60)
    finally:
        os.close(fd)


def test_the_audit_pipe_keeps_what_a_process_wrote_and_flags_missing_announcements():
    channel = audit.AuditChannel()
    _child(channel)
    records = channel.close()
    assert records == [{"probe": "n1"}, {"event": "open", "path": "/x/gradebook.db"}, {"event": "sys.addaudithook"}]
    flags = audit.flags(records, ["n1", "n2"])
    assert "tried to access a grader path: /x/gradebook.db" in flags
    assert "audit-hook tampering: the notebook added an audit hook of its own" in flags
    assert any("audit channel was closed or replaced (1 test probe(s) not announced)" in f for f in flags)
    assert not any("not announced" in f for f in audit.flags(records, ["n1"]))


def test_a_flood_on_the_audit_pipe_is_capped_and_never_blocks_the_writer():
    channel = audit.AuditChannel()
    _child(channel, flood=20 * audit.LIMIT)
    records = channel.close()
    assert records[:2] == [{"probe": "n1"}, {"event": "open", "path": "/x/gradebook.db"}]
    assert channel.dropped >= 19 * audit.LIMIT
    json.dumps(records)
