"""Grading throughput per CPU on a two-node Ray cluster against the local pipeline, on this machine.

    python benchmarks/bench_grading_ray.py [--submissions 8] [--rounds 2] [--json out.json]

One workspace, `submissions` part-1 submissions (full, partial and blank answers in rotation). Each
round grades them all twice, alternately: with the local pipeline (``autograde``, one job per CPU
the cluster has) and with ``autograde --ray`` on a local cluster of two ``ray start`` nodes of one CPU
each (``tests/ray_nodes.py``; this process is the driver, as an instructor's machine is). Prints, per
run, submissions per CPU-minute (submissions / wall minutes / CPUs) and the cluster's figure as a
share of the local one (the target: within 15%, i.e. at least 85%), and checks that both ways gave
every submission the same score. The cluster's set-up (starting the nodes) is not timed; its per-batch
set-up (connecting, each node's doctor, shipping the course and the caches) is.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from autograder import cluster as on_ray, corpus, pipeline  # noqa: E402
from ray_nodes import LocalCluster  # noqa: E402

CPUS = 2  # the cluster's: two nodes of one CPU each; the local pipeline gets as many jobs
TARGET = 0.85


def cases(count: int) -> list:
    """Part-1 submissions: the reference answers, one wrong answer, or none, in rotation."""
    from autograder.assignments.ttt1_mcts import examples

    out = []
    for i in range(count):
        kind = ("full", "partial", "blank")[i % 3]
        blank = tuple(corpus.source_solutions("ttt1_mcts")) if kind == "blank" else ()
        extra = {"get_action_prob": examples.WRONG_ACTION_PROB} if kind == "partial" else None
        out.append(corpus.simple(f"{kind}_{i:03d}", "ttt1_mcts", set(), blank=blank, extra=extra))
    return out


def scores(course) -> dict:
    return {row["student"]: row.get("score") for row in pipeline.grade_rows(course, ["ttt1_mcts"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grading-ray-") as folder:
        course = pipeline.Course.workspace(Path(folder) / "ws")
        pipeline.build(course, ["ttt1_mcts"], log=lambda line: None)
        corpus.write_submissions(Path(folder) / "incoming", cases(args.submissions), course)
        pipeline.collect(course, Path(folder) / "incoming", log=lambda line: None)
        cluster = LocalCluster()
        os.environ["RAY_AUTH_MODE"] = "disabled"
        runs = {"local": [], "ray": []}
        results = {}
        try:
            cluster.start({"head": {}, "b": {}})
            for _ in range(args.rounds):
                for way in ("local", "ray"):
                    started = time.monotonic()
                    if way == "ray":
                        on_ray.autograde(course, cluster.address, log=lambda line: None)
                    else:
                        pipeline.autograde(course, jobs=CPUS, log=lambda line: None)
                    seconds = time.monotonic() - started
                    runs[way].append(args.submissions / (seconds / 60) / CPUS)
                    results.setdefault(way, []).append(scores(course))
                    print(f"{way:>5}: {args.submissions} submissions in {seconds:.1f} s, "
                          f"{runs[way][-1]:.2f} per CPU-minute", flush=True)
        finally:
            cluster.stop()
    assert all(s == results["local"][0] for way in results for s in results[way]), "the scores differ"
    local, ray = statistics.median(runs["local"]), statistics.median(runs["ray"])
    share = ray / local
    print(f"median submissions per CPU-minute: local {local:.2f}, two-node cluster {ray:.2f}: "
          f"{100 * share:.0f}% of local (target >= {100 * TARGET:.0f}%: {'met' if share >= TARGET else 'NOT met'}); "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "local": local, "ray": ray, "share": share}, indent=1))


if __name__ == "__main__":
    main()
