"""Wall time of `nbgrader autograde` for one submission of each assignment.

    python benchmarks/bench_notebook_autograde.py [--cold-numba] [--baseline CHECKOUT --rounds N]

Budget (issues 3 and 5): at most 60 s per submission on a 2-core machine. Uses a scratch course
folder (the real gradebook is untouched) and the solution notebook as the submission, which
runs every hidden test. ``--cold-numba`` grades again without the warm numba cache that each
sandbox normally starts with, and prints the ratio. ``--baseline CHECKOUT`` (another version of the
pack, e.g. ``git archive 12fad3c | tar -x -C /tmp/base``) grades each submission with that version's
grader and this one in turn, ``--rounds`` times (both JAX caches and one grading of each version
first, untimed: a copy of the pack elsewhere has numba caches of its own), and prints the medians
and their ratio. Run `python -m autograder.build` first.
"""
import argparse
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.build import ASSIGNMENTS
from autograder.reference import REPO_ROOT, SOURCE_DIR


def _env(root: Path) -> dict:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}


def nbgrader(course: Path, *args: str, root: Path = REPO_ROOT) -> None:
    subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=ERROR"], cwd=course, env=_env(root),
                   check=True, capture_output=True)


def autograde_seconds(course: Path, assignment: str, *options: str, root: Path = REPO_ROOT) -> float:
    start = time.perf_counter()
    nbgrader(course, "autograde", assignment, "--force", *options, root=root)
    return time.perf_counter() - start


def warm_jax(root: Path) -> float:
    """Build `root`'s JAX compilation cache if needed (untimed in the comparison); seconds taken."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from autograder import sandbox; sandbox.warm_jax_cache()"], cwd=root,
                   env=_env(root), check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cold-numba", action="store_true", help="also grade without the warm numba cache")
    parser.add_argument("--baseline", type=Path, help="another checkout of the pack to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="gradings of each version (with --baseline)")
    parser.add_argument("--only", nargs="*", help="these assignments only")
    args = parser.parse_args()
    print(f"CPU cores: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.2f}")
    if args.baseline:
        for root in (args.baseline.resolve(), REPO_ROOT):
            print(f"JAX cache of {root}: ready after {warm_jax(root):.0f} s")
    with tempfile.TemporaryDirectory() as scratch:
        course = Path(scratch)
        shutil.copytree(SOURCE_DIR, course / "assignments")
        shutil.copy(REPO_ROOT / "nbgrader_config.py", course)  # its paths follow the file: the scratch course
        for assignment, notebooks in ASSIGNMENTS.items():
            nbgrader(course, "generate_assignment", assignment, "--force")
            for notebook in notebooks:
                target = course / "submitted" / "student" / assignment / f"{notebook}.ipynb"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO_ROOT / "solutions" / assignment / f"{notebook}.ipynb", target)
            if args.only and assignment not in args.only:
                continue
            if args.baseline:
                times = {"baseline": [], "this": []}
                for root in (args.baseline.resolve(), REPO_ROOT):  # untimed: each version's numba cache
                    autograde_seconds(course, assignment, root=root)
                for _ in range(args.rounds):  # in turn, so that both meet the same load
                    times["baseline"].append(autograde_seconds(course, assignment, root=args.baseline.resolve()))
                    times["this"].append(autograde_seconds(course, assignment))
                before, after = statistics.median(times["baseline"]), statistics.median(times["this"])
                print(f"{assignment}: baseline {before:.1f} s, this checkout {after:.1f} s ({after / before:.2f}x; "
                      f"medians of {args.rounds}; load average {os.getloadavg()[0]:.2f})", flush=True)
                continue
            warm = autograde_seconds(course, assignment)
            line = f"{assignment}: autograde of one submission {warm:.1f} s (budget 60 s)"
            if args.cold_numba:
                cold = autograde_seconds(course, assignment, "--SandboxExecute.warm_numba=False")
                line += f"; without the warm numba cache {cold:.1f} s ({cold / warm:.1f}x)"
            print(line)


if __name__ == "__main__":
    main()
