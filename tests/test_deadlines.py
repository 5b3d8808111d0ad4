"""Deadlines and late work (issue 50, item 1): deadlines.toml, the late policy, the submission times
collect reads, and the penalty in nbgrader's gradebook, the grade table, the CSV and the feedback.

The policy's cases are data (``CASES``: each with why it is graded so); the times are read as collect
reads them from each source; one slow test grades a tiny course with the real nbgrader and sandbox.
"""
import csv
import json
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from test_collect import RELEASE, notebook, write, zipped

from autograder import collect, deadlines, pipeline, submission_times
from autograder.__main__ import main
from autograder.grading_config import REPO_ROOT

BERLIN = deadlines.zone_named("Europe/Berlin", "test")
COURSE = sorted(p.name for p in (REPO_ROOT / "assignments").iterdir() if p.is_dir())

POLICY = """
extensions = "extensions.csv"
[policy]
grace_minutes = 15
penalty_percent = 10
penalty_unit = "hour"
max_penalty_percent = 50
hard_deadline_days = 2

[assignments.ttt1_mcts]
due = "2025-03-30 01:30 Europe/Berlin"  # CET: 00:30 UTC; at 02:00 the clocks jump to 03:00

[assignments.ttt2_selfplay]
due = "2025-10-26 01:30 Europe/Berlin"  # CEST: 23:30 UTC the day before; at 03:00 the clocks go back to 02:00
penalty_unit = "day"
unknown_time = "max_penalty"

[assignments.hex4_onpolicy]
due = "2025-03-30 23:59 Europe/Berlin"  # after the change: CEST, 21:59 UTC
unknown_time = "on_time_flagged"
"""
EXTENSIONS = "student,assignment,hours,due\nalice,ttt1_mcts,24,\nbob,ttt1_mcts,,2025-03-30 05:00 Europe/Berlin\n"
ALL = "all"  # the whole score is taken

# (assignment, student, submitted (UTC, None: unknown), LMS late marker, status, percent taken, why)
CASES = [
    ("ttt1_mcts", "carol", "2025-03-30T00:30:00", False, deadlines.ON_TIME, 0, "at the due date itself"),
    ("ttt1_mcts", "carol", "2025-03-30T00:44:59", False, deadlines.GRACE, 0, "14 min 59 s late: within 15 min"),
    ("ttt1_mcts", "carol", "2025-03-30T00:45:01", False, deadlines.LATE, 10,
     "past the grace, lateness counts from the due date: 1 started hour"),
    ("ttt1_mcts", "carol", "2025-03-30T01:30:00", False, deadlines.LATE, 10,
     "03:30 CEST is 1 h after 01:30 CET (elapsed time; the wall clock says 2 h, which would give 20%)"),
    ("ttt1_mcts", "carol", "2025-03-31T06:30:00", False, deadlines.LATE, 50, "30 started hours, capped at 50%"),
    ("ttt1_mcts", "carol", "2025-04-01T00:30:01", False, deadlines.CLOSED, ALL, "1 s after the hard deadline"),
    ("ttt1_mcts", "alice", "2025-03-31T00:40:00", False, deadlines.GRACE, 0,
     "the 24 h extension of the CSV: 10 min after her due date"),
    ("ttt1_mcts", "alice", "2025-04-02T00:00:00", False, deadlines.LATE, 50,
     "47.5 h after her due date: the extension moved the hard deadline too"),
    ("ttt1_mcts", "bob", "2025-03-30T02:59:00", False, deadlines.ON_TIME, 0,
     "an extension to 05:00 CEST (03:00 UTC), given as a due date"),
    ("ttt1_mcts", "dave", None, False, deadlines.UNKNOWN, ALL, "time unknown: unknown_time = zero (the default)"),
    ("ttt1_mcts", "erin", None, True, deadlines.LATE_UNKNOWN, ALL, "Canvas's late_ without a time: zero"),
    ("ttt2_selfplay", "carol", "2025-10-26T23:31:00", False, deadlines.LATE, 20,
     "24 h 1 min elapsed across the clock going back (the wall clock says 23 h 1 min): 2 started days"),
    ("ttt2_selfplay", "dave", None, False, deadlines.UNKNOWN, 50, "unknown_time = max_penalty: the cap"),
    ("hex4_onpolicy", "carol", "2025-03-30T22:30:00", False, deadlines.LATE, 10,
     "23:59 on the day the clocks changed is CEST, 21:59 UTC (read as CET it would be on time)"),
    ("hex4_onpolicy", "dave", None, False, deadlines.UNKNOWN, 0, "unknown_time = on_time_flagged"),
]


def course_plan(folder: Path, policy: str = POLICY, extensions: str = EXTENSIONS) -> deadlines.Deadlines:
    (folder / "deadlines.toml").write_text(policy)
    (folder / "extensions.csv").write_text(extensions)
    return deadlines.load(folder / "deadlines.toml", COURSE)


def utc(text):
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc) if text else None


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[6][:40]}")
def test_each_case_is_graded_as_the_policy_says(tmp_path, case):
    assignment, student, submitted, marker, status, percent, why = case
    plan = course_plan(tmp_path)
    found = deadlines.assess(plan.rule(assignment), utc(submitted), plan.extension(student, assignment), marker)
    assert (found.status, ALL if found.takes_all else found.percent) == (status, percent), (why, found)
    assert found.points(8, 10) == (8 if percent == ALL else 10 * percent / 100)  # of the points, at most the score
    assert found.flagged == (status == deadlines.UNKNOWN and assignment == "hex4_onpolicy")


def test_the_plugins_arithmetic_is_the_same_from_nbgraders_seconds(tmp_path):
    """nbgrader hands its plugin only total_seconds_late (timestamp - (duedate + extension)): judge()
    on it gives what assess() gives from the times."""
    plan = course_plan(tmp_path)
    for assignment, student, submitted, _, _, _, why in CASES:
        if submitted is None:
            continue
        rule, extension = plan.rule(assignment), plan.extension(student, assignment)
        naive_due = rule.due.astimezone(timezone.utc).replace(tzinfo=None) + extension
        seconds = max(0.0, (utc(submitted).replace(tzinfo=None) - naive_due).total_seconds())
        assert deadlines.judge(rule, seconds).percent == deadlines.assess(rule, utc(submitted), extension).percent, why


def test_the_rule_and_lateness_are_said_in_words(tmp_path):
    plan = course_plan(tmp_path)
    late = deadlines.assess(plan.rule("ttt1_mcts"), utc("2025-03-30T02:00:00"))
    assert late.lateness == "1 h 30 min late"
    assert late.rule == "10% of the points per started hour late: 2 hours, 20%"
    closed = deadlines.assess(plan.rule("ttt1_mcts"), utc("2025-04-01T23:30:00"))
    assert closed.lateness == "2 days 23 h late, after the hard deadline" and closed.rule.endswith("score 0")
    assert deadlines.show_time(plan.rule("hex4_onpolicy").due) == "2025-03-30 23:59:00 CEST"


def test_the_example_file_of_the_docs_is_valid():
    plan = deadlines.load(REPO_ROOT / "docs" / "deadlines.example.toml", COURSE)
    assert deadlines.show_time(plan.rule("ttt1_mcts").due, timezone.utc) == "2025-03-30 21:59:00 UTC"
    assert plan.extension("alice", "ttt1_mcts") == timedelta(hours=48)
    assert plan.rule("ttt2_selfplay").policy.penalty_unit == "hour"


ASSIGNMENT = "[assignments.ttt1_mcts]\n"
DUE = 'due = "2025-03-30 23:59 Europe/Berlin"\n'
LISTED = 'extensions = "extensions.csv"\n' + ASSIGNMENT + DUE
INVALID = [  # (deadlines.toml, extensions CSV, a part of the message)
    (ASSIGNMENT + DUE + "colour = 3\n", "", "unknown key colour"),
    ("[policy]\ngrace = 5\n", "", "unknown key grace"),
    ("due_dates = 1\n", "", "unknown key due_dates"),
    (ASSIGNMENT + "due = 2025-03-30T23:59:00\n", "", "2025-03-30 23:59:00 has no time zone"),
    (ASSIGNMENT + 'due = "2025-03-30 23:59"\n', "", "has no time zone"),
    (ASSIGNMENT + "due = 2025-03-30\n", "", "a date without a time and a zone"),
    (ASSIGNMENT + 'due = "2025-03-30 23:59 CEST"\n', "", "unknown time zone 'CEST'"),
    (ASSIGNMENT + 'due = "2025-03-30 02:30 Europe/Berlin"\n', "", "does not exist in Europe/Berlin"),
    (ASSIGNMENT + 'due = "2025-10-26 02:30 Europe/Berlin"\n', "", "happens twice in Europe/Berlin"),
    (ASSIGNMENT + DUE + "penalty_percent = -5\n", "", "penalty_percent = -5 must be at least 0"),
    (ASSIGNMENT + DUE + "max_penalty_percent = 120\n", "", "must be at most 100"),
    (ASSIGNMENT + DUE + "grace_minutes = true\n", "", "grace_minutes must be a number"),
    (ASSIGNMENT + DUE + 'penalty_unit = "week"\n', "", "write \"hour\" or \"day\""),
    (ASSIGNMENT + DUE + 'unknown_time = "on_time"\n', "",
     "write one of \"zero\", \"max_penalty\", \"on_time_flagged\""),
    (ASSIGNMENT + DUE + "hard_deadline_days = 0\n", "", "must be more than 0"),
    (ASSIGNMENT + DUE + 'hard_deadline = "2025-03-29 23:59 Europe/Berlin"\n', "", "is not after the due date"),
    (ASSIGNMENT + DUE + 'hard_deadline = "2025-04-02 23:59 Europe/Berlin"\nhard_deadline_days = 1\n', "",
     "both hard_deadline and hard_deadline_days"),
    (ASSIGNMENT + "penalty_percent = 5\n", "", "no due date"),
    ("[assignments.ttt9_chess]\n" + DUE, "", "no assignment named ttt9_chess"),
    ("[policy\n", "", "not valid TOML"),
    ('lms_timezone = "Mars/Olympus"\n', "", "unknown time zone 'Mars/Olympus'"),
    (LISTED, "student,assignment,days\nalice,ttt1_mcts,2\n",
     "the columns must be student, assignment and hours or due"),
    (LISTED, "student,assignment,hours\nalice,ttt2_selfplay,2\n",
     "line 2: assignment 'ttt2_selfplay' has no due date"),
    (LISTED, "student,assignment,hours,due\nalice,ttt1_mcts,2,2025-04-02 12:00 Europe/Berlin\n",
     "exactly one of hours or due"),
    (LISTED, "student,assignment,hours\nalice,ttt1_mcts,-2\n",
     "hours = -2 must be more than 0"),
    (LISTED, "student,assignment,hours\nalice,ttt1_mcts,2\nalice,ttt1_mcts,3\n",
     "line 3: a second extension for alice"),
    (LISTED, "student,assignment,due\nalice,ttt1_mcts,2025-03-30 12:00 UTC\n",
     "is not after the assignment's due date"),
]


@pytest.mark.parametrize("toml, extensions, message", INVALID, ids=[message for *_, message in INVALID])
def test_an_invalid_file_is_a_clear_error(tmp_path, toml, extensions, message):
    with pytest.raises(deadlines.DeadlineError) as raised:
        course_plan(tmp_path, toml, extensions)
    assert message in str(raised.value) and str(tmp_path) in str(raised.value)


def test_no_file_means_no_due_date(tmp_path):
    plan = deadlines.load(tmp_path / "deadlines.toml", COURSE)
    assert plan.path is None and deadlines.assess(plan.rule("ttt1_mcts"), None).status == deadlines.NO_DEADLINE


def test_the_deadlines_command_shows_the_file_and_refuses_a_bad_one(tmp_path, capsys):
    course = pipeline.Course.workspace(tmp_path / "ws")
    assert main(["--workspace", str(course.root), "deadlines"]) == 0
    assert "no deadlines.toml in the course root" in capsys.readouterr().out
    course_plan(course.root)
    assert main(["--workspace", str(course.root), "deadlines"]) == 0
    out = capsys.readouterr().out
    assert "ttt1_mcts: due 2025-03-30 01:30:00 CET (2025-03-30 00:30:00 UTC)" in out
    assert "extension: alice +1 day, due 2025-03-31 02:30:00 CEST" in out  # 24 h elapsed across the change
    assert "hex4_onpolicy: due" in out and "unknown_time = \"on_time_flagged\"" in out
    assert "azul3_play: no due date (never late)" in out
    (course.root / "deadlines.toml").write_text(ASSIGNMENT + DUE + "colour = 3\n")
    assert main(["--workspace", str(course.root), "deadlines"]) == 2
    assert "error:" in capsys.readouterr().err


# ----------------------------------------------------------------------------- what collect reads

def stamp(submitted: Path, student: str, assignment: str = "ttt1_mcts") -> str | None:
    path = submitted / student / assignment / "timestamp.txt"
    return path.read_text().strip() if path.exists() else None


def by_student(results) -> dict:
    return {r.student: r for r in results if r.submitted}


def test_a_resubmission_after_the_deadline_counts_with_the_latest_attempts_time(tmp_path):
    """Blackboard: the latest attempt is graded and its time is the submission's, even when an earlier
    attempt was on time. The file name's time has no zone: it is read in lms_timezone."""
    files = {"HW1_jdoe_attempt_2025-03-30-01-00-00_ttt1_mcts.ipynb": notebook(marker="on time"),
             "HW1_jdoe_attempt_2025-03-30-04-00-00_ttt1_mcts.ipynb": notebook(marker="resubmitted")}
    results = collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE, lms_zone=BERLIN)
    assert stamp(tmp_path / "sub", "jdoe") == "2025-03-30 02:00:00.000000 UTC"  # 04:00 CEST
    plan = course_plan(tmp_path)
    when = submission_times.parse_timestamp(stamp(tmp_path / "sub", "jdoe"), "").utc
    assert deadlines.assess(plan.rule("ttt1_mcts"), when).percent == 20  # 1 h 30 min late
    older = next(r for r in results if not r.submitted)
    assert older.submitted_at["utc"] == "2025-03-30T00:00:00+00:00"  # reported with its own time
    without = collect.collect(tmp_path / "in", tmp_path / "sub2", RELEASE)
    record = by_student(without)["jdoe"]
    assert record.submitted_at["utc"] is None and "set lms_timezone" in record.submitted_at["why"]
    assert stamp(tmp_path / "sub2", "jdoe") is None


def test_canvas_late_marker_without_times_is_late_time_unknown(tmp_path):
    files = {"doejane_late_4242_77_ttt1_mcts.ipynb": notebook(), "roebob_5151_78_ttt1_mcts.ipynb": notebook()}
    results = by_student(collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE))
    jane, bob = results["doejane_4242"].submitted_at, results["roebob_5151"].submitted_at
    assert jane["utc"] is None and jane["late_marker"] and "--times" in jane["why"]
    assert bob["utc"] is None and not bob["late_marker"]  # no marker is no time either: never silently on time
    plan = course_plan(tmp_path)
    assert deadlines.assess(plan.rule("ttt1_mcts"), None, late_marker=True).status == deadlines.LATE_UNKNOWN
    assert stamp(tmp_path / "sub", "doejane_4242") is None


CANVAS_JSON = json.dumps([
    {"assignment_id": 7, "user_id": 4242, "submitted_at": "2025-03-30T00:50:00Z", "late": True, "attempt": 2},
    {"assignment_id": 7, "user_id": 5151, "submitted_at": None, "late": False, "workflow_state": "unsubmitted"}])


def test_canvas_submission_times_from_the_api_json(tmp_path):
    files = {"doejane_late_4242_77_ttt1_mcts.ipynb": notebook(), "roebob_5151_78_ttt1_mcts.ipynb": notebook()}
    (tmp_path / "submissions.json").write_text(CANVAS_JSON)
    times = submission_times.read_times(tmp_path / "submissions.json", None)
    results = by_student(collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE, times=times))
    assert stamp(tmp_path / "sub", "doejane_4242") == "2025-03-30 00:50:00.000000 UTC"
    assert results["doejane_4242"].submitted_at["source"] == "Canvas submitted_at (submissions.json)"
    assert results["roebob_5151"].submitted_at["why"] == "Canvas has no submitted_at for it"
    # the same JSON inside the instructor's zip, next to the files: not read (only --times is)
    download = tmp_path / "download.zip"
    download.write_bytes(zipped({**files, "submissions.json": CANVAS_JSON.encode()}))
    found = by_student(collect.collect(download, tmp_path / "sub3", RELEASE))
    assert stamp(tmp_path / "sub3", "doejane_4242") is None and "--times" in found["doejane_4242"].submitted_at["why"]


def test_a_students_upload_is_never_read_as_the_lms_times(tmp_path):
    """A student's own top-level file shaped like the class's times export sets nobody's time, and a
    malformed one stops nothing (review: only the instructor's --times FILE is read)."""
    forged = json.dumps([{"assignment_id": 7, "user_id": 5151, "submitted_at": "2099-01-01T00:00:00Z"},
                         {"assignment_id": 7, "user_id": 4242, "submitted_at": "2099-01-01T00:00:00Z"}])
    files = {"doejane_late_4242_77_ttt1_mcts.ipynb": notebook(), "roebob_5151_78_ttt1_mcts.ipynb": notebook(),
             "doejane_late_4242_79_x.json": forged.encode(),
             "doejane_late_4242_80_y.json": b'[{"user_id": 1, "submitted_at": "yesterday"}]'}
    (tmp_path / "submissions.json").write_text(CANVAS_JSON)
    times = submission_times.read_times(tmp_path / "submissions.json", None)
    results = by_student(collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE, times=times))
    assert stamp(tmp_path / "sub", "doejane_4242") == "2025-03-30 00:50:00.000000 UTC"  # the instructor's
    assert results["roebob_5151"].submitted_at["utc"] is None  # not 2099
    results = by_student(collect.collect(tmp_path / "in", tmp_path / "sub2", RELEASE))
    assert all(r.submitted_at["utc"] is None for r in results.values())


MOODLE_CSV = ("Identifier,Full name,Email address,Status,Grade,Maximum grade,Grade can be changed,"
              "Last modified (submission),Online text,Last modified (grade),Feedback comments\n"
              'Participant 4242,Jane Doe,jane@example.org,Submitted for grading,,100,Yes,'
              '"Sunday, 30 March 2025, 3:44 AM",,-,\n'
              "Participant 4343,Joe Roe,joe@example.org,No submission,,100,Yes,-,,-,\n")


def test_moodle_grading_worksheet_with_times(tmp_path):
    files = {"Jane Doe_4242_assignsubmission_file_/ttt1_mcts.ipynb": notebook(),
             "Joe Roe_4343_assignsubmission_file_/ttt1_mcts.ipynb": notebook()}
    sheet = tmp_path / "grading worksheet.csv"
    sheet.write_text(MOODLE_CSV)
    times = submission_times.read_times(sheet, BERLIN)
    results = by_student(collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE, times=times))
    assert stamp(tmp_path / "sub", "jane_doe_4242") == "2025-03-30 01:44:00.000000 UTC"  # 03:44 CEST
    assert results["joe_roe_4343"].submitted_at["why"] == "Moodle lists no submission time"
    with pytest.raises(submission_times.TimesError, match="set lms_timezone"):  # local times need their zone
        submission_times.read_times(sheet, None)
    sheet.write_text(MOODLE_CSV.replace("Sunday, 30 March 2025, 3:44 AM", "Sonntag, 30. März 2025, 03:44"))
    with pytest.raises(submission_times.TimesError, match="line 2: cannot read the time"):
        submission_times.read_times(sheet, BERLIN)


def test_local_times_the_clocks_show_twice_or_skip():
    """The autumn fold: the earlier reading (it favours the student); the spring gap: unknown, with why."""
    fold = submission_times.local(datetime(2025, 10, 26, 2, 30), BERLIN, "x")
    assert fold.utc == datetime(2025, 10, 26, 0, 30, tzinfo=timezone.utc)  # 02:30 CEST, not 02:30 CET
    gap = submission_times.local(datetime(2025, 3, 30, 2, 30), BERLIN, "x")
    assert gap.utc is None and "does not exist in Europe/Berlin" in gap.why
    plain = submission_times.local(datetime(2025, 10, 26, 4, 30), BERLIN, "x")
    assert plain.utc == datetime(2025, 10, 26, 3, 30, tzinfo=timezone.utc) and plain.source == "x"


def test_nbgrader_timestamp_files_and_a_students_own_are_not_trusted(tmp_path):
    files = {"alice/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
             "alice/ttt1_mcts/timestamp.txt": b"2025-03-30 02:10:00.123456 +0200",
             "mallory/upload.zip": zipped({"ttt1_mcts/ttt1_mcts.ipynb": notebook(),
                                           "ttt1_mcts/timestamp.txt": b"2025-03-01 00:00:00.000000 UTC"})}
    results = by_student(collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE))
    assert stamp(tmp_path / "sub", "alice") == "2025-03-30 00:10:00.123456 UTC"
    assert stamp(tmp_path / "sub", "mallory") is None and results["mallory"].submitted_at["why"] == "no timestamp.txt"
    (tmp_path / "in" / "alice" / "ttt1_mcts" / "timestamp.txt").unlink()  # collected again without a time:
    collect.collect(tmp_path / "in", tmp_path / "sub", RELEASE)
    assert stamp(tmp_path / "sub", "alice") is None  # the earlier time is gone


def test_the_latest_exchange_submission_wins_with_its_time(tmp_path):
    files = {"alice+ttt1_mcts+2025-03-30 00:10:00.000000 UTC+a1/ttt1_mcts.ipynb": notebook(marker="first"),
             "alice+ttt1_mcts+2025-03-30 00:10:00.000000 UTC+a1/timestamp.txt": b"2025-03-30 00:10:00.000000 UTC",
             "alice+ttt1_mcts+2025-03-30 01:00:00.000000 UTC+b2/ttt1_mcts.ipynb": notebook(marker="second")}
    results = collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE)
    graded = by_student(results)["alice"]
    assert graded.layout == "exchange"
    assert "MARKER<second>" in (tmp_path / "sub" / "alice" / "ttt1_mcts" / "ttt1_mcts.ipynb").read_text()
    assert stamp(tmp_path / "sub", "alice") == "2025-03-30 01:00:00.000000 UTC"  # from the folder's name
    older = next(r for r in results if not r.submitted)
    assert older.problems[0].startswith("not graded: an older exchange submission")


def test_an_unreadable_time_is_unknown_not_a_crash(tmp_path):
    files = {"alice+ttt1_mcts+2025-03-30 00:10:00 -9999/ttt1_mcts.ipynb": notebook(),
             "bob/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
             "bob/ttt1_mcts/timestamp.txt": b"2025-03-30 00:10:00 -9999",
             "carol/ttt1_mcts/ttt1_mcts.ipynb": notebook(),
             "carol/ttt1_mcts/timestamp.txt": b"2025-03-30 02:10:00 +0200"}
    results = by_student(collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE))
    for student in ("alice", "bob"):
        assert results[student].submitted and results[student].submitted_at["utc"] is None
        assert "is not a time" in results[student].submitted_at["why"]
    assert results["alice"].layout == "exchange"
    assert stamp(tmp_path / "sub", "carol") == "2025-03-30 00:10:00.000000 UTC"  # the others still collected
    assert submission_times.blackboard("2025-13-30-23-59-59", BERLIN).utc is None


def test_exchange_submissions_of_two_assignments_are_both_graded(tmp_path):
    files = {"alice+ttt1_mcts+2025-03-30 00:10:00.000000 UTC+a1/ttt1_mcts.ipynb": notebook(),
             "alice+ttt2_selfplay+2025-04-10 00:10:00.000000 UTC+b2/ttt2_selfplay.ipynb":
                 notebook("ttt2_selfplay", "ttt2_selfplay")}
    results = collect.collect(write(tmp_path / "in", files), tmp_path / "sub", RELEASE)
    assert sorted(r.assignment for r in results if r.submitted) == ["ttt1_mcts", "ttt2_selfplay"], \
        [(r.assignment, r.problems) for r in results]
    assert stamp(tmp_path / "sub", "alice") == "2025-03-30 00:10:00.000000 UTC"
    assert stamp(tmp_path / "sub", "alice", "ttt2_selfplay") == "2025-04-10 00:10:00.000000 UTC"


def test_times_files_that_cannot_be_used_are_refused(tmp_path):
    twice = json.dumps([{"user_id": 1, "assignment_id": 7, "submitted_at": "2025-03-30T00:50:00Z"},
                        {"user_id": 1, "assignment_id": 8, "submitted_at": "2025-03-30T00:50:00Z"}])
    for name, text, message in [("a.json", twice, "user 1 has two submissions"),
                                ("b.json", '[{"user_id": 1, "submitted_at": "yesterday"}]', "not an ISO 8601 time"),
                                ("c.csv", "id,when\n1,2\n", "is neither a Canvas submissions JSON")]:
        (tmp_path / name).write_text(text)
        with pytest.raises(submission_times.TimesError, match=message):
            submission_times.read_times(tmp_path / name, BERLIN)


# ----------------------------------------------------------------------------- a real nbgrader autograde

def role(**given) -> dict:
    """A cell's nbgrader metadata."""
    return {"nbgrader": {"schema_version": 3, "task": False, "locked": False, "solution": False, "grade": False,
                         **given}}


def tiny_course(folder: Path) -> pipeline.Course:
    """A course of one tiny assignment (one answer, one 10-point test cell) and its own deadlines.toml:
    built in seconds, graded in the sandbox like any other."""
    source = folder / "source" / "tiny"
    source.mkdir(parents=True)
    nb = new_notebook(cells=[
        new_markdown_cell("# A tiny assignment", metadata=role(grade_id="intro", locked=True)),
        new_code_cell("def answer():\n    ### BEGIN SOLUTION\n    return 42\n    ### END SOLUTION",
                      metadata=role(grade_id="answer", solution=True)),
        new_code_cell("assert answer() == 42",
                      metadata=role(grade_id="test_answer", grade=True, locked=True, points=10))])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, source / "tiny.ipynb")
    (folder / "deadlines.toml").write_text(textwrap.dedent("""\
        extensions = "extensions.csv"
        [policy]
        grace_minutes = 10
        penalty_percent = 10
        penalty_unit = "hour"
        hard_deadline_days = 1
        [assignments.tiny]
        due = "2025-03-30 23:59 Europe/Berlin"
        """))
    (folder / "extensions.csv").write_text("student,assignment,hours\ncarol,tiny,2\n")
    course = pipeline.Course.workspace(folder)
    pipeline.build(course)
    return course


# student: (timestamp.txt or None, score, points taken, lateness); the due date is 21:59 UTC
GRADED = {"alice": ("2025-03-30 23:30:00.000000 UTC", 8, 2, "1 h 31 min late"),  # 2 started hours: 20%
          "carol": ("2025-03-30 23:30:00.000000 UTC", 10, 0, "on time"),          # her 2 h extension
          "frank": ("2025-03-30 22:05:00.000000 UTC", 10, 0, "6 min late, within the grace period"),
          "erin": ("2025-03-31 22:00:00.000000 UTC", 0, 10, "1 day late, after the hard deadline"),
          "dave": (None, 0, 10, "time unknown")}                                # unknown_time = "zero"


@pytest.mark.slow
def test_the_penalty_reaches_the_gradebook_table_csv_and_feedback(tmp_path):
    from nbgrader.api import Gradebook

    course = tiny_course(tmp_path / "ws")
    answered = nbformat.read(course.root / "solutions" / "tiny" / "tiny.ipynb", as_version=4)
    for student, (timestamp, *_) in GRADED.items():
        folder = tmp_path / "incoming" / student / "tiny"
        folder.mkdir(parents=True)
        nbformat.write(answered, folder / "tiny.ipynb")
        if timestamp:
            (folder / "timestamp.txt").write_text(timestamp)
    pipeline.collect(course, tmp_path / "incoming")
    results = pipeline.autograde(course, jobs=2)
    assert all(r["ok"] for r in results.values()), results
    with Gradebook(course.db_url) as gb:  # nbgrader's own records: due date, extension, penalty
        assert gb.find_assignment("tiny").duedate == datetime(2025, 3, 30, 21, 59)
        assert gb.find_submission("tiny", "carol").extension == timedelta(hours=2)
        taken = {s: gb.find_submission_notebook("tiny", "tiny", s).late_submission_penalty or 0 for s in GRADED}
    assert taken == {student: expected[2] for student, expected in GRADED.items()}
    rows = {row["student"]: row for row in pipeline.grade_rows(course)}
    for student, (_, score, points, lateness) in GRADED.items():
        assert (rows[student]["score"], rows[student]["late_penalty"], rows[student]["lateness"]) == \
            (score, points, lateness), rows[student]
    assert rows["carol"]["due_at"] == "2025-03-31 01:59:00 CEST (an extension of 2 h)"
    assert rows["dave"]["submitted_at"] == "unknown (no timestamp.txt)"
    text = pipeline.table(list(rows.values()))
    assert "8/10 points (2 taken for late work)" in text and "late work: 1 h 31 min late; submitted" in text
    with pipeline.write_grades_csv(course, tmp_path / "grades.csv").open(encoding="utf-8") as handle:
        csv_rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert csv_rows["alice"]["late_rule"] == "10% of the points per started hour late: 2 hours, 20%"
    assert (csv_rows["alice"]["score"], csv_rows["alice"]["late_penalty"]) == ("8.0", "2.0")
    pipeline.feedback(course)
    alice = (course.feedback / "alice" / "tiny" / "tiny.html").read_text()
    for shown in ["Submitted: 2025-03-31 01:30:00 CEST", "Due: 2025-03-30 23:59:00 CEST", "Lateness: 1 h 31 min late",
                  "Rule applied: 10% of the points per started hour late: 2 hours, 20%", "Points taken: 2 of 10",
                  "Late submission penalty"]:  # the last: nbgrader's own header line
        assert shown in alice, shown
    dave = (course.feedback / "dave" / "tiny" / "tiny.html").read_text()
    assert "Why the time is unknown: no timestamp.txt" in dave and "Points taken: 10 of 10" in dave
    # points changed by hand after grading (the formgrader): the penalty follows the score now
    with Gradebook(course.db_url) as gb:
        gb.find_grade("test_answer", "tiny", "tiny", "erin").manual_score = 4
        gb.db.commit()
    erin = next(row for row in pipeline.grade_rows(course, students=["erin"]))
    assert (erin["score"], erin["late_penalty"]) == (0, 4)  # after the hard deadline: all of it, never below 0
    pipeline.feedback(course, students=["erin"])
    with Gradebook(course.db_url) as gb:
        assert gb.find_submission_notebook("tiny", "tiny", "erin").late_submission_penalty == 4
    assert "Points taken: 4 of 10" in (course.feedback / "erin" / "tiny" / "tiny.html").read_text()
    from autograder.report.gather import gather

    (tiny,) = gather(course)  # the class report's scores are the grade table's (and the LMS export's)
    report_scores = {s.student: (s.score, s.late_penalty) for s in tiny.submissions}
    assert report_scores == {row["student"]: (row["score"], row["late_penalty"])
                             for row in pipeline.grade_rows(course)}


@pytest.mark.parametrize("report, score, taken", [
    ({"percent": 20.0, "takes_all": False}, 10, 2.0), ({"percent": 20.0, "takes_all": False}, 1, 1.0),
    ({"percent": 100.0, "takes_all": True}, 7, 7.0), ({"percent": 0.0, "takes_all": False}, 10, 0.0),
    ({}, 10, 3.0)])  # a report from before the policy was kept: the gradebook's stored penalty
def test_the_points_taken_follow_the_score_now(report, score, taken):
    from autograder.late_work import points_taken

    assert points_taken(report, score, 10, 3.0) == taken
