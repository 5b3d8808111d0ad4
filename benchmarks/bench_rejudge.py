"""Rejudging one test of 1,000 submissions on one core, without a kernel: seconds, against a 60 s target.

    python benchmarks/bench_rejudge.py [--size 1000] [--test test_get_action_prob ...] [--graded DIR]
                                       [--workspace DIR]

Grades part 1's corpus cases once for real in `--workspace` (default: a temporary folder), or copies an
already graded course (`--graded`, e.g. the suite's graded corpus), then replicates each graded submission
of part 1 under generated names until the class has `--size` submissions: its gradebook record and report
files (``autograder.report.replicate``), its kept probe outputs relabelled for the new student, its
autograded notebook and its submitted files. Then, for each `--test`, on one core (``taskset -c 0``):

- ``python -m autograder rejudge ttt1_mcts --test T`` in a fresh process (imports included), nothing
  changed: every kept file checked against its report, every judged line against its header, every
  verdict compared with the gradebook's score and the report's reason; nothing written;
- the same after the test's point value changed (in a copy of the source notebook), in a fresh process
  that calls ``rejudge.rejudge(..., feedback=False)``: every gradebook row written in one transaction,
  every autograded notebook and report replaced. Feedback, nbgrader's ``generate_feedback`` (about
  0.5 s a student: 20 in 9 s), is not timed;
- parsing and judging one variant's outputs (the mean over the variants): replicas give the same outputs,
  judged once each (``rejudge._Judge``), as a class's correct answers mostly do; this is what each
  submission would add if every one differed.
"""
import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from autograder import corpus, kept_probes, pipeline  # noqa: E402
from autograder.report import replicate  # noqa: E402

ASSIGNMENT = "ttt1_mcts"
TARGET_S = 60.0
TESTS = ["test_get_action_prob", "test_get_next_state", "test_search_iter"]

POINTS_CHANGED = """
import sys
from autograder import pipeline, rejudge
outcome = rejudge.rejudge(pipeline.Course.workspace(sys.argv[1]), "%s", tests=[sys.argv[2]], feedback=False)
print(len(outcome.changes), outcome.unchanged, len(outcome.not_kept) + len(outcome.untrusted))
""" % ASSIGNMENT

JUDGE_EACH = """
import json, sys, time
from pathlib import Path
from autograder import kept_probes, probes
folder, test, variants, seconds = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(","), 0.0
for student in variants:
    path = folder / "reports" / "%s" / student
    kept = kept_probes.read(path, json.loads((path / "%s.json").read_text()), student, "%s", "%s")
    lines = [kept.line(c) for c in kept.header["cells"][test]["checks"] if "offset" in c]
    for check, line in zip([c for c in kept.header["cells"][test]["checks"] if "offset" in c], lines):
        probes.judge(check["module"], check["name"], [])  # the reference's outputs, loaded once
        started = time.process_time()
        probes.judge(check["module"], check["name"], kept_probes.parse(line, ""))
        seconds += time.process_time() - started
print(seconds / len(variants))
""" % ((ASSIGNMENT,) * 4)


def grade(course: pipeline.Course) -> None:
    """Part 1's corpus cases graded once, for real (nbgrader, the sandbox)."""
    pipeline.build(course, [ASSIGNMENT])
    cases = [case for case in corpus.all_cases() if case.assignment == ASSIGNMENT]
    corpus.write_submissions(course.root / "incoming", cases, course)
    pipeline.collect(course, course.root / "incoming", log=lambda *_: None)
    pipeline.autograde(course, [ASSIGNMENT], jobs=os.cpu_count(), log=lambda *_: None)


def relabel(course: pipeline.Course, source: str, student: str) -> None:
    """`source`'s kept outputs, autograded notebook and submitted files as `student`'s (after
    ``replicate.replicate`` copied the gradebook record and the report files)."""
    folder, target = course.reports / ASSIGNMENT / source, course.reports / ASSIGNMENT / student
    for kept in folder.glob(f"*{kept_probes.SUFFIX}"):
        data = kept.read_bytes()
        member = zlib.decompressobj(wbits=31)
        header = json.loads(member.decompress(data))
        header["student"] = student
        head = json.dumps(header, separators=(",", ":")).encode()
        (target / kept.name).write_bytes(gzip.compress(head + b"\n", mtime=0) + member.unused_data)
        report_path = target / kept.name.replace(kept_probes.SUFFIX, ".json")
        report = json.loads(report_path.read_text())
        report["kept_probes"]["sha256"] = kept_probes.digest(head)
        report_path.write_text(json.dumps(report, indent=1))
    for root in (course.autograded, course.submitted):
        shutil.copytree(root / source / ASSIGNMENT, root / student / ASSIGNMENT, dirs_exist_ok=True)


def variants(course: pipeline.Course) -> list[str]:
    """Part 1's graded submissions with kept outputs (not replicas: generated ids end in a number)."""
    from autograder import grading_state

    return sorted(p.name for p in (course.reports / ASSIGNMENT).iterdir()
                  if not p.name[-3:].isdigit() and grading_state.is_finished(course, ASSIGNMENT, p.name)
                  and (p / f"{ASSIGNMENT}{kept_probes.SUFFIX}").exists())


def build_class(course: pipeline.Course, size: int) -> int:
    """Replicate part 1's graded submissions round-robin until the class has `size` (a class already that
    large is kept); how many it has."""
    originals = variants(course)
    have = sum(1 for p in (course.reports / ASSIGNMENT).iterdir() if p.is_dir())
    if have < size:
        students = replicate.generated_names(size - have)
        for i, variant in enumerate(originals):
            replicate.replicate(course, ASSIGNMENT, variant, students[i::len(originals)])
            for student in students[i::len(originals)]:
                relabel(course, variant, student["id"])
    return max(have, size)


def timed(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of a child process on core 0."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(["taskset", "-c", "0", *command], cwd=REPO_ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime, done.stdout.strip()


def set_points(course: pipeline.Course, test: str, delta: int) -> None:
    """The test's points in the course's own copy of the source notebook, changed by `delta`."""
    import nbformat

    source = Path(course.source)
    if source.is_symlink():
        source.unlink()
        shutil.copytree(REPO_ROOT / "assignments", source)
    path = source / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == test)
    cell.metadata.nbgrader["points"] += delta
    nbformat.write(nb, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--test", action="append", help=f"grade ids (default: {', '.join(TESTS)})")
    parser.add_argument("--graded", help="copy this graded course instead of grading the corpus")
    parser.add_argument("--workspace")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    folder = Path(args.workspace or tempfile.mkdtemp(prefix="bench-rejudge-"))
    if args.graded and not folder.exists():
        shutil.copytree(args.graded, folder, symlinks=True)
        (folder / "nbgrader_config.py").unlink()
    course = pipeline.Course.workspace(folder)
    if not course.gradebook.exists():
        started = time.monotonic()
        grade(course)
        print(f"graded part 1's corpus in {time.monotonic() - started:.0f} s")
    started = time.monotonic()
    size = build_class(course, args.size)
    print(f"{size} submissions of {ASSIGNMENT} ({time.monotonic() - started:.0f} s to replicate)")
    names = ",".join(variants(course))
    for test in args.test or TESTS:
        wall, cpu, out = timed([sys.executable, "-m", "autograder", "--workspace", str(folder), "rejudge",
                                ASSIGNMENT, "--test", test])
        print(f"{test}, nothing changed ({out.splitlines()[0]}): {wall:.1f} s wall, {cpu:.1f} s CPU on one "
              f"core (the CLI, imports included); target {TARGET_S:.0f} s, ratio {wall / TARGET_S:.2f}")
        set_points(course, test, +1)
        wall, cpu, out = timed([sys.executable, "-c", POINTS_CHANGED, str(folder), test])
        changes, unchanged, alone = map(int, out.split())
        print(f"{test}, its points changed ({changes} changed, {unchanged} unchanged, {alone} left alone): "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU on one core (feedback not generated); ratio {wall / TARGET_S:.2f}")
        _, _, out = timed([sys.executable, "-c", JUDGE_EACH, str(folder), test, names])
        each = float(out)
        print(f"{test}: parsing and judging one variant's outputs takes {1000 * each:.1f} ms of CPU (mean of "
              f"{len(names.split(','))}): {size} submissions all different would add about {each * size:.0f} s")

if __name__ == "__main__":
    main()
