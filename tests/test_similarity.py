"""Similar answers (``autograder/similarity.py``): planted copies found, provided code never evidence, names hidden.

The class (``tests/similar_class.py``): honest students of part 1 who each write the six answers their own
way (the reference, one of its realistic mistakes, or another correct implementation, with the small
choices people make differently) and their own written answers; one student in twenty copies another,
disguised (renamed variables, other comments and blank lines, helpers moved), all six answers, four of them,
or only the written answers. The fast tests rank that class in memory; the slow one gives it a real nbgrader
gradebook in a built course, writes the class report and runs ``python -m autograder similarity``.
"""
import html
import json
import re
import subprocess
import sys
import warnings

import nbformat
import pytest

from autograder import similarity
from autograder.__main__ import main
from autograder.grading_config import REPO_ROOT
from autograder.pipeline import Course, GraderError
from autograder.report.render import pseudonyms
from similar_class import ASSIGNMENT, class_notebooks, release

CLASS = 120


def documents_of(notebooks: dict, given=None) -> dict:
    answers, release_lines, _ = similarity.release_facts(release())
    return {s: similarity.answer_documents(nb, answers, release_lines if given is None else given)
            for s, nb in notebooks.items()}


@pytest.fixture(scope="module")
def ranked():
    notebooks, planted = class_notebooks(CLASS)
    _, _, prose = similarity.release_facts(release())
    return notebooks, planted, similarity.rank(documents_of(notebooks), similarity.TOP, prose)


def pairs(data: dict) -> list:
    return [tuple(row["students"]) for row in data["top"]]


def test_every_planted_pair_ranks_in_the_top_20(ranked):
    _, planted, data = ranked
    assert len(planted) == CLASS // 20
    found = pairs(data)
    assert all(tuple(sorted(pair)) in found for pair in planted), (planted, found)
    unusual = [row["unusual"] for row in data["top"]]
    assert unusual == sorted(unusual, reverse=True)


def test_a_disguised_copy_is_as_alike_as_the_original(ranked):
    """Renamed variables, other comments and blank lines, a helper moved: the code of a pair that copied all
    six answers scores near 1, far above the class's median pair; a pair that copied only the written
    answers is ranked on its text."""
    _, planted, data = ranked
    rows = {tuple(row["students"]): row for row in data["top"]}
    whole = rows[tuple(sorted(planted[0]))]                   # copies all six answers (similar_class)
    assert whole["code"] > 0.8 > 3 * data["class"]["code"]["median"]
    text_only = rows[tuple(sorted(planted[2]))]               # copies only the written answers
    assert text_only["kind"] == "text" and text_only["text"] > 0.4 > text_only["code"]


def test_shared_lines_are_the_students_own_lines_side_by_side(ranked):
    notebooks, planted, data = ranked
    row = next(r for r in data["top"] if tuple(r["students"]) == tuple(sorted(planted[0])))
    for side, student in zip("ab", row["students"]):
        cells = {c.metadata["nbgrader"]["grade_id"]: c.source.splitlines() for c in notebooks[student].cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
        shown = [(block["cell"], line) for block in row["shared"]["code"][side] for line in block["lines"]
                 if "gap" not in line]
        assert len(shown) >= 30
        for cell, line in shown:
            assert cells[cell][line["number"] - 1].rstrip() == line["text"]
    assert {b["cell"] for b in row["shared"]["code"]["a"]} == {b["cell"] for b in row["shared"]["code"]["b"]}


def pasted_provided(notebooks: dict, students: tuple) -> dict:
    """`notebooks` where `students` each pasted the release's provided MCTS cell (the Tree class) into
    their expand_node answer, and their written answers are left as released."""
    provided = next(c.source for c in release().cells if c.metadata.get("nbgrader", {}).get("grade_id") == "mcts_provided")
    changed = dict(notebooks)
    for student in students:
        nb = nbformat.reads(nbformat.writes(notebooks[student]), as_version=4)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id == "expand_node":
                cell.source = provided + "\n\n" + cell.source
            elif cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
                cell.source = "YOUR ANSWER HERE"
        changed[student] = nb
    return changed


def test_a_pair_sharing_only_provided_code_is_not_listed(ranked):
    """Two honest students paste the same 67 lines of provided code into an answer: not a pair. The same
    class ranked without removing the release's lines lists them first, so the removal is what keeps them out."""
    notebooks, planted, _ = ranked
    copiers = {s for pair in planted for s in pair}
    honest = tuple(s for s in sorted(notebooks) if s not in copiers)[:2]
    changed = pasted_provided(notebooks, honest)
    _, _, prose = similarity.release_facts(release())
    assert honest not in pairs(similarity.rank(documents_of(changed), similarity.TOP, prose))
    assert honest in pairs(similarity.rank(documents_of(changed, given=set()), similarity.TOP, prose))


def test_answers_left_as_released_give_empty_documents():
    blank = similarity.answer_documents(release(), *similarity.release_facts(release())[:2])
    assert blank["code"].lines == [] and blank["text"].lines == []


def test_blank_submissions_do_not_lower_the_usual_pair():
    """The class's usual pair is a pair where both answered: twenty blank notebooks beside twenty answered
    ones leave the median and the spread as the twenty alone give them (each fingerprint's weight aside)."""
    notebooks, _ = class_notebooks(20, seed=5)
    alone = similarity.rank(documents_of(notebooks))["class"]
    with_blanks = similarity.rank(documents_of({**notebooks, **{f"blank{i:02d}": release() for i in range(20)}}))
    assert alone["code"]["median"] > 0.05
    for kind in similarity.KINDS:
        assert with_blanks["class"][kind]["median"] == pytest.approx(alone[kind]["median"], rel=0.35)
    assert not any(s.startswith("blank") for row in with_blanks["top"] for s in row["students"])


def test_no_submission_or_one_gives_no_pair():
    assert similarity.rank({})["top"] == []
    one = documents_of(dict(list(class_notebooks(2)[0].items())[:1]))
    assert similarity.rank(one) == {"compared": 1, "pairs": 0, "top": [],
                                    "class": {kind: {"median": 0.0, "spread": similarity.MIN_SPREAD}
                                              for kind in similarity.KINDS}}


def test_a_broken_submission_is_skipped_with_its_reason_and_no_release_is_an_error(tmp_path):
    course = Course(tmp_path, tmp_path, tmp_path / "source", REPO_ROOT / "release", tmp_path / "submitted",
                    tmp_path / "autograded", tmp_path / "feedback", tmp_path / "gradebook.db", tmp_path / "reports")
    notebooks, _ = class_notebooks(3)
    for student, nb in notebooks.items():
        folder = course.submitted / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / f"{ASSIGNMENT}.ipynb").write_text(nbformat.writes(nb))
    (course.submitted / "s0001" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text('{"cells": [')
    data = similarity.class_similarity(course, ASSIGNMENT, students=sorted(notebooks) + ["absent"])
    assert data["compared"] == 2
    assert data["skipped"] == [{"student": "s0001", "why": f"{ASSIGNMENT}.ipynb is not a readable notebook "
                                                            "(NotJSONError)"}]
    course.release = tmp_path / "no-release"
    with pytest.raises(GraderError, match=f"no release of {ASSIGNMENT} in .*: run `python -m autograder build`"):
        similarity.class_similarity(course, ASSIGNMENT, students=sorted(notebooks))


# ----------------------------------------------------------------------------- the report and the command

@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """A built course (real nbgrader gradebook) with 60 students of part 1, named, each with a submission
    recorded in the gradebook and a notebook in submitted/; then the class report of part 1."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    from autograder import pipeline
    from autograder.grading_config import COURSE_ID
    from courses import built_course

    course = built_course(tmp_path_factory, tmp_path_factory.mktemp("similar") / "ws")
    notebooks, planted = class_notebooks(60, seed=3)
    names = {s: (f"Given{s[1:]}", f"Family{s[1:]}") for s in notebooks}
    pipeline.add_students(course, [{"id": s, "first_name": first, "last_name": last}
                                   for s, (first, last) in names.items()])
    with Gradebook(course.db_url, COURSE_ID) as gb:
        for student, nb in notebooks.items():
            folder = course.submitted / student / ASSIGNMENT
            folder.mkdir(parents=True)
            (folder / f"{ASSIGNMENT}.ipynb").write_text(nbformat.writes(nb))
            with warnings.catch_warnings():  # nbgrader's add_submission autoflushes half-built objects: harmless
                warnings.simplefilter("ignore", SAWarning)
                gb.add_submission(ASSIGNMENT, student)
    done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(course.root), "report", ASSIGNMENT],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    page = course.reports / "class" / f"{ASSIGNMENT}.html"
    return course, names, planted, page, json.loads(page.with_suffix(".json").read_text())


@pytest.mark.slow
def test_the_report_lists_the_planted_pairs_and_hides_the_names(reported):
    course, names, planted, page, data = reported
    listed = [tuple(row["students"]) for row in data["similarity"]["top"]]
    assert all(tuple(sorted(pair)) in listed for pair in planted), (planted, listed)
    text = page.read_text()
    section = text[text.index('<section id="similarity">'):text.index("</section>", text.index('id="similarity"'))]
    number = pseudonyms(names)
    first = data["similarity"]["top"][0]["students"]
    assert f'<span class="anon">student {number[first[0]]}</span>' in section
    assert "the shared lines are below each pair" in section and section.count('<td class="src">') > 50
    hidden = re.sub(r'<span class="name">.*?</span>', "", text)  # what shows until "Show names"
    visible = html.unescape(re.sub(r"<[^>]+>", " ", hidden))
    assert [s for s in names if re.search(rf"\b{s}\b", visible)] == []
    assert [n for pair in names.values() for n in pair if n in visible] == []


@pytest.mark.slow
def test_the_command_prints_the_ranked_pairs_numbered_as_the_report(reported, capsys):
    """The command's own function (``autograder.__main__.main``, in this process: the fixture's ``report``
    is this file's run of the CLI in a Python of its own)."""
    course, names, planted, _, data = reported
    number = pseudonyms(names)

    def run(*args):
        code = main(["--workspace", str(course.root), "similarity", *args])
        out, err = capsys.readouterr()
        return code, out, err

    code, plain, err = run(ASSIGNMENT, "--top", "5")
    assert code == 0, err
    rows = [line for line in plain.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert len(rows) == 5 and "not proof of copying" in plain
    a, b = data["similarity"]["top"][0]["students"]
    assert f"student {number[a]} and student {number[b]}" in rows[0]
    assert not any(re.search(rf"\b{s}\b", plain) for s in names)
    code, named, err = run(ASSIGNMENT, "--names", "--top", "5")
    assert code == 0, err
    named = [line for line in named.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert f"{a} ({' '.join(names[a])}) and {b} ({' '.join(names[b])})" in named[0]
    code, _, err = run("ttt1_mcst")
    assert code == 2 and err.startswith("error: no assignment named ttt1_mcst")
