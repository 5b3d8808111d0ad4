"""Similar answers for a class of 1,000: seconds for ``autograder.similarity.class_similarity`` on one notebook.

    python benchmarks/bench_similarity.py [--size 1000] [--top 20] [--rounds 1]

Writes the class of ``tests/similar_class.py`` (honest students of part 1 writing their own answers, one in
twenty a disguised copy of another) as notebooks into a temporary ``submitted/`` beside the pack's
``release/``, then times what ``python -m autograder similarity`` and the class report do with it: read
every notebook, remove the release's lines, fingerprint (copydetect) the code and the written answers,
score every pair and give the top pairs' shared lines. Prints the wall and CPU seconds of each round, the
median against the 120 s target, how many planted pairs are among the top and the peak memory.
"""
import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

import nbformat  # noqa: E402

from autograder import similarity  # noqa: E402
from autograder.pipeline import Course  # noqa: E402
from similar_class import ASSIGNMENT, class_notebooks  # noqa: E402

TARGET_S = 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--top", type=int, default=similarity.TOP)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    notebooks, planted = class_notebooks(args.size)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        course = Course(root, root, root / "source", REPO_ROOT / "release", root / "submitted", root / "autograded",
                        root / "feedback", root / "gradebook.db", root / "reports")
        for student, nb in notebooks.items():
            target = course.submitted / student / ASSIGNMENT
            target.mkdir(parents=True)
            (target / f"{ASSIGNMENT}.ipynb").write_text(nbformat.writes(nb))
        print(f"{len(notebooks)} submissions of {ASSIGNMENT} written ({len(planted)} planted copies); timing ...")
        walls = []
        for round_number in range(args.rounds):
            cpu, wall = time.process_time(), time.perf_counter()
            data = similarity.class_similarity(course, ASSIGNMENT, args.top, students=sorted(notebooks))
            walls.append(time.perf_counter() - wall)
            print(f"round {round_number + 1}: {walls[-1]:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, "
                  f"{data['compared']} submissions, {data['pairs']:,} pairs")
    listed = {tuple(row["students"]) for row in data["top"]}
    found = sum(tuple(sorted(pair)) in listed for pair in planted)
    print(f"median {statistics.median(walls):.1f} s for {args.size} submissions "
          f"({statistics.median(walls) / TARGET_S:.2f} of the {TARGET_S:.0f} s target); "
          f"{found} of {len(planted)} planted pairs in the top {args.top}; peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
