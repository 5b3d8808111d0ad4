"""Sandbox figures: kernel start, one notebook's grading, and a hostile neighbour's effect.

    .venv/bin/python benchmarks/bench_sandbox.py [--repeat 5]

Prints
- the time to start a kernel and run one cell, sandboxed (bubblewrap) and unisolated;
- the time to run part 1's completed notebook through the sandbox (SandboxExecute alone, no
  nbgrader start-up), sandboxed and unisolated;
- the neighbour figure: that honest notebook graded alone, then graded while a hostile notebook
  (64 `setsid()` busy loops, a fork bomb and a memory hog) is graded beside it, each in its own
  grader process, as `autograde --jobs 2` does. The ratio must stay within 1.5.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from autograder import corpus, isolation, sandbox  # noqa: E402
from autograder.grading_config import REPO_ROOT  # noqa: E402

HOSTILE = '''
import os, time
for _ in range(64):                       # busy loops, each in a session of its own
    if os.fork() == 0:
        os.setsid()
        while True:
            pass
try:                                      # a fork bomb
    for _ in range(100000):
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
except OSError:
    pass
blocks = []
try:                                      # a memory hog
    while True:
        blocks.append(bytearray(2**27))
except MemoryError:
    pass
time.sleep(600)
'''


def honest_notebook():
    return corpus.filled(SimpleNamespace(release=REPO_ROOT / "release"), "ttt1_mcts")


def grade(nb, isolation_mode="bubblewrap", notebook_timeout=1200) -> float:
    started = time.monotonic()
    executor = sandbox.SandboxExecute(timeout=120, isolation=isolation_mode, notebook_timeout=notebook_timeout)
    executor.preprocess(nb, {"nbgrader": {"student": "bench", "assignment": "ttt1_mcts", "notebook": "ttt1_mcts"}})
    return time.monotonic() - started


def one_cell(isolation_mode: str) -> float:
    return grade(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), isolation_mode)


def _child(kind: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--child", kind], stdout=subprocess.PIPE, text=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", choices=["honest", "hostile"])
    args = parser.parse_args()
    if args.child == "honest":
        print(grade(honest_notebook()))
        return
    if args.child == "hostile":
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(HOSTILE)])
        print(grade(nb, notebook_timeout=90))
        return
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; {isolation.diagnose().explain()}")
    for mode in ("bubblewrap", "none"):
        times = [one_cell(mode) for _ in range(args.repeat)]
        print(f"kernel start + one cell, {mode:>10}: median {statistics.median(times):.2f} s "
              f"(min {min(times):.2f}, max {max(times):.2f})")
    for mode in ("bubblewrap", "none"):
        times = [grade(honest_notebook(), mode) for _ in range(max(1, args.repeat // 2))]
        print(f"ttt1_mcts notebook (visible tests), {mode:>10}: median {statistics.median(times):.2f} s")
    alone = [float(_child("honest").communicate()[0]) for _ in range(2)]
    hostile = _child("hostile")
    time.sleep(3)  # let the hostile kernel start its loops
    beside = float(_child("honest").communicate()[0])
    hostile.kill()
    hostile.wait()
    print(f"honest notebook alone: {min(alone):.2f} s; beside the hostile one: {beside:.2f} s; "
          f"ratio {beside / min(alone):.2f} (must stay within 1.5)")


if __name__ == "__main__":
    main()
