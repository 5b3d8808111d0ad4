"""The suite's two tiers and its time budget.

Tiers
    ``@pytest.mark.slow`` marks what runs a sandboxed grading, pip, a browser, a notebook or another
    Python, or trains for longer than a few seconds (the whole suite: ``bash scripts/test.sh``).
    Everything else is the quick tier, the inner loop: ``bash scripts/test.sh --quick``
    (``pytest -m "not slow"``), a few minutes on 2 cores.
The guard
    The quick tier stays quick only if nothing slow sneaks into it unmarked: a test file whose unmarked
    tests (their set-up, call and tear-down, module fixtures included) spend more than
    ``QUICK_FILE_BUDGET_S`` CPU-seconds fails the run, naming the file and its time. CPU-seconds (the
    test's process, all its threads, and the child processes it waited for), not wall seconds: on a
    shared 2-core machine another worker's kernels and pip stretch a file's wall time two- to threefold,
    which made a wall-time budget fail honest changes; the CPU a test spends does not move with them.
    A child's CPU reaches its parent when it is waited for, so a long-lived helper (the nbgrader launcher's
    server, shared by every test of a worker) would bring all its earlier work into the test that ends it:
    the children's share of a phase is capped at what the machine's cores could run in that phase.
The summary
    Both tiers end with the 20 slowest files by wall time (pytest's own ``--durations=20`` lists the
    slowest tests) and the quick tier's 10 files nearest the budget, in CPU-seconds.
"""
import os
import resource
import time
from collections import defaultdict

import pytest

pytest_plugins = ["pytester"]  # tests/test_suite_tiers.py runs small suites of its own
QUICK_FILE_BUDGET_S = float(os.environ.get("AZCOURSE_QUICK_FILE_BUDGET", 30.0))  # the environment: for the guard's own test
SLOWEST_FILES = 20
NEAREST_BUDGET = 10
CPU_PROPERTY = "cpu_seconds"


def clocks() -> tuple[float, float, float]:
    """``(own, children, wall)`` seconds: the CPU of this process's threads, the CPU of its children that
    were waited for (user and system both), and a monotonic wall clock."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime, time.monotonic()


def phase_cpu_seconds(start: tuple[float, float, float], end: tuple[float, float, float]) -> float:
    """The CPU-seconds spent between two ``clocks()``: the process's own, plus its children's capped at the
    wall time between them on every core."""
    (own0, children0, wall0), (own1, children1, wall1) = start, end
    return own1 - own0 + min(children1 - children0, (wall1 - wall0) * (os.cpu_count() or 1))


_PHASE_START = pytest.StashKey[tuple]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the CPU-seconds of the phase just run (set-up, call or tear-down) to its report; a pytest-xdist
    worker sends them to the reporting process with the report."""
    outcome = yield
    start = item.stash.get(_PHASE_START, None)
    if start is not None:
        outcome.get_result().user_properties.append((CPU_PROPERTY, phase_cpu_seconds(start, clocks())))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_PHASE_START] = clocks()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    item.stash[_PHASE_START] = clocks()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    item.stash[_PHASE_START] = clocks()


class SuiteClock:
    """A plugin of the reporting process: per-file wall seconds of the tests that ran, and the CPU-seconds of
    the unmarked ones."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.unmarked_cpu = defaultdict(float)

    def over_budget(self) -> list[tuple[str, float]]:
        """``[(file, CPU-seconds)]`` of the files whose unmarked tests spent more than the budget."""
        return [(path, s) for path, s in sorted(self.unmarked_cpu.items()) if s > QUICK_FILE_BUDGET_S]

    def pytest_runtest_logreport(self, report):
        path = report.nodeid.split("::")[0]
        self.seconds[path] += report.duration
        if "slow" not in report.keywords:
            self.unmarked_cpu[path] += sum(value for name, value in report.user_properties if name == CPU_PROPERTY)

    def pytest_sessionfinish(self, session, exitstatus):
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and self.over_budget():
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        if self.seconds:
            terminalreporter.section(f"slowest {SLOWEST_FILES} files (set-up, call and tear-down, summed)")
            for path, seconds in sorted(self.seconds.items(), key=lambda item: -item[1])[:SLOWEST_FILES]:
                terminalreporter.write_line(f"{seconds:8.1f} s  {path}")
        if self.unmarked_cpu:
            terminalreporter.section(f"quick tier: the {NEAREST_BUDGET} files nearest the budget of "
                                     f"{QUICK_FILE_BUDGET_S:.0f} CPU-s (their unmarked tests)")
            for path, seconds in sorted(self.unmarked_cpu.items(), key=lambda item: -item[1])[:NEAREST_BUDGET]:
                terminalreporter.write_line(f"{seconds:8.1f} CPU-s  {path}")
        for path, seconds in self.over_budget():
            terminalreporter.write_line(
                f"QUICK TIER OVER BUDGET: {path}: its tests without @pytest.mark.slow spent {seconds:.0f} CPU-s (budget "
                f"{QUICK_FILE_BUDGET_S:.0f}). Mark its slow tests (`@pytest.mark.slow`, or `pytestmark = pytest.mark.slow` "
                f"for the whole file) or make them faster.", red=True)


def pytest_configure(config):
    if not hasattr(config, "workerinput") and not config.option.collectonly:  # the reporting process only
        config.pluginmanager.register(SuiteClock(), "azcourse-suite-clock")


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    """A Ray cluster of real nodes on this machine for the run (``tests/ray_nodes.py``): "head" and "b" of
    one CPU each, b with a HOME of its own (none of the grader's caches: they must be shipped to it), and
    "c", which cannot sandbox (no bubblewrap on its PATH). A test may kill b (``ray_cluster.kill("b")``):
    the working folders a killed grading leaves in /tmp are removed when the cluster stops."""
    import sys
    from pathlib import Path

    from autograder.sandbox import remove_abandoned
    from ray_nodes import LocalCluster

    folder = tmp_path_factory.mktemp("ray")
    (folder / "home-b").mkdir()
    cluster = LocalCluster()
    try:
        cluster.start({"head": {}, "b": {"env": {"HOME": str(folder / "home-b")}},
                       "c": {"env": {"PATH": str(Path(sys.executable).parent)}}})
        yield cluster
    finally:
        cluster.stop()
        for prefix in ("azcourse-node-", "azsandbox-"):  # a node's workspace, a sandbox's: their holders are gone
            remove_abandoned(prefix)
