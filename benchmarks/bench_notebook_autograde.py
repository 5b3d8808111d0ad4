"""Wall time of `nbgrader autograde` for one submission of each assignment.

    python benchmarks/bench_notebook_autograde.py [--cold-numba]

Budget (issues 3 and 5): at most 60 s per submission on a 2-core machine. Uses a scratch course
folder (the real gradebook is untouched) and the solution notebook as the submission, which
runs every hidden test. ``--cold-numba`` grades again without the warm numba cache that each
sandbox normally starts with, and prints the ratio. Run `python -m autograder.build` first.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.build import ASSIGNMENTS
from autograder.reference import REPO_ROOT, SOURCE_DIR


def nbgrader(course: Path, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=ERROR"], cwd=course, env=env,
                   check=True, capture_output=True)


def autograde_seconds(course: Path, assignment: str, *options: str) -> float:
    start = time.perf_counter()
    nbgrader(course, "autograde", assignment, "--force", *options)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cold-numba", action="store_true", help="also grade without the warm numba cache")
    args = parser.parse_args()
    print(f"CPU cores: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.2f}")
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
            warm = autograde_seconds(course, assignment)
            line = f"{assignment}: autograde of one submission {warm:.1f} s (budget 60 s)"
            if args.cold_numba:
                cold = autograde_seconds(course, assignment, "--SandboxExecute.warm_numba=False")
                line += f"; without the warm numba cache {cold:.1f} s ({cold / warm:.1f}x)"
            print(line)


if __name__ == "__main__":
    main()
