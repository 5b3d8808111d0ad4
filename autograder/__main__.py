"""Instructor commands (each safe to run from any folder).

    python -m autograder build                        # release/ + solutions/ + gradebook, leak scan
    python -m autograder add-students roster.csv      # CSV with an `id` column, or one id per line
    python -m autograder collect SUBMISSIONS[.zip] [--assignment ttt1_mcts] [--times FILE]
    python -m autograder deadlines                    # due dates, late policy, extensions (deadlines.toml)
    python -m autograder autograde [ASSIGNMENT ...] [--student ID ...] [--jobs N] [--regrade] [--unsafe-no-sandbox]
                                                      [--ray auto|ADDRESS|local]   # on a Ray cluster
    python -m autograder export [--output grades.csv]
    python -m autograder feedback [ASSIGNMENT ...]
    python -m autograder leaks                        # scan release/, solutions/, feedback/
    python -m autograder report [ASSIGNMENT ...] [--output DIR]   # the class at a glance: HTML + JSON per assignment
    python -m autograder similarity ASSIGNMENT [--top N] [--names]   # pairs of unusually alike answers
    python -m autograder rejudge ASSIGNMENT [--test GRADE_ID ...] [--student ID ...]   # judges again, no kernel
    python -m autograder demo [ASSIGNMENT ...]        # build, grade the example submissions, print grades
    python -m autograder doctor                       # can student code be isolated here? if not, why
    python -m autograder bundle [ASSIGNMENT ...] [--output DIR]   # what students receive, one zip each

By default the course is this pack, nbgrader's course root being the repository root (gradebook
gradebook.db, configuration nbgrader_config.py); ``--workspace DIR``
grades in a separate folder with its own gradebook (the demo uses autograder/demo/).
"""
import argparse
import os
import sys
import textwrap
import time
from pathlib import Path

# Only the standard library here: --help and a mistyped argument answer at once. The grading modules
# (nbgrader, nbconvert, SQLAlchemy: seconds to import on a busy machine) load once a command runs.
DEMO_WORKSPACE = Path(__file__).resolve().parent / "demo"


def _course(args):
    from . import pipeline

    return pipeline.Course.workspace(args.workspace) if args.workspace else pipeline.Course.main()


def print_table(course, details: str, assignments=None, students=None) -> None:
    """The grade table of the course (of these assignments and students, when given), then where
    the details are."""
    from . import pipeline

    print()
    print(pipeline.table(pipeline.grade_rows(course, assignments, students)))
    print(details)


def demo(args) -> int:
    """Grade the bundled example submissions in a fresh workspace, printing each one's score as it
    finishes, then the grade table. Builds the course's release/ and solutions/ too, unless
    ``--workspace`` is given; only the named assignments' examples when some are named."""
    import shutil

    from . import corpus, pipeline
    from .batch_progress import duration

    workspace = Path(args.workspace or DEMO_WORKSPACE)
    if workspace.exists():
        shutil.rmtree(workspace)
    started = time.monotonic()
    cases = [case for case in corpus.demo_cases() if not args.assignments or case.assignment in args.assignments]
    if not cases:
        print(f"error: no example submission of {', '.join(args.assignments)}", file=sys.stderr)
        return 2
    names = sorted({case.assignment for case in cases}, key=[c.assignment for c in cases].index)
    if not args.workspace:
        print(f"building release/ and solutions/ from assignments/ (nbgrader generate_assignment and "
              f"generate_solution of {len(names)} assignment(s)) ...")
        pipeline.build(pipeline.Course.main(), names)
    course = pipeline.Course.workspace(workspace)
    print(f"building the demo's course in {workspace} ...")
    pipeline.build(course, names)
    incoming = workspace / "incoming"
    corpus.write_submissions(incoming, cases, course)
    pipeline.collect(course, incoming)
    built = time.monotonic()
    jobs = args.jobs or os.cpu_count()
    print(f"built in {duration(built - started)}; grading {len(cases)} example submissions of {len(names)} "
          f"assignment(s) with {jobs} parallel workers (each score prints as it finishes) ...")
    pipeline.autograde(course, jobs=jobs)
    seconds = time.monotonic() - built
    print("writing each submission's feedback (HTML, hidden tests removed) ...")
    pipeline.feedback(course)
    print("exporting the grades (nbgrader export) ...")
    csv_path = pipeline.export(course, workspace / "grades.csv")
    print(f"\n{len(cases)} submissions graded in {duration(seconds)} ({60 * len(cases) / seconds:.1f} per minute); "
          f"total {duration(time.monotonic() - started)}")
    print_table(course, f"every cell's score and reason: {csv_path}\nfeedback: {course.feedback}\n"
                        f"reports: {course.reports}")
    print_class_reports(course)
    return 0


def deadlines_text(course) -> str:
    """The course's deadlines.toml in words, with the gradebook's due dates when it has been built."""
    from . import deadlines

    stored = None
    if course.gradebook.exists() or not course.db_url.startswith("sqlite"):
        from nbgrader.api import Gradebook
        with Gradebook(course.db_url) as gb:
            stored = {a.name: a.duedate for a in gb.assignments}
    return deadlines.describe(course.deadlines(), course.assignments(), stored)


def print_similarity(course, assignment: str, top: int, names: bool) -> None:
    """The ranked pairs of `assignment` (autograder.similarity), students numbered as the class report numbers
    them, or by id and name with `names`."""
    from . import similarity
    from .pipeline import GraderError, neutralise
    from .report.render import pseudonyms

    if top < 1:
        raise GraderError(f"--top must be at least 1, not {top}")
    if assignment not in course.assignments():
        raise GraderError(f"no assignment named {assignment} (the course has: {', '.join(course.assignments())})")
    students, full_names = similarity.roster(course)
    number = pseudonyms(students)
    label = ((lambda s: neutralise(s + (f" ({full_names[s]})" if s in full_names else ""))) if names
             else (lambda s: f"student {number[s]}"))
    print(similarity.format_pairs(similarity.class_similarity(course, assignment, top, students), label))


def print_class_reports(course, assignments=None, output=None) -> None:
    """Write the class report of each assignment (autograder.report) and say where."""
    from . import report

    for html_path, json_path in report.write_reports(course, assignments, output):
        print(f"class report: {html_path} (data: {json_path.name})")


def rejudge(course, args) -> int:
    """The rejudge step (autograder.rejudge) and what it did: the changes, the submissions left alone. Exit
    status 1 when a kept file was refused, else 0."""
    from . import rejudge as rejudging
    from .pipeline import neutralise

    outcome = rejudging.rejudge(course, args.assignment, args.test, args.student)
    print(f"{len(outcome.changes)} verdict(s) changed, {outcome.unchanged} unchanged")
    if outcome.changes:
        print(rejudging.table(outcome))
        withheld = {pair: why for pair, why in outcome.feedback.items() if why}
        print(f"feedback regenerated for {len(outcome.feedback) - len(withheld)} student(s) in {course.feedback}"
              + "".join(f"\n  {neutralise(s)}: {why}" for (_, s), why in sorted(withheld.items())))
    if outcome.late:
        print(f"late penalties computed again from the new scores ({len(outcome.late)}): "
              + "; ".join(map(neutralise, outcome.late)))
    if outcome.not_kept:
        print(f"left alone ({len(outcome.not_kept)}): " + "; ".join(f"{neutralise(k)}: {why}" for k, why
                                                              in sorted(outcome.not_kept.items())))
        students = sorted({key.split("/")[0] for key in outcome.not_kept})
        print(f"  grade them again: {rejudging.regrade_command(course, args.assignment, students)}")
    if outcome.not_submitted:
        print(f"not handed in ({len(outcome.not_submitted)}), grades kept: "
              + "; ".join(map(neutralise, sorted(outcome.not_submitted))))
    if outcome.untrusted:
        print("\n".join(f"refused {neutralise(k)}: {why}" for k, why in sorted(outcome.untrusted.items())),
              file=sys.stderr)
        students = sorted({key.split("/")[0] for key in outcome.untrusted})
        print(f"error: {len(outcome.untrusted)} submission(s) refused (a kept file, or a file changed during the "
              f"rejudge), those grades left as they are; grade them "
              f"again: {rejudging.regrade_command(course, args.assignment, students)}", file=sys.stderr)
        return 1
    return 0


EXAMPLES = """examples:
  python -m autograder build
  python -m autograder add-students roster.csv
  python -m autograder collect downloads.zip
  python -m autograder deadlines
  python -m autograder autograde --jobs 2
  python -m autograder export --output grades.csv
  python -m autograder feedback ttt1_mcts
  python -m autograder report ttt1_mcts
  python -m autograder similarity ttt1_mcts --top 10
  python -m autograder rejudge ttt1_mcts --test test_get_action_prob
  python -m autograder --workspace /tmp/class demo ttt1_mcts"""


def jobs_option(parser) -> None:
    parser.add_argument("--jobs", type=int, default=0, metavar="N",
                        help="submissions graded side by side (default: one per core), e.g. --jobs 2")


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per step; every argument's help gives an example."""
    def command(name, summary, description, example):
        return sub.add_parser(name, help=summary, description=textwrap.fill(description, 100),
                              epilog=f"example:\n  {example}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__.splitlines()[0],
                                     epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", metavar="DIR",
                        help="grade in this folder, with its own gradebook and configuration, instead of the "
                             "course at the repository root (e.g. --workspace /tmp/class); give it before the command")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    command("build", "release/ and solutions/ from assignments/, gradebook, leak scan",
            "Generate release/ (what students get) and solutions/ from assignments/ with nbgrader, record the "
            "assignments in the gradebook, and check that no hidden-test or solution line leaked.",
            "python -m autograder build")
    p = command("add-students", "add students from a roster",
                "Add or update students in the gradebook.", "python -m autograder add-students roster.csv")
    p.add_argument("roster", help="a CSV with an `id` column (optional: first_name, last_name, email), or a text "
                                  "file with one id per line (e.g. roster.csv)")
    p = command("collect", "copy a folder or zip of submissions into submitted/",
                "Copy submissions into submitted/<student>/<assignment>/, repairing what can be and recording "
                "why in the reports: <student>.ipynb, <student>/<assignment>/<notebook>.ipynb, or an LMS download.",
                "python -m autograder collect downloads.zip --assignment ttt1_mcts")
    p.add_argument("source", help="a folder or a zip of submissions (e.g. downloads.zip or incoming/)")
    p.add_argument("--assignment", metavar="NAME",
                   help="the assignment of files whose path does not name one (e.g. --assignment ttt1_mcts)")
    p.add_argument("--times", metavar="FILE",
                   help="the LMS's submission times: Canvas's submissions JSON or Moodle's grading worksheet CSV "
                        "(e.g. --times submissions.json)")
    command("deadlines", "show the due dates, late policy and extensions of deadlines.toml",
            "Check and show the course's deadlines.toml (in the course root): each assignment's due date and hard "
            "deadline, the late policy, what happens to a submission whose time is unknown, the extensions, and "
            "whether the gradebook has the same due dates.", "python -m autograder deadlines")
    p = command("autograde", "grade the collected submissions in sandboxed kernels",
                "Grade, in sandboxed kernels, every collected submission that has no finished grade yet (never "
                "graded, interrupted, failed, or collected again since); each score prints as it finishes, then "
                "the grade table.", "python -m autograder autograde ttt1_mcts --student alice --jobs 2")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="only these assignments (default: all), e.g. ttt1_mcts hex4_onpolicy")
    p.add_argument("--student", action="append", metavar="ID",
                   help="only this student; repeat for several (e.g. --student alice --student bob)")
    jobs_option(p)
    p.add_argument("--regrade", action="store_true",
                   help="grade again those that already have a finished grade (e.g. after changing a test)")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade even though no sandbox can be started: student code runs with your rights, and "
                        "every row is marked UNSAFE")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="grade on the nodes of a Ray cluster, this machine keeping the gradebook: auto (the "
                        "cluster this machine joined), local (a new one here) or HOST:PORT (e.g. --ray auto)")
    p = command("export", "grades CSV, one row per student and notebook",
                "Write the grades CSV (nbgrader export): one row per student and notebook, a score and a reason "
                "per graded cell.", "python -m autograder export --output grades.csv")
    p.add_argument("--output", default="grades.csv", metavar="FILE",
                   help="where to write the CSV (default grades.csv), e.g. --output grades-final.csv")
    p.add_argument("--format", choices=["pack", "canvas", "moodle"], default="pack",
                   help="pack: the pack's own CSV (default); canvas or moodle: that LMS's gradebook import CSV, "
                        "one row per student, one column per assignment (e.g. --format canvas)")
    p.add_argument("--roster", metavar="FILE",
                   help="the LMS's own roster CSV for the identity columns: Canvas's Gradebook export, Moodle's "
                        "grade export or participants (e.g. --roster canvas-gradebook.csv)")
    p = command("feedback", "HTML feedback (no hidden tests) for every graded submission",
                "Write feedback/<student>/<assignment>/<notebook>.html for every graded submission (hidden tests "
                "removed; feedback that would show a secret line is withheld).",
                "python -m autograder feedback ttt1_mcts")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="only these assignments (default: all), e.g. ttt1_mcts")
    command("leaks", "scan release/, solutions/ and feedback/ for hidden-test and solution lines",
            "Scan release/, solutions/ and feedback/ for any hidden-test or solution line.",
            "python -m autograder leaks")
    p = command("report", "the class at a glance: per assignment an HTML page and its data as JSON",
                "Write, per assignment, one self-contained HTML page (scores, the hardest tests, what went wrong "
                "across the class, integrity and health, the course so far) and the same data as JSON, from the "
                "gradebook and the grader's reports.", "python -m autograder report ttt1_mcts --output /tmp/class")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="only these assignments (default: all), e.g. ttt1_mcts")
    p.add_argument("--output", metavar="DIR",
                   help="folder for the reports (default: <reports>/class/), e.g. --output /tmp/class")
    p = command("similarity", "pairs of submissions whose answers are unusually alike, ranked",
                "Compare every submission's answer cells (code, and written answers as text) with every other's, "
                "the release's lines (provided code, stubs, questions) removed, and print the pairs most alike "
                "compared with the class, students numbered as in the class report. A reason to look, not proof.",
                "python -m autograder similarity ttt1_mcts --top 10")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="the assignment to compare, e.g. ttt1_mcts")
    p.add_argument("--top", type=int, default=20, metavar="N", help="how many pairs to print (default 20), e.g. --top 10")
    p.add_argument("--names", action="store_true",
                   help="show the students' ids and names instead of their numbers, as the report's Show names "
                        "button does (e.g. --names)")
    p = command("rejudge", "judge the kept probe outputs again (no kernel), after a judge or points changed",
                "Judge every graded submission's kept probe outputs again with the current judges and the source "
                "notebook's points, without starting a kernel; write what changed (gradebook, autograded notebook, "
                "report, feedback) and print who changed from what to what. Refuses when a probe, its cases or a "
                "cell that ran in the kernels changed since, naming the command that grades those submissions "
                "again.", "python -m autograder rejudge ttt1_mcts --test test_get_action_prob")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="the assignment to rejudge, e.g. ttt1_mcts")
    p.add_argument("--test", action="append", metavar="GRADE_ID",
                   help="only this test cell; repeat for several (e.g. --test test_get_action_prob)")
    p.add_argument("--student", action="append", metavar="ID",
                   help="only this student; repeat for several (e.g. --student alice --student bob)")
    p = command("demo", "build, grade the example submissions, print the grade table",
                "Build release/ and solutions/, then grade the bundled example submissions (full, blank, partial "
                "and hostile) in a fresh workspace (autograder/demo/), printing each score as it finishes and the "
                "grade table at the end.", "python -m autograder demo ttt1_mcts --jobs 2")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="only these assignments' examples (default: all 16 submissions), e.g. ttt1_mcts")
    jobs_option(p)
    command("doctor", "say whether student code can be isolated here, and how to fix it if not",
            "Check that the grading sandbox (bubblewrap) can isolate student code here; if not, say what to fix.",
            "python -m autograder doctor")
    p = command("bundle", "per assignment, a zip of what a student receives (dist/student/)",
                "Write dist/student/<assignment>.zip: the release notebook, the modules and checkpoints it "
                "imports, a pinned requirements.txt and validate.py (leak-scanned).",
                "python -m autograder bundle ttt1_mcts --output /tmp/bundles")
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                   help="only these assignments (default: all), e.g. ttt1_mcts")
    p.add_argument("--output", metavar="DIR", help="folder for the zips (default dist/student/), e.g. --output /tmp/bundles")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # progress lines reach a log or a pipe as they are printed
    from . import pipeline

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
        if args.command == "deadlines":
            print(deadlines_text(course))
            return 0
        if args.command == "build":
            pipeline.build(course)
            print(f"built {course.release} (and solutions/); gradebook {course.gradebook}; no leaks found")
        elif args.command == "add-students":
            students = pipeline.read_roster(args.roster)
            pipeline.add_students(course, students)
            print(f"{len(students)} student(s) in {course.gradebook}")
        elif args.command == "collect":
            records = pipeline.collect(course, args.source, args.assignment, times=args.times)
            for record in records:
                release = record.get("release") or {}
                made = ([] if release.get("current", True) else
                        [f"made from an earlier release ({release['version']}, {release['date']})"])
                notes = "; ".join(made + record["problems"] + record["flags"])
                print(f"{record['student']:<20} {record['assignment'] or '?'}/{record['notebook'] or '?'}"
                      f"  [{record['identity']}: {record['origin']}]" + (f"  ({notes})" if notes else ""))
            print(f"collected {len(records)} file(s) from {len({r['student'] for r in records})} student(s): "
                  f"{sum(r['submitted'] for r in records)} to grade, {sum(not r['submitted'] for r in records)} not; "
                  f"{sum(bool(r['problems']) for r in records)} with problems, "
                  f"{sum(bool(r['flags']) for r in records)} flagged")
        elif args.command == "autograde":
            try:
                options = dict(assignments=args.assignments or None, students=args.student, jobs=args.jobs or None,
                               unsafe_no_sandbox=args.unsafe_no_sandbox, regrade=args.regrade)
                if args.ray:
                    from . import cluster
                    results = cluster.autograde(course, args.ray, **options)
                else:
                    results = pipeline.autograde(course, **options)
            except KeyboardInterrupt:
                print_table(course, "interrupted: the submissions not graded show as \"not graded (interrupted)\" "
                                    "or \"not graded (run autograde)\"; `python -m autograder autograde` again "
                                    "grades exactly those", args.assignments, args.student)
                return 130
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
        elif args.command == "export" and args.format != "pack":
            from . import export_lms
            try:
                path = export_lms.write_lms(course, args.format, args.output, args.roster)
            except export_lms.LmsExportError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
            print(f"wrote {path} ({args.format} gradebook import)")
        elif args.command == "export":
            print("exporting the grades (nbgrader export) ...")
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
        elif args.command == "similarity":
            print_similarity(course, args.assignment, args.top, args.names)
        elif args.command == "rejudge":
            return rejudge(course, args)
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
