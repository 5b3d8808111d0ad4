"""The README's plain-nbgrader route, exactly as the README gives it, on a fresh copy of the repository.

The commands are read from the README's fenced block (so the two cannot drift) and run as one bash
script in a copy of what a clone holds (``release/`` and ``solutions/`` committed, no gradebook), with
``.venv`` linked to this environment as ``bash scripts/setup.sh`` leaves it, no PYTHONPATH and no
``nbgrader`` on PATH until the block activates ``.venv``. The try-out submission is the notebook as
released, so nothing in the output may read as a problem: no warning, no traceback. Then the
formgrader, started at that root, shows no banner about nbgrader's exchange and logs no error.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from autograder.grading_config import REPO_ROOT
from jupyter_lab import running_lab

pytestmark = pytest.mark.slow
TOKEN = "azcourse-readme-test"
# --force makes nbgrader say so; the README explains it. Nothing else may warn.
EXPECTED_WARNING = re.compile(r"\[Generate(Assignment|Solution)App \| WARNING\] Removing existing assignment: ")


def readme_block() -> str:
    """The fenced bash block after the README's "**Plain nbgrader**"."""
    text = (REPO_ROOT / "README.md").read_text()
    return re.search(r"\*\*Plain nbgrader\*\*.*?```bash\n(.*?)```", text, re.S).group(1)


def _clone(target: Path) -> None:
    """The files of this checkout that a clone would have (tracked, or new and not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO_ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for relative in filter(None, listed):
        if (REPO_ROOT / relative).is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / relative, target / relative)
    (target / ".venv").symlink_to(sys.prefix, target_is_directory=True)


def _env() -> dict:
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PATH": path, "JAX_PLATFORMS": "cpu"}


@pytest.fixture(scope="module")
def route(tmp_path_factory):
    root = tmp_path_factory.mktemp("clone")
    _clone(root)
    assert (root / "release" / "ttt1_mcts" / "ttt1_mcts.ipynb").exists() and not (root / "gradebook.db").exists()
    done = subprocess.run(["bash", "-e", "-c", readme_block()], cwd=root, env=_env(), capture_output=True,
                          text=True, timeout=1200)
    return root, done


def test_the_readme_gives_the_route_without_python_path_tricks():
    block = readme_block()
    assert block.startswith("source .venv/bin/activate")
    assert "PYTHONPATH" not in block and "autograder" not in block


def test_the_readme_commands_grade_a_fresh_clone(route):
    root, done = route
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert (root / "autograded" / "alice" / "ttt1_mcts" / "ttt1_mcts.ipynb").exists()
    assert (root / "feedback" / "alice" / "ttt1_mcts" / "ttt1_mcts.html").exists()
    rows = list(csv.DictReader((root / "grades.csv").open(encoding="utf-8")))
    assert [(r["student"], r["status"], float(r["code_score"])) for r in rows] == [("alice", "graded", 0.0)]
    assert rows[0]["isolation"].startswith("bubblewrap")
    assert rows[0]["test_get_reward (reason)"] == ("NotImplementedError: get_reward is not written yet "
                                                   "(it raised NotImplementedError on every test case)")


def test_an_untouched_release_notebook_grades_without_a_warning(route):
    """No false "Attribute 'checksum' ... has changed!" per test cell, no unrecognised configuration
    option, no SQLAlchemy warning, no traceback."""
    _, done = route
    lines = (done.stdout + done.stderr).splitlines()
    alarming = [line for line in lines if re.search(r"warn|error|traceback|not recognized", line, re.I)
                and not EXPECTED_WARNING.match(line)]
    assert alarming == [], "\n".join(alarming)


def test_the_formgrader_has_no_exchange_banner_and_logs_no_error(route, tmp_path):
    root, done = route
    assert done.returncode == 0
    home = tmp_path / "home"
    home.mkdir()
    log = tmp_path / "lab.log"
    with running_lab(root, {**_env(), "HOME": str(home)}, log, TOKEN) as url:
        page = urllib.request.urlopen(f"{url}/formgrader/manage_assignments?token={TOKEN}", timeout=60).read().decode()
    assert "Manage Assignments" in page
    assert 'id="warning-exchange"' not in page and 'id="warning-course-id"' not in page
    assert "Unwritable directory" not in log.read_text()
    assert (root / "exchange").is_dir()
