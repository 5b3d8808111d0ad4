"""Autograding throughput: real nbgrader, sandboxed kernels, parallel workers (= cores by default).

    python benchmarks/bench_autograde.py [--students 6] [--jobs N] [--json out.json]

Each student submits both notebooks (full, partial or blank answers in rotation), so the
batch has 2 x students submissions. Reports submissions per minute, wall seconds per
submission (batch time / submissions: the budget is <= 60 s) and the latency of one
submission (one `nbgrader autograde` process, kernel start to gradebook).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autograder import corpus, pipeline
from autograder.assignments.ttt1_mcts import examples as ttt1_examples
from autograder.assignments.ttt2_selfplay import examples as ttt2_examples

BUDGET_S = 60.0


def submissions(students: int) -> list[corpus.Case]:
    cases = []
    for i in range(students):
        kind = ("full", "partial", "blank")[i % 3]
        student = f"{kind}_{i:03d}"
        for assignment in ("ttt1_mcts", "ttt2_selfplay"):
            blank = tuple(corpus.source_solutions(assignment)) if kind == "blank" else ()
            extra = None
            if kind == "partial":
                extra = ({"get_action_prob": ttt1_examples.WRONG_ACTION_PROB} if assignment == "ttt1_mcts"
                         else {"match_average": ttt2_examples.WRONG_MATCH_AVERAGE})
            expected = {"full": corpus.graded_tests()[assignment], "blank": set(),
                        "partial": corpus.graded_tests()[assignment] - {"test_get_action_prob", "test_match_average"}}[kind]
            cases.append(corpus.simple(student, assignment, expected, blank=blank, extra=extra))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as tmp:
        course = pipeline.Course.workspace(Path(tmp) / "ws")
        pipeline.build(course)
        cases = submissions(args.students)
        corpus.write_submissions(Path(tmp) / "incoming", cases, course)
        pipeline.collect(course, Path(tmp) / "incoming")
        started = time.monotonic()
        results = pipeline.autograde(course, jobs=args.jobs, log=lambda *a: None)
        wall = time.monotonic() - started
        failed = [k for k, r in results.items() if not r["ok"]]
        scores = {(r["student"], r["assignment"]): r.get("code_score") for r in pipeline.grade_rows(course)}
        wrong = [c.name for c in cases if scores.get((c.student_id, c.assignment)) != corpus.expected_score(c, course)]
        latency = [r["seconds"] for r in results.values()]
        per_assignment = {a: round(statistics.mean(r["seconds"] for (x, _), r in results.items() if x == a), 1)
                          for a in ("ttt1_mcts", "ttt2_selfplay")}
    figures = {"submissions": len(results), "jobs": args.jobs, "cores": os.cpu_count(), "wall_s": round(wall, 1),
               "submissions_per_min": round(60 * len(results) / wall, 2),
               "wall_s_per_submission": round(wall / len(results), 1),
               "latency_s_mean": round(statistics.mean(latency), 1), "latency_s_max": round(max(latency), 1),
               "latency_s_mean_by_assignment": per_assignment, "failed": len(failed), "wrong_scores": wrong, "budget_s": BUDGET_S}
    print(json.dumps(figures, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    ok = not failed and not wrong and figures["wall_s_per_submission"] <= BUDGET_S
    print(("PASS" if ok else "FAIL") + f": {figures['wall_s_per_submission']} s per submission "
          f"(budget {BUDGET_S:g} s), {figures['submissions_per_min']} submissions/min with {args.jobs} workers")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
