"""The suite's tiers (tests/conftest.py): the guard that keeps the quick tier quick, and the slowest files."""
import shutil
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")


@pytest.fixture
def suite(pytester, monkeypatch):
    """A small suite of its own with this conftest and a budget of 0.3 s a file (no plugins of the venv)."""
    shutil.copy(CONFTEST, pytester.path / "conftest.py")
    monkeypatch.setenv("AZCOURSE_QUICK_FILE_BUDGET", "0.3")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    return pytester


def test_an_unmarked_file_over_budget_fails_the_run_and_is_named(suite, monkeypatch):
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    suite.makepyfile(test_sleepy="import time\n\ndef test_a():\n    time.sleep(0.2)\n\ndef test_b():\n    time.sleep(0.2)\n",
                     test_quick="def test_c():\n    assert True\n")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*QUICK TIER OVER BUDGET: test_sleepy.py: its tests without @pytest.mark.slow took 0 s (budget 0 s*"])
    assert "OVER BUDGET: test_quick.py" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*slowest 20 files*", "*s  test_sleepy.py  (unmarked: 0.4 s)"])


def test_marked_slow_tests_do_not_count_and_load_stretches_the_budget(suite, monkeypatch):
    suite.makepyfile(test_sleepy="import time, pytest\n\n@pytest.mark.slow\ndef test_a():\n    time.sleep(0.4)\n",
                     test_loaded="import time\n\ndef test_b():\n    time.sleep(0.4)\n")
    cores = __import__("os").cpu_count()
    monkeypatch.setattr("os.getloadavg", lambda: (2.0 * cores, 0.0, 0.0))  # twice the cores busy: a 0.6 s budget
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "OVER BUDGET" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*s  test_sleepy.py"])
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "-m", "not slow")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*OVER BUDGET: test_loaded.py*"])
