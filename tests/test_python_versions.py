"""The pins install, and the notebooks run, on every Python the pack supports (3.11, 3.12, 3.13).

For each of those versions found on this machine (``python3.X`` on PATH, or a pyenv installation),
other than the one running this suite (the whole suite covers it), the test creates a fresh venv,
installs ``requirements.txt`` and the project into it as ``scripts/setup.sh`` does, and runs every
solution notebook top to bottom in grading mode with nbclient in that venv. Versions not on the
machine are skipped with the reason.
"""
import glob
import os
import shutil
import subprocess
import sys

import pytest

from autograder import build
from autograder.grading_config import REPO_ROOT

SUPPORTED = ("3.11", "3.12", "3.13")
RUN_NOTEBOOKS = """
import sys, nbformat
from nbclient import NotebookClient
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": %r}}).execute()
    errors = [o.ename + ": " + o.evalue for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, (path, errors)
    print("ran", path, "on", sys.version.split()[0])
""" % str(REPO_ROOT)


def interpreter(version: str) -> str | None:
    """A python of `version` on this machine, or None."""
    found = shutil.which(f"python{version}")
    candidates = ([found] if found else []) + sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python")))
    for path in candidates:
        done = subprocess.run([path, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip() == version:
            return path
    return None


@pytest.mark.slow
@pytest.mark.parametrize("version", SUPPORTED)
def test_pins_install_and_notebooks_run(version, tmp_path):
    if "%d.%d" % sys.version_info[:2] == version:
        pytest.skip(f"Python {version} runs this whole suite")
    python = interpreter(version)
    if python is None:
        pytest.skip(f"no Python {version} on this machine (python{version} on PATH or ~/.pyenv/versions/{version}.*)")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + ["-r", str(REPO_ROOT / "requirements.txt")], check=True, timeout=1500)
    subprocess.run(pip + ["--no-deps", "-e", str(REPO_ROOT)], check=True, timeout=600)
    notebooks = [str(REPO_ROOT / "solutions" / assignment / f"{name}.ipynb")
                 for assignment, names in build.ASSIGNMENTS.items() for name in names]
    env = {**os.environ, "NBGRADER_EXECUTION": "autograde", "MPLBACKEND": "Agg", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": ""}
    done = subprocess.run([str(venv / "bin" / "python"), "-c", RUN_NOTEBOOKS, *notebooks], env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count(f"on {version}") == len(notebooks), done.stdout
