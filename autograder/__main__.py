"""Instructor commands (each safe to run from any folder).

    python -m autograder build                        # release/ + solutions/ + gradebook, leak scan
    python -m autograder add-students roster.csv      # CSV with an `id` column, or one id per line
    python -m autograder collect SUBMISSIONS[.zip] [--assignment ttt1_mcts]
    python -m autograder autograde [ASSIGNMENT ...] [--student ID ...] [--jobs N] [--unsafe-no-sandbox]
    python -m autograder export [--output grades.csv]
    python -m autograder feedback [ASSIGNMENT ...]
    python -m autograder leaks                        # scan release/, solutions/, feedback/
    python -m autograder report [ASSIGNMENT ...] [--output DIR]   # the class at a glance: HTML + JSON per assignment
    python -m autograder demo                         # build, grade the example submissions, print grades
    python -m autograder doctor                       # can student code be isolated here? if not, why
    python -m autograder bundle [ASSIGNMENT ...] [--output DIR]   # what students receive, one zip each

By default the course is this pack, nbgrader's course root being the repository root (gradebook
gradebook.db, configuration nbgrader_config.py); ``--workspace DIR``
grades in a separate folder with its own gradebook (the demo uses autograder/demo/).
"""
import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from . import pipeline
from .grading_config import REPO_ROOT

DEMO_WORKSPACE = REPO_ROOT / "autograder" / "demo"


def _course(args) -> pipeline.Course:
    return pipeline.Course.workspace(args.workspace) if args.workspace else pipeline.Course.main()


def print_table(course: pipeline.Course, details: str, assignments=None, students=None) -> None:
    """The grade table of the course (of these assignments and students, when given), then where
    the details are."""
    rows = [row for row in pipeline.grade_rows(course) if (not assignments or row["assignment"] in assignments)
            and (not students or row["student"] in students)]
    print()
    print(pipeline.table(rows))
    print(details)


def demo(args) -> int:
    """Grade the bundled example submissions in a fresh workspace and print the grade table."""
    from . import corpus

    workspace = Path(args.workspace or DEMO_WORKSPACE)
    if workspace.exists():
        shutil.rmtree(workspace)
    started = time.monotonic()
    print("building release/ and solutions/ from assignments/ ...")
    pipeline.build(pipeline.Course.main())
    course = pipeline.Course.workspace(workspace)
    pipeline.build(course)
    incoming = workspace / "incoming"
    cases = corpus.demo_cases()
    corpus.write_submissions(incoming, cases, course)
    pipeline.collect(course, incoming)
    graded_at = time.monotonic()
    jobs = args.jobs or os.cpu_count()
    print(f"grading {len(cases)} example submissions with {jobs} parallel workers ...")
    pipeline.autograde(course, jobs=jobs)
    seconds = time.monotonic() - graded_at
    pipeline.feedback(course)
    csv_path = pipeline.export(course, workspace / "grades.csv")
    print(f"\n{len(cases)} submissions graded in {seconds:.0f} s ({60 * len(cases) / seconds:.1f} per minute); "
          f"total {time.monotonic() - started:.0f} s")
    print_table(course, f"every cell's score and reason: {csv_path}\nfeedback: {course.feedback}\n"
                        f"reports: {course.reports}")
    print_class_reports(course)
    return 0


def print_class_reports(course: pipeline.Course, assignments=None, output=None) -> None:
    """Write the class report of each assignment (autograder.report) and say where."""
    from . import report

    for html_path, json_path in report.write_reports(course, assignments, output):
        print(f"class report: {html_path} (data: {json_path.name})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", help="grade in this folder (own gradebook) instead of the course")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="release/ and solutions/ from assignments/, gradebook, leak scan")
    p = sub.add_parser("add-students", help="add students from a roster")
    p.add_argument("roster")
    p = sub.add_parser("collect", help="copy a folder or zip of submissions into submitted/")
    p.add_argument("source")
    p.add_argument("--assignment")
    p = sub.add_parser("autograde", help="grade every collected submission in sandboxed kernels")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--student", action="append")
    p.add_argument("--jobs", type=int, default=0, help="parallel workers (default: one per core)")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade even though no sandbox can be started: student code runs with your rights")
    p = sub.add_parser("export", help="grades CSV, one row per student and notebook")
    p.add_argument("--output", default="grades.csv")
    p = sub.add_parser("feedback", help="HTML feedback (no hidden tests) for every graded submission")
    p.add_argument("assignments", nargs="*")
    sub.add_parser("leaks", help="scan release/, solutions/ and feedback/ for hidden-test and solution lines")
    p = sub.add_parser("report", help="the class at a glance: per assignment an HTML page and its data as JSON")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--output", help="folder for the reports (default: <reports>/class/)")
    p = sub.add_parser("demo", help="build, grade the example submissions, print the grade table")
    p.add_argument("--jobs", type=int, default=0)
    sub.add_parser("doctor", help="say whether student code can be isolated here, and how to fix it if not")
    p = sub.add_parser("bundle", help="per assignment, a zip of what a student receives (dist/student/)")
    p.add_argument("assignments", nargs="*")
    p.add_argument("--output", help="folder for the zips (default dist/student/)")
    args = parser.parse_args(argv)
    try:
        if args.command == "doctor":
            from . import isolation
            diagnosis = isolation.diagnose()
            print(diagnosis.explain())
            return 0 if diagnosis.ok else 1
        if args.command == "demo":
            return demo(args)
        if args.command == "bundle":
            from . import bundle
            for path in bundle.write_bundles(args.assignments, args.output or bundle.DEFAULT_OUTPUT):
                print(f"wrote {path} (leak scan clean)")
            return 0
        course = _course(args)
        if args.command == "build":
            pipeline.build(course)
            print(f"built {course.release} (and solutions/); gradebook {course.gradebook}; no leaks found")
        elif args.command == "add-students":
            students = pipeline.read_roster(args.roster)
            pipeline.add_students(course, students)
            print(f"{len(students)} student(s) in {course.gradebook}")
        elif args.command == "collect":
            records = pipeline.collect(course, args.source, args.assignment)
            for record in records:
                notes = "; ".join(record["problems"] + record["flags"])
                print(f"{record['student']:<20} {record['assignment'] or '?'}/{record['notebook'] or '?'}"
                      f"  [{record['identity']}: {record['origin']}]" + (f"  ({notes})" if notes else ""))
            print(f"collected {len(records)} file(s) from {len({r['student'] for r in records})} student(s): "
                  f"{sum(r['submitted'] for r in records)} to grade, {sum(not r['submitted'] for r in records)} not; "
                  f"{sum(bool(r['problems']) for r in records)} with problems, "
                  f"{sum(bool(r['flags']) for r in records)} flagged")
        elif args.command == "autograde":
            results = pipeline.autograde(course, args.assignments or None, args.student, args.jobs or None,
                                         unsafe_no_sandbox=args.unsafe_no_sandbox)
            failed = [f"{pipeline.neutralise(s)}/{a}: autograde failed: {pipeline.neutralise(r['error'])}"
                      for (a, s), r in results.items() if not r["ok"]]
            print(f"{len(results) - len(failed)} of {len(results)} submission(s) graded")
            print_table(course, f"reports: {course.reports}/<assignment>/<student>/; every cell's score and "
                                f"reason: python -m autograder export", args.assignments, args.student)
            if failed:
                print("\n".join(failed), file=sys.stderr)
                print(f"error: {len(failed)} of {len(results)} submission(s) could not be graded "
                      f"(their rows say why)", file=sys.stderr)
                return 1
        elif args.command == "export":
            path = pipeline.export(course, args.output)
            print(f"wrote {path}")
            print_table(course, f"every cell's score and reason: {path}")
        elif args.command == "feedback":
            outcome = pipeline.feedback(course, args.assignments or None)
            missing = {pair: why for pair, why in sorted(outcome.items()) if why}
            failed = [f"{pipeline.neutralise(s)}/{a}" for (a, s), why in missing.items()
                      if why.startswith(pipeline.FEEDBACK_FAILED)]
            print(f"feedback for {len(outcome) - len(missing)} of {len(outcome)} submission(s) in {course.feedback} "
                  f"(leak scan clean)" + (f"; {len(missing)} not delivered: their rows say why" if missing else ""))
            print_table(course, f"feedback: {course.feedback}/<student>/<assignment>/; reports: {course.reports}",
                        args.assignments)
            if failed:
                print(f"error: feedback could not be generated for {len(failed)} of {len(outcome)} submission(s) "
                      f"({', '.join(failed)}): their rows say why", file=sys.stderr)
                return 1
        elif args.command == "report":
            print_class_reports(course, args.assignments or None, args.output)
        elif args.command == "leaks":
            from . import leaks
            leaks.check_markers(course.source)
            problems = leaks.scan(course) + leaks.scan_feedback(course)
            print("\n".join(problems) if problems else "no hidden-test or solution line found in release/, "
                                                      "solutions/ or feedback/")
            return 1 if problems else 0
    except pipeline.GraderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
