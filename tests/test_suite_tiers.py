"""The suite's tiers (tests/conftest.py): the guard that keeps the quick tier quick, and the slowest files."""
import shutil
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")
BURN = "import time\n\ndef burn(seconds):\n    end = time.process_time() + seconds\n    while time.process_time() < end:\n        pass\n"


@pytest.fixture
def suite(pytester, monkeypatch):
    """A small suite of its own with this conftest and a budget of 0.3 CPU-s a file (no plugins of the venv)."""
    shutil.copy(CONFTEST, pytester.path / "conftest.py")
    monkeypatch.setenv("AZCOURSE_QUICK_FILE_BUDGET", "0.3")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(burner=BURN)
    return pytester


def test_an_unmarked_file_over_budget_fails_the_run_and_is_named(suite):
    suite.makepyfile(test_busy="from burner import burn\n\ndef test_a():\n    burn(0.2)\n\ndef test_b():\n    burn(0.2)\n",
                     test_quick="def test_c():\n    assert True\n")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*QUICK TIER OVER BUDGET: test_busy.py: its tests without @pytest.mark.slow spent 0 CPU-s (budget 0)*"])
    assert "OVER BUDGET: test_quick.py" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*slowest 20 files*", "*s  test_busy.py", "*nearest the budget*", "*0.4 CPU-s  test_busy.py"])


def test_a_module_fixture_and_a_child_process_count_for_their_file(suite):
    suite.makepyfile(
        test_fixture="import pytest\nfrom burner import burn\n\n@pytest.fixture(scope='module')\ndef built():\n    burn(0.4)\n\n"
                     "def test_a(built):\n    assert True\n",
        test_child="import subprocess, sys\n\ndef test_b():\n    subprocess.run([sys.executable, '-c', "
                   "'from burner import burn; burn(0.4)'], check=True, cwd=__import__('os').path.dirname(__file__))\n")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*OVER BUDGET: test_child.py*"])
    result.stdout.fnmatch_lines(["*OVER BUDGET: test_fixture.py*"])


def test_marked_slow_tests_and_waiting_do_not_count(suite):
    suite.makepyfile(test_slow="import pytest\nfrom burner import burn\n\n@pytest.mark.slow\ndef test_a():\n    burn(0.4)\n",
                     test_waits="import time\n\ndef test_b():\n    time.sleep(0.5)\n")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "OVER BUDGET" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*s  test_slow.py", "*s  test_waits.py"])


def test_a_helper_s_earlier_work_is_not_charged_to_the_test_that_reaps_it(suite):
    """A child's CPU reaches its parent when it is waited for: a helper that worked for a slow test and is
    reaped by a quick one (as the launcher's server is) charges the quick one no more than its own wall time."""
    suite.makepyfile(
        helper="proc = None\n",
        test_a_starts="import subprocess, sys, time, pytest\nimport helper\n\n@pytest.mark.slow\ndef test_a():\n"
                      "    helper.proc = subprocess.Popen([sys.executable, '-c', 'from burner import burn; burn(0.6)'],"
                      " cwd=__import__('os').path.dirname(__file__))\n    time.sleep(2.0)\n",
        test_b_reaps="import helper\n\ndef test_b():\n    assert helper.proc.wait() == 0\n")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "OVER BUDGET" not in result.stdout.str()
