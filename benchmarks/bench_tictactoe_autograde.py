"""Wall time of `nbgrader autograde` for one submission of each tic-tac-toe assignment.

    python benchmarks/bench_tictactoe_autograde.py

Budget (issue 3): at most 60 s per submission on a 2-core machine. Uses a scratch course
folder (the real gradebook is untouched) and the solution notebook as the submission, which
runs every hidden test. Run `python -m autograder.build` first.
"""
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


def main() -> None:
    print(f"CPU cores: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        course = Path(scratch)
        shutil.copytree(SOURCE_DIR, course / "assignments")
        (course / "nbgrader_config.py").write_text(
            (REPO_ROOT / "autograder" / "nbgrader_config.py").read_text()
            + f"\nc.CourseDirectory.root = {str(course)!r}\nc.CourseDirectory.db_url = 'sqlite:///{course}/gb.db'\n")
        for assignment, notebooks in ASSIGNMENTS.items():
            if not assignment.startswith("ttt"):
                continue
            nbgrader(course, "generate_assignment", assignment, "--force")
            for notebook in notebooks:
                target = course / "autograder" / "submitted" / "student" / assignment / f"{notebook}.ipynb"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO_ROOT / "solutions" / assignment / f"{notebook}.ipynb", target)
            start = time.perf_counter()
            nbgrader(course, "autograde", assignment, "--force")
            print(f"{assignment}: autograde of one submission {time.perf_counter() - start:.1f} s (budget 60 s)")


if __name__ == "__main__":
    main()
