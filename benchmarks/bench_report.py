"""The class report for a class of 200: seconds from `python -m autograder report` to the files written.

    python benchmarks/bench_report.py [--size 200] [--workspace DIR] [--rounds 3] [--screenshot PNG]

Builds the class as ``tests/test_class_report.py`` does (``tests/synthetic_class.py``: the example
submissions and realistic mistakes graded once for real, then replicated under generated names through
nbgrader's Gradebook API and the grader's report files) in `--workspace` (default: a temporary folder;
a workspace already holding the class is reused, so only the report is timed again). Then runs the
CLI `--rounds` times, each a fresh process (imports included), and prints the median, the slowest and
the ratio to the 30 s target. `--screenshot` saves the top of part 1's page, names hidden, as rendered by
Debian's Chromium through Playwright (the README's picture).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from autograder import pipeline  # noqa: E402
from synthetic_class import ASSIGNMENTS, build_class, grade_variants  # noqa: E402

TARGET_S = 30.0


def submissions(course: pipeline.Course, assignment: str) -> int:
    from nbgrader.api import Gradebook

    from autograder.grading_config import COURSE_ID

    with Gradebook(course.db_url, COURSE_ID) as gb:
        return len(gb.submission_dicts(assignment))


def screenshot(html: Path, target: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 1500}, device_scale_factor=1)
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        page.screenshot(path=str(target))
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--workspace")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    folder = Path(args.workspace or tempfile.mkdtemp(prefix="bench-report-"))
    course = pipeline.Course.workspace(folder)
    if not course.gradebook.exists() or submissions(course, ASSIGNMENTS[0]) < args.size:
        started = time.monotonic()
        graded = grade_variants(course)
        print(f"graded {len(graded)} distinct submissions in {time.monotonic() - started:.0f} s")
        started = time.monotonic()
        build_class(course, args.size)
        print(f"replicated to {args.size} students an assignment in {time.monotonic() - started:.0f} s")
    counts = {a: submissions(course, a) for a in ASSIGNMENTS}
    seconds, cpu = [], []
    for _ in range(args.rounds):
        started, used = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "autograder", "--workspace", str(folder), "report"],
                              cwd=REPO_ROOT, capture_output=True, text=True, check=True)
        seconds.append(time.monotonic() - started)
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime)
    print(done.stdout.strip())
    median = statistics.median(seconds)
    print(f"class report of {len(ASSIGNMENTS)} assignments ({', '.join(f'{a}: {n}' for a, n in counts.items())} "
          f"submissions): median {median:.1f} s, slowest {max(seconds):.1f} s over {args.rounds} runs "
          f"(CPU {statistics.median(cpu):.1f} s); "
          f"target {TARGET_S:.0f} s, ratio {median / TARGET_S:.2f}")
    if args.screenshot:
        screenshot(course.reports / "class" / f"{ASSIGNMENTS[0]}.html", Path(args.screenshot))
        print(f"screenshot: {args.screenshot}")


if __name__ == "__main__":
    main()
