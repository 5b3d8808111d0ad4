"""The suite's two tiers and its time budget.

Tiers
    ``@pytest.mark.slow`` marks what runs a sandboxed grading, pip, a browser, a notebook or another
    Python (the whole suite: ``bash scripts/test.sh``). Everything else is the quick tier, the inner
    loop: ``bash scripts/test.sh --quick`` (``pytest -m "not slow"``), a few minutes on 2 cores.
The guard
    The quick tier stays quick only if nothing slow sneaks into it unmarked: a test file whose unmarked
    tests (their set-up, call and tear-down, module fixtures included) take longer than
    ``QUICK_FILE_BUDGET_S`` fails the run, naming the file and its time. The budget is for an idle
    machine: it stretches by the load average over the cores seen while the file ran (two workers,
    kernels and pip on 2 cores make a file slower without it doing more).
The summary
    Both tiers end with the 20 slowest files (pytest's own ``--durations=20`` lists the slowest tests).
"""
import os
from collections import defaultdict

import pytest

pytest_plugins = ["pytester"]  # tests/test_suite_tiers.py runs small suites of its own
QUICK_FILE_BUDGET_S = float(os.environ.get("AZCOURSE_QUICK_FILE_BUDGET", 30.0))  # the environment: for the guard's own test
SLOWEST_FILES = 20


class SuiteClock:
    """A plugin of the reporting process: per-file seconds of the tests that ran, marked (slow) and
    unmarked apart, and the load seen while each file ran."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.unmarked = defaultdict(float)
        self.load = defaultdict(list)
        self.cores = os.cpu_count() or 1

    def budget(self, path: str) -> float:
        """``QUICK_FILE_BUDGET_S`` stretched by the mean load over the cores while ``path`` ran (never shrunk)."""
        loads = self.load[path]
        busy = sum(loads) / len(loads) / self.cores if loads else 1.0
        return QUICK_FILE_BUDGET_S * max(1.0, busy)

    def over_budget(self) -> list[tuple[str, float, float]]:
        """``[(file, seconds, budget)]`` of the files whose unmarked tests took longer than their budget."""
        return [(path, s, self.budget(path)) for path, s in sorted(self.unmarked.items()) if s > self.budget(path)]

    def pytest_runtest_logreport(self, report):
        path = report.nodeid.split("::")[0]
        self.seconds[path] += report.duration
        if "slow" not in report.keywords:
            self.unmarked[path] += report.duration
            self.load[path].append(os.getloadavg()[0])

    def pytest_sessionfinish(self, session, exitstatus):
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and self.over_budget():
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        if self.seconds:
            terminalreporter.section(f"slowest {SLOWEST_FILES} files (set-up, call and tear-down, summed)")
            for path, seconds in sorted(self.seconds.items(), key=lambda item: -item[1])[:SLOWEST_FILES]:
                quick = self.unmarked.get(path, 0.0)
                terminalreporter.write_line(f"{seconds:8.1f} s  {path}" + (f"  (unmarked: {quick:.1f} s)" if quick else ""))
        for path, seconds, budget in self.over_budget():
            terminalreporter.write_line(
                f"QUICK TIER OVER BUDGET: {path}: its tests without @pytest.mark.slow took {seconds:.0f} s (budget "
                f"{budget:.0f} s: {QUICK_FILE_BUDGET_S:.0f} s on an idle machine, stretched by the load). Mark its slow "
                f"tests (`@pytest.mark.slow`, or `pytestmark = pytest.mark.slow` for the whole file) or make them faster.",
                red=True)


def pytest_configure(config):
    if not hasattr(config, "workerinput") and not config.option.collectonly:  # the reporting process only
        config.pluginmanager.register(SuiteClock(), "azcourse-suite-clock")
