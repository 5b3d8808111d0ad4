"""Releases that change during the term (issue 50, item 5): each release notebook carries its version;
`collect` records which release a submission was made from; the text of a locked cell the grader replaces
is never scanned as the student's code, but every cell that runs as written still is.

No kernel runs: collect alone (quick tier). The earlier releases are read from this repository's git history.
"""
import json
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder import collect, corpus
from autograder.build import ASSIGNMENTS
from autograder.generation import RELEASE_KEY, release_version
from autograder.grading_config import REPO_ROOT

RELEASE = REPO_ROOT / "release"
NOTEBOOKS = [(a, nb) for a, notebooks in ASSIGNMENTS.items() for nb in notebooks]


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout


def _honest(nb, answers: dict):
    """`nb` with the reference answers typed into its answer cells (as corpus.filled fills them)."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = answers[meta["grade_id"]] if cell.cell_type == "code" else corpus.MODEL_ANSWER
    return nb


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_the_release_carries_its_version(assignment, notebook):
    nb = nbformat.read(RELEASE / assignment / f"{notebook}.ipynb", as_version=4)
    assert nb.metadata[RELEASE_KEY]["release"] == release_version(nb)


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_honest_submissions_from_every_earlier_release_are_not_flagged(assignment, notebook, tmp_path):
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: no earlier release to read")
    relative = f"release/{assignment}/{notebook}.ipynb"
    commits = _git("log", "--format=%H", "--", relative).split()
    targets = collect.release_targets(RELEASE, [assignment])
    answers = corpus.source_solutions(assignment)
    earlier = 0
    for commit in commits:
        old = nbformat.reads(_git("show", f"{commit}:{relative}"), as_version=4)
        path = tmp_path / f"{commit}.ipynb"
        nbformat.write(_honest(old, answers), path)
        nb, record = collect.normalise(path, targets, "honest", assignment, f"{notebook}.ipynb")
        assert (record.assignment, record.notebook) == (assignment, notebook)
        assert record.flags == [], (commit, record.flags)
        assert not [p for p in record.problems if "edited" in p], (commit, record.problems)
        assert record.release and record.release["version"], commit
        if not record.release["current"]:
            earlier += 1
            assert record.release["commit"] in commits
            made = next(r for r in targets[0].earlier if r.commit == record.release["commit"])
            # the release it names holds the submission's locked cells as they are
            held = {c.metadata["nbgrader"]["grade_id"]: c.source for c in old.cells if "nbgrader" in c.metadata}
            assert all(held.get(k) == v for k, v in made.locked.items())
        # what the grader will run in place of each locked cell: the current release's text
        current = {c.metadata["nbgrader"]["grade_id"]: c.source for c in targets[0].cells
                   if c.metadata.get("nbgrader", {}).get("locked")}
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in current:
                assert cell.source.strip() == current[grade_id].strip(), (commit, grade_id)
    if len(commits) > 2:
        assert earlier, "no earlier release recognised in the history"


def test_the_current_release_is_recorded_with_its_version(tmp_path):
    nb = corpus.filled(type("C", (), {"release": RELEASE}), "ttt1_mcts")
    path = tmp_path / "ttt1_mcts.ipynb"
    nbformat.write(nb, path)
    _, record = collect.normalise(path, collect.release_targets(RELEASE, ["ttt1_mcts"], history=False), "s", None)
    assert record.flags == [] and record.problems == []
    assert record.release["current"] and record.release["version"] == nb.metadata[RELEASE_KEY]["release"]
    assert record.release["how"] == "its metadata and locked cells"
    assert json.loads(json.dumps(record.as_dict()))["release"] == record.release


def _locked_code_cell(nb):
    return next(c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("locked")
                and not c.metadata["nbgrader"].get("grade"))


def _collected(tmp_path, nb):
    path = tmp_path / "ttt1_mcts.ipynb"
    nbformat.write(nb, path)
    return collect.normalise(path, collect.release_targets(RELEASE, ["ttt1_mcts"], history=False), "s", None)


def test_text_the_grader_replaces_is_not_scanned_but_reported(tmp_path):
    """An edited locked cell that keeps its id: the grader runs the original, so its text is no flag (the
    edit is still a problem)."""
    nb = corpus.filled(type("C", (), {"release": RELEASE}), "ttt1_mcts")
    cell = _locked_code_cell(nb)
    cell.source += "\nimport os; os._exit(0)  # autograder"
    _, record = _collected(tmp_path, nb)
    assert record.flags == []
    assert any("was edited" in p for p in record.problems)


def test_text_that_runs_as_written_is_still_scanned(tmp_path):
    """What keeps no locked id runs as written, so it is scanned: a second copy of a locked cell (only the
    first keeps its role), a cell whose id the release does not have, a locked cell's metadata forged onto
    a cell of the student's own."""
    for how in ("second copy", "unknown id", "forged locked"):
        nb = corpus.filled(type("C", (), {"release": RELEASE}), "ttt1_mcts")
        locked = _locked_code_cell(nb)
        evil = nbformat.v4.new_code_cell(locked.source + "\nimport os; os._exit(0)")
        if how == "second copy":
            evil.metadata["nbgrader"] = json.loads(json.dumps(locked.metadata["nbgrader"]))
            nb.cells.insert(nb.cells.index(locked) + 1, evil)
        elif how == "unknown id":
            evil.metadata["nbgrader"] = dict(locked.metadata["nbgrader"], grade_id="not_in_the_release")
            nb.cells.append(evil)
        else:
            evil.metadata["nbgrader"] = {"grade_id": "own_cell", "locked": True, "solution": False,
                                         "grade": False, "schema_version": 3}
            nb.cells.append(evil)
        submitted, record = _collected(tmp_path, nb)
        assert "calls os._exit / os.kill / os.abort" in record.flags, how


def test_a_workspace_copy_of_the_release_knows_the_courses_earlier_releases(tmp_path):
    """collect with a release folder outside git (a grading workspace's build) reads the course's history;
    the submission lands in submitted/ with the current release's locked cells, unflagged."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: no earlier release to read")
    relative = "release/ttt2_selfplay/ttt2_selfplay.ipynb"
    history = _git("log", "--format=%H", "--", relative).split()
    oldest = history[-1]
    old = _honest(nbformat.reads(_git("show", f"{oldest}:{relative}"), as_version=4),
                  corpus.source_solutions("ttt2_selfplay"))
    release = tmp_path / "release" / "ttt2_selfplay"
    release.mkdir(parents=True)
    (release / "ttt2_selfplay.ipynb").write_bytes((REPO_ROOT / relative).read_bytes())
    incoming = tmp_path / "incoming" / "alice" / "ttt2_selfplay"
    incoming.mkdir(parents=True)
    nbformat.write(old, incoming / "ttt2_selfplay.ipynb")
    [record] = collect.collect(tmp_path / "incoming", tmp_path / "submitted", tmp_path / "release")
    assert record.submitted and record.flags == [] and record.problems == []
    # the oldest, or a later one with the same locked cells (the newest of equals is named)
    assert record.release["commit"] in history and not record.release["current"]
    graded = nbformat.read(tmp_path / "submitted" / "alice" / "ttt2_selfplay" / "ttt2_selfplay.ipynb", as_version=4)
    current = nbformat.read(REPO_ROOT / relative, as_version=4)
    locked = {c.metadata["nbgrader"]["grade_id"]: c.source for c in current.cells
              if c.metadata.get("nbgrader", {}).get("locked")}
    assert all(c.source == locked[c.metadata["nbgrader"]["grade_id"]] for c in graded.cells
               if c.metadata.get("nbgrader", {}).get("grade_id") in locked)
