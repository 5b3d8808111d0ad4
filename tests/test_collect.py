"""Collect: who a file belongs to (only the identity it arrived under), every LMS layout, collisions,
Blackboard attempts, archive rules, repairs; and the `collect` / `add-students` commands end to end.

Unit tests call `autograder.collect.collect` on folders built from the release notebooks; the CLI
tests run `python -m autograder --workspace WS ...` against one workspace built for the module.
"""
import csv
import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from courses import built_course

from autograder import collect, corpus, pipeline
from autograder.assignments.ttt1_mcts import examples as ttt1_examples
from autograder.grading_config import REPO_ROOT

RELEASE = REPO_ROOT / "release"


def notebook(assignment: str = "ttt1_mcts", marker: str = "", release: Path = RELEASE) -> bytes:
    """The release notebook, with `# MARKER<marker>` appended to its first answer cell (to tell copies apart)."""
    nb = nbformat.read(Path(release) / assignment / f"{assignment}.ipynb", as_version=4)
    if marker:
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code")
        cell.source += f"\n# MARKER<{marker}>\n"
    return nbformat.writes(nb).encode()


def write(folder: Path, files: dict) -> Path:
    for relative, data in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


def zipped(files: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def run_collect(tmp_path, files: dict, source=None, **kwargs):
    incoming = write(tmp_path / "incoming", files)
    results = collect.collect(source or incoming, tmp_path / "submitted", RELEASE, **kwargs)
    return results, tmp_path / "submitted"


def marker(submitted: Path, student: str, assignment: str = "ttt1_mcts") -> str | None:
    """The marker of the notebook collected for `student` (None: an unmarked notebook)."""
    nb = nbformat.read(submitted / student / assignment / f"{assignment}.ipynb", as_version=4)
    found = re.findall(r"# MARKER<(.*?)>", "\n".join(c.source for c in nb.cells))
    assert len(found) <= 1, found
    return found[0] if found else None


def graded_students(submitted: Path) -> set:
    return {p.relative_to(submitted).parts[0] for p in submitted.glob("*/*/*.ipynb")}


# ----------------------------------------------------------------------------- who a file belongs to

def test_a_zip_never_names_another_student(tmp_path):
    """Mallory's upload holds alice/ttt1_mcts/ttt1_mcts.ipynb: it is Mallory's (flagged), Alice keeps hers."""
    results, submitted = run_collect(tmp_path, {
        "alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(marker="written by alice"),
        "mallory.zip": zipped({"alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(marker="planted by mallory")}),
    })
    assert marker(submitted, "alice") == "written by alice"
    assert marker(submitted, "mallory") == "planted by mallory"
    by_origin = {r.origin: r for r in results}
    planted = by_origin["mallory.zip/alice/ttt1_mcts/ttt1_mcts.ipynb"]
    assert planted.student == "mallory" and planted.submitted
    assert any("names another student (alice)" in f for f in planted.flags)
    alice = by_origin["alice/ttt1_mcts/ttt1_mcts.ipynb"]
    assert alice.student == "alice" and alice.submitted and not alice.problems


def test_a_zip_cannot_create_a_submission_for_someone_else(tmp_path):
    """Alice did not submit; paths in uploads (nbgrader, Canvas or Moodle names) still never become her."""
    upload = zipped({"alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(marker="one"),
                     "alice_4242_1_ttt2_selfplay.ipynb": notebook("ttt2_selfplay", marker="two"),
                     "Alice A_7_assignsubmission_file_/azul3_play.ipynb": notebook("azul3_play", marker="three")})
    results, submitted = run_collect(tmp_path, {"Mallory M_99_assignsubmission_file_/work.zip": upload})
    assert graded_students(submitted) == {"mallory_m_99"}
    assert {r.student for r in results} == {"mallory_m_99"}
    assert {(r.assignment, r.submitted) for r in results} == {("ttt1_mcts", True), ("ttt2_selfplay", True),
                                                               ("azul3_play", True)}


def test_moodle_namesakes_stay_two_students(tmp_path):
    results, submitted = run_collect(tmp_path, {
        "Jane Doe_4242_assignsubmission_file_/ttt1_mcts.ipynb": notebook(marker="jane 4242"),
        "Jane Doe_5151_assignsubmission_file_/ttt1_mcts.ipynb": notebook(marker="jane 5151"),
    })
    assert graded_students(submitted) == {"jane_doe_4242", "jane_doe_5151"}
    assert marker(submitted, "jane_doe_4242") == "jane 4242"
    assert marker(submitted, "jane_doe_5151") == "jane 5151"
    assert all(r.submitted and not r.problems for r in results), [r.as_dict() for r in results]
    assert {r.identity for r in results} == {"Moodle participant 4242 (Jane Doe)",
                                             "Moodle participant 5151 (Jane Doe)"}


# ----------------------------------------------------------------------------- layouts

@pytest.mark.parametrize("files, student, layout, origin", [
    ({"bob/ttt1_mcts/ttt1_mcts.ipynb": notebook()}, "bob", "nbgrader", "bob/ttt1_mcts/ttt1_mcts.ipynb"),
    ({"Bob.Smith-2/ttt1_mcts/ttt1_mcts.ipynb": notebook()}, "Bob.Smith-2", "nbgrader", None),  # valid: as is
    ({"Bob Smith/ttt1_mcts/ttt1_mcts.ipynb": notebook()}, "bob_smith", "nbgrader", None),    # not valid: slug
    ({"bob.ipynb": notebook()}, "bob", "flat", "bob.ipynb"),
    ({"bob.zip": zipped({"ttt1_mcts.ipynb": notebook()})}, "bob", "flat", "bob.zip/ttt1_mcts.ipynb"),
    ({"doejane_4242_777_ttt1_mcts.ipynb": notebook()}, "doejane_4242", "canvas", None),
    ({"doejane_LATE_4242_777_ttt1_mcts.ipynb": notebook()}, "doejane_4242", "canvas", None),
    ({"doejane_4242_777_hw.zip": zipped({"x/ttt1_mcts.ipynb": notebook()})}, "doejane_4242", "canvas",
     "doejane_4242_777_hw.zip/x/ttt1_mcts.ipynb"),
    ({"Jane Doe_4242_assignsubmission_file_/ttt1_mcts.ipynb": notebook()}, "jane_doe_4242", "moodle", None),
    ({"Jane Doe_4242_assignsubmission_file_ttt1_mcts.ipynb": notebook()}, "jane_doe_4242", "moodle", None),
    ({"José Núñez_17_assignsubmission_file_/ttt1_mcts.ipynb": notebook()}, "jose_nunez_17", "moodle", None),
    ({"Homework 1_jdoe_attempt_2024-03-01-09-30-00_ttt1_mcts.ipynb": notebook(),
      "Homework 1_jdoe_attempt_2024-03-01-09-30-00.txt": b"Name: Jane Doe (jdoe)\n"}, "jdoe", "blackboard", None),
], ids=["nbgrader", "nbgrader-valid-id", "nbgrader-slugged", "flat", "flat-zip", "canvas", "canvas-late",
        "canvas-zip", "moodle-folder", "moodle-file", "moodle-accents", "blackboard"])
def test_each_layout_gives_its_student_id(tmp_path, files, student, layout, origin):
    results, submitted = run_collect(tmp_path, files)
    assert [(r.student, r.layout, r.submitted) for r in results] == [(student, layout, True)]
    assert not results[0].problems, results[0].problems  # the original file name is the notebook's
    assert graded_students(submitted) == {student}
    if origin:
        assert results[0].origin == origin


def test_the_instructors_lms_zip_is_read_by_its_top_level_entries(tmp_path):
    """Passing the LMS's own zip: its top-level entries are the identities; the zips inside are uploads."""
    download = tmp_path / "canvas_download.zip"
    download.write_bytes(zipped({
        "doejane_4242_1_ttt1_mcts.ipynb": notebook(marker="jane"),
        "roebob_late_5151_2_ttt1_mcts.ipynb": notebook(marker="bob"),
        "evemallory_6_3_upload.zip": zipped({"doejane_4242_1_ttt1_mcts.ipynb": notebook(marker="eve")}),
        "__MACOSX/._doejane_4242_1_ttt1_mcts.ipynb": b"junk",
    }))
    results = collect.collect(download, tmp_path / "submitted", RELEASE)
    submitted = tmp_path / "submitted"
    assert graded_students(submitted) == {"doejane_4242", "roebob_5151", "evemallory_6"}
    assert marker(submitted, "doejane_4242") == "jane"
    assert marker(submitted, "evemallory_6") == "eve"
    assert len(results) == 3
    eve = next(r for r in results if r.student == "evemallory_6")
    assert eve.origin == "evemallory_6_3_upload.zip/doejane_4242_1_ttt1_mcts.ipynb"
    assert "names another student (doejane_4242_1_ttt1_mcts.ipynb)" in eve.flags[0]


def test_one_canvas_user_spelt_two_ways_is_one_student(tmp_path):
    """The numeric user id is the identity: the name part's case or punctuation changes nothing."""
    results, submitted = run_collect(tmp_path, {
        "doejane_4242_1_ttt1_mcts.ipynb": notebook(),
        "DoeJane_4242_2_ttt2_selfplay.ipynb": notebook("ttt2_selfplay"),
    })
    assert {r.student for r in results} == {"doejane_4242"}
    assert all(r.submitted and not r.problems for r in results), [r.as_dict() for r in results]
    assert graded_students(submitted) == {"doejane_4242"}


def test_the_latest_blackboard_attempt_wins(tmp_path):
    results, submitted = run_collect(tmp_path, {
        "HW1_jdoe_attempt_2024-03-01-09-30-00_ttt1_mcts.ipynb": notebook(marker="first attempt"),
        "HW1_jdoe_attempt_2024-03-01-09-30-00.txt": b"receipt",
        "HW1_jdoe_attempt_2024-03-02-18-00-00_ttt1_mcts.ipynb": notebook(marker="second attempt"),
        "HW1_jdoe_attempt_2024-03-02-18-00-00.txt": b"receipt",
    })
    assert marker(submitted, "jdoe") == "second attempt"
    assert len(results) == 2  # receipts make no record
    older = next(r for r in results if "09-30-00" in r.origin)
    assert not older.submitted and "older Blackboard attempt (2024-03-01-09-30-00)" in older.problems[0]
    assert "2024-03-02-18-00-00" in older.problems[0]
    assert next(r for r in results if r is not older).submitted


def test_one_student_two_files_for_one_notebook_keeps_the_one_with_its_name(tmp_path):
    results, submitted = run_collect(tmp_path, {
        "bob/a draft.ipynb": notebook(marker="draft"),
        "bob/ttt1_mcts/ttt1_mcts.ipynb": notebook(marker="final"),
    })
    assert marker(submitted, "bob") == "final"
    draft = next(r for r in results if "draft" in r.origin)
    assert not draft.submitted
    assert "another file (bob/ttt1_mcts/ttt1_mcts.ipynb) was graded instead" in draft.problems[0]


def test_a_submission_without_a_notebook_is_reported(tmp_path):
    results, _ = run_collect(tmp_path, {
        "bob/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
        "Carol C_3_assignsubmission_file_/answers.py": b"print(1)\n",
    }, assignment="ttt1_mcts")
    carol = next(r for r in results if r.student == "carol_c_3")
    assert not carol.submitted and carol.assignment == "ttt1_mcts"  # a row in the grades, with the reason
    assert "no notebook in this submission" in carol.problems[0] and "answers.py" in carol.problems[0]


# ----------------------------------------------------------------------------- collisions

def test_a_collision_is_refused_on_both_sides(tmp_path):
    results, submitted = run_collect(tmp_path, {
        "jane_doe_4242/ttt1_mcts/ttt1_mcts.ipynb": notebook(marker="plain folder"),
        "Jane Doe_4242_assignsubmission_file_/ttt1_mcts.ipynb": notebook(marker="moodle"),
        "bob/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
    })
    assert graded_students(submitted) == {"bob"}  # neither claimant is graded
    clashing = [r for r in results if r.student == "jane_doe_4242"]
    assert len(clashing) == 2 and not any(r.submitted for r in clashing)
    plain = next(r for r in clashing if r.layout == "nbgrader")
    moodle = next(r for r in clashing if r.layout == "moodle")
    assert "not graded" in plain.problems[0] and "Moodle participant 4242 (Jane Doe)" in plain.problems[0]
    assert "not graded" in moodle.problems[0] and "submission 'jane_doe_4242'" in moodle.problems[0]


def test_ids_that_differ_only_in_case_or_by_slugging_collide(tmp_path):
    results, submitted = run_collect(tmp_path, {
        "Alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
        "alice.ipynb": notebook(),
        "Jane Doe/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
        "jane_doe/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
    })
    assert graded_students(submitted) == set()
    assert {r.student for r in results} == {"Alice", "alice", "jane_doe"}
    assert all(r.problems and r.problems[0].startswith("not graded") for r in results)
    alice = next(r for r in results if r.student == "alice")
    assert "submission 'Alice'" in alice.problems[0] and "(id 'Alice')" in alice.problems[0]


def test_a_folder_and_a_file_of_one_name_are_one_student(tmp_path):
    results, submitted = run_collect(tmp_path, {"bob/ttt2_selfplay/ttt2_selfplay.ipynb": notebook("ttt2_selfplay"),
                                                "bob.ipynb": notebook()})
    assert all(r.submitted and not r.problems for r in results)
    assert {p.parent.name for p in submitted.glob("bob/*/*.ipynb")} == {"ttt1_mcts", "ttt2_selfplay"}


# ----------------------------------------------------------------------------- archives

def test_unsafe_hidden_and_nested_members(tmp_path):
    inner = zipped({"level3.zip": zipped({"ttt2_selfplay.ipynb": notebook("ttt2_selfplay")}),
                    "ttt1_mcts.ipynb": notebook(marker="level two")})
    results, submitted = run_collect(tmp_path, {"bob.zip": zipped({
        "../escape.ipynb": notebook(), "/abs.ipynb": notebook(), ".hidden.ipynb": notebook(),
        "__MACOSX/._x.ipynb": b"junk", "level2.zip": inner})})
    assert not (tmp_path / "escape.ipynb").exists() and not Path("/abs.ipynb").exists()
    assert marker(submitted, "bob") == "level two"
    assert not (submitted / "bob" / "ttt2_selfplay").exists()  # three zips deep: not opened
    record = results[0]
    assert len(results) == 1 and record.origin == "bob.zip/level2.zip/ttt1_mcts.ipynb"
    problems = " | ".join(record.problems)
    assert "../escape.ipynb (unsafe path)" in problems and "/abs.ipynb (unsafe path)" in problems
    assert "bob.zip/level2.zip/level3.zip: a zip nested more than 2 deep; not opened" in problems


def test_zip_bombs_are_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_UPLOAD_BYTES", 2 * 2**20)
    monkeypatch.setattr(collect, "MAX_UPLOAD_MEMBERS", 5)
    bomb = zipped({"ttt1_mcts.ipynb": notebook(), "bomb.ipynb": b"0" * (3 * 2**20)})  # 3 MB of zeros, ~3 kB
    many = zipped({**{f"f{i}.txt": b"x" for i in range(8)}, "zz/ttt1_mcts.ipynb": notebook()})
    results, submitted = run_collect(tmp_path, {"bob.zip": bomb, "carol.zip": many})
    bob = next(r for r in results if r.student == "bob")
    assert bob.submitted and any("bomb.ipynb (over 2 MB uncompressed)" in p for p in bob.problems)
    budget = collect._Budget(2 * 2**20, 5, 2 * 2**20, 5)
    (tmp_path / "bomb.zip").write_bytes(bomb)
    skipped = collect._extract(tmp_path / "bomb.zip", tmp_path / "unpacked", budget)
    assert skipped == ["bomb.ipynb (over 2 MB uncompressed)"]
    assert [p.name for p in (tmp_path / "unpacked").iterdir()] == ["ttt1_mcts.ipynb"]
    carol = next(r for r in results if r.student == "carol")  # the notebook was past the 5-file limit
    assert not carol.submitted and "no notebook in this submission" in carol.problems[0]
    assert any("zz/ttt1_mcts.ipynb (more than 5 files)" in p for p in carol.problems)


def test_a_broken_upload_is_reported(tmp_path):
    results, _ = run_collect(tmp_path, {"bob.zip": b"PK\x03\x04 not really a zip", "carol.ipynb": notebook()})
    bob = next(r for r in results if r.student == "bob")
    assert "bob.zip: not a readable zip" in " ".join(bob.problems) and not bob.submitted


# ----------------------------------------------------------------------------- repairs still work

def test_repairs_still_work_under_lms_layouts(tmp_path):
    nb = nbformat.reads(notebook().decode(), as_version=4)
    for cell in nb.cells:
        cell.metadata = {}
    text = notebook().decode()
    results, submitted = run_collect(tmp_path, {
        "stripped_1_2_ttt1_mcts.ipynb": nbformat.writes(nb).encode(),
        "Broken B_5_assignsubmission_file_/ttt1_mcts.ipynb": text[: len(text) // 2].encode(),
        "renamed/ttt1_mcts/my final version.ipynb": notebook(),
    })
    by_student = {r.student: r for r in results}
    assert "metadata was missing" in " ".join(by_student["stripped_1"].problems)
    assert "not a valid notebook" in by_student["broken_b_5"].problems[0] and by_student["broken_b_5"].submitted
    assert "file named 'my final version.ipynb'; graded as ttt1_mcts.ipynb" in by_student["renamed"].problems
    restored = nbformat.read(submitted / "stripped_1" / "ttt1_mcts" / "ttt1_mcts.ipynb", as_version=4)
    assert sum("nbgrader" in c.metadata for c in restored.cells) >= 6


# ----------------------------------------------------------------------------- refusals

def test_collect_refuses_what_it_cannot_read(tmp_path):
    with pytest.raises(collect.CollectError, match="does not exist"):
        collect.collect(tmp_path / "nope", tmp_path / "submitted", RELEASE)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(collect.CollectError, match="neither a folder nor a zip"):
        collect.collect(tmp_path / "notes.txt", tmp_path / "submitted", RELEASE)
    write(tmp_path / "nothing", {"bob/readme.txt": b"x", "carol.zip": zipped({"a.py": b"x"})})
    with pytest.raises(collect.CollectError, match="no notebook"):
        collect.collect(tmp_path / "nothing", tmp_path / "submitted", RELEASE)
    write(tmp_path / "ok", {"bob.ipynb": notebook()})
    with pytest.raises(collect.CollectError, match="unknown assignment 'ttt9'.*ttt1_mcts"):
        collect.collect(tmp_path / "ok", tmp_path / "submitted", RELEASE, assignment="ttt9")
    assert not (tmp_path / "submitted").exists()


def test_ids_are_deterministic_and_documented():
    assert collect.slug("José  Núñez-García") == "jose_nunez_garcia"
    assert collect.slug("李雷") == "student"
    assert collect.student_id(Path("Jane Doe_4242_assignsubmission_file_/x.ipynb")) == "jane_doe_4242"
    assert collect.student_id(Path("smithjohn_late_1234_5678_ttt1_mcts.ipynb")) == "smithjohn_1234"
    assert collect.student_id(Path("HW 1_jdoe_attempt_2024-01-01-10-00-00_x.ipynb")) == "jdoe"
    assert collect.student_id(Path("bob/ttt1_mcts/ttt1_mcts.ipynb")) == "bob"
    assert collect.student_id(Path("HW 1_jdoe_attempt_2024-01-01-10-00-00.txt")) == ""  # a receipt: ignored
    for layout in ("Moodle", "Canvas", "Blackboard", "Collisions", "MAX_UPLOAD_BYTES"):
        assert layout in collect.__doc__


# ----------------------------------------------------------------------------- the commands, end to end

@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("collect-ws")
    course = built_course(tmp_path_factory, folder / "ws")
    return course


def cli(course, *args):
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    return done


def export_rows(course, tmp_path) -> list[dict]:
    done = cli(course, "export", "--output", str(tmp_path / "grades.csv"))
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader((tmp_path / "grades.csv").open()))


@pytest.mark.slow
def test_cli_collect_attributes_by_arrival_and_reports_collisions(workspace, tmp_path):
    incoming = write(tmp_path / "incoming", {
        "alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(release=workspace.release, marker="written by alice"),
        "mallory.zip": zipped({"alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(release=workspace.release,
                                                                           marker="planted by mallory")}),
        "Jane Doe_4242_assignsubmission_file_/ttt1_mcts.ipynb": notebook(release=workspace.release, marker="jane 4242"),
        "Jane Doe_5151_assignsubmission_file_/ttt1_mcts.ipynb": notebook(release=workspace.release, marker="jane 5151"),
        "clash_7/ttt1_mcts/ttt1_mcts.ipynb": notebook(release=workspace.release),
        "Clash_7_assignsubmission_file_/ttt1_mcts.ipynb": notebook(release=workspace.release),
    })
    done = cli(workspace, "collect", str(incoming))
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last == "collected 6 file(s) from 5 student(s): 4 to grade, 2 not; 2 with problems, 1 flagged", last
    submitted = Path(workspace.submitted)
    assert marker(submitted, "alice") == "written by alice"
    assert marker(submitted, "mallory") == "planted by mallory"
    assert marker(submitted, "jane_doe_4242") == "jane 4242"
    assert marker(submitted, "jane_doe_5151") == "jane 5151"
    assert not (submitted / "clash_7").exists()
    report = json.loads((Path(workspace.reports) / "ttt1_mcts" / "clash_7" / "ttt1_mcts.collect.json").read_text())
    problems = " | ".join(report["problems"])
    assert "Moodle participant 7 (Clash)" in problems and "submission 'clash_7'" in problems
    assert {f["layout"] for f in report["files"]} == {"nbgrader", "moodle"}
    rows = {r["student"]: r for r in export_rows(workspace, tmp_path)}
    assert rows["clash_7"]["status"] == "no submission" and "not graded" in rows["clash_7"]["problems"]
    assert "Moodle participant 7" in rows["clash_7"]["problems"]


@pytest.mark.slow
def test_cli_case_collision_shows_a_row_for_each_id(workspace, tmp_path):
    incoming = write(tmp_path / "incoming", {"Dora/ttt1_mcts/ttt1_mcts.ipynb": notebook(release=workspace.release),
                                             "dora.ipynb": notebook(release=workspace.release)})
    done = cli(workspace, "collect", str(incoming))
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in export_rows(workspace, tmp_path) if r["notebook"] == "ttt1_mcts"}
    assert "submission 'dora'" in rows["Dora"]["problems"] and "submission 'Dora'" in rows["dora"]["problems"]


@pytest.mark.slow
def test_cli_lms_zip_and_assignment_option(workspace, tmp_path):
    download = tmp_path / "blackboard.zip"
    download.write_bytes(zipped({
        "HW1_ezra_attempt_2024-03-01-09-30-00_ttt1_mcts.ipynb": notebook(release=workspace.release, marker="old"),
        "HW1_ezra_attempt_2024-03-01-09-30-00.txt": b"receipt",
        "HW1_ezra_attempt_2024-03-05-09-30-00_final.ipynb": notebook(release=workspace.release, marker="new"),
    }))
    done = cli(workspace, "collect", str(download), "--assignment", "ttt1_mcts")
    assert done.returncode == 0, done.stderr
    assert marker(Path(workspace.submitted), "ezra") == "new"
    assert "older Blackboard attempt" in done.stdout
    assert "[Blackboard user ezra (HW1): HW1_ezra_attempt_2024-03-05-09-30-00_final.ipynb]" in done.stdout


@pytest.mark.parametrize("make, expected", [
    (lambda tmp: tmp / "does" / "not" / "exist", "does not exist"),
    (lambda tmp: write(tmp / "empty", {"bob/notes.txt": b"x"}), "no notebook (.ipynb) found in"),
    (lambda tmp: (tmp / "f.txt").write_text("x") and tmp / "f.txt", "neither a folder nor a zip"),
])
@pytest.mark.slow
def test_cli_collect_refusals_are_one_line(workspace, tmp_path, make, expected):
    source = make(tmp_path)
    done = cli(workspace, "collect", str(source))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and expected in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_cli_unknown_assignment_is_refused(workspace, tmp_path):
    incoming = write(tmp_path / "incoming", {"bob.ipynb": notebook(release=workspace.release)})
    done = cli(workspace, "collect", str(incoming), "--assignment", "ttt9_nope")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert "unknown assignment 'ttt9_nope'" in done.stderr and "ttt1_mcts" in done.stderr
    assert not (Path(workspace.submitted) / "bob").exists()


@pytest.mark.slow
def test_cli_add_students_roster_errors(workspace, tmp_path):
    done = cli(workspace, "add-students", str(tmp_path / "missing.csv"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: no roster file at {tmp_path / 'missing.csv'}"
    (tmp_path / "roster.csv").write_text("id,first_name\n,Nobody\n")
    done = cli(workspace, "add-students", str(tmp_path / "roster.csv"))
    assert done.returncode == 2 and "names no student" in done.stderr
    (tmp_path / "roster.csv").write_text("id,first_name\nzed,Zed\n")
    done = cli(workspace, "add-students", str(tmp_path / "roster.csv"))
    assert done.returncode == 0 and done.stdout.startswith("1 student(s)")


@pytest.mark.slow
def test_impersonation_and_namesakes_graded(workspace, tmp_path):
    """The real grader on the issue's cases: Alice 21/21 from her own file, Mallory graded on her
    upload (blank: 0), both Moodle namesakes graded with their own scores."""
    release = type("Release", (), {"release": workspace.release})
    full = nbformat.writes(corpus.filled(release, "ttt1_mcts")).encode()
    partial = nbformat.writes(corpus.filled(release, "ttt1_mcts",
                                            extra={"get_action_prob": ttt1_examples.WRONG_ACTION_PROB})).encode()
    incoming = write(tmp_path / "incoming", {
        "amy/ttt1_mcts/ttt1_mcts.ipynb": full,
        "mel.zip": zipped({"amy/ttt1_mcts/ttt1_mcts.ipynb": notebook(release=workspace.release)}),
        "Jo Roe_4242_assignsubmission_file_/ttt1_mcts.ipynb": full,
        "Jo Roe_5151_assignsubmission_file_/hw.zip": zipped({"ttt1_mcts.ipynb": partial}),
    })
    assert cli(workspace, "collect", str(incoming)).returncode == 0
    students = ["amy", "mel", "jo_roe_4242", "jo_roe_5151"]
    done = cli(workspace, "autograde", "ttt1_mcts", *[a for s in students for a in ("--student", s)])
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {r["student"]: r for r in export_rows(workspace, tmp_path) if r["notebook"] == "ttt1_mcts"}
    full_score = corpus.expected_score(corpus.Case("x", "ttt1_mcts", None, ttt1_examples.T1), workspace)
    partial_score = corpus.expected_score(corpus.Case("x", "ttt1_mcts", None, ttt1_examples.T1 - {"test_get_action_prob"}),
                                          workspace)
    assert float(rows["amy"]["code_score"]) == full_score and not rows["amy"]["problems"]
    assert float(rows["mel"]["code_score"]) == 0 and "names another student (amy)" in rows["mel"]["flags"]
    assert float(rows["jo_roe_4242"]["code_score"]) == full_score
    assert float(rows["jo_roe_5151"]["code_score"]) == partial_score < full_score
