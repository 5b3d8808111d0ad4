"""Part 3's game played in a real browser: JupyterLab in headless Chromium (Debian's ``chromium``,
driven by Playwright from PyPI), as a student plays it.

The completed part-3 notebook (the solution, with ``PLAY = True`` in its unlocked switch cell) is
opened in JupyterLab and run; the test then types into Jupyter's input box a bad code, ``help``, a
legal code read from that help, and ``quit``, and checks the refusal, the redrawn board and a clean
end (the final board drawn, no error).
"""
import os
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest

from autograder.grading_config import REPO_ROOT
from jupyter_lab import running_lab

CHROMIUM = "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (requirements.txt)")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed "
                                                                    "(.ci/run installs it: apt-get install chromium)")]
TOKEN = "azcourse-browser-test"
CODE = re.compile(r"\b[C1-5][BYRDW][1-5F]\b")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving a folder with the completed part-3 notebook, its switch set to play."""
    folder = tmp_path_factory.mktemp("lab")
    nb = nbformat.read(REPO_ROOT / "solutions" / "azul3_play" / "azul3_play.ipynb", as_version=4)
    switch = next(c for c in nb.cells if "PLAY = False" in c.source)
    switch.source = switch.source.replace("PLAY = False", "PLAY = True")
    nbformat.write(nb, folder / "azul3_play.ipynb")
    env = {**os.environ, "NBGRADER_EXECUTION": "autograde",  # the long cells run their small budget
           "PYTHONPATH": str(REPO_ROOT), "JAX_PLATFORMS": "cpu", "HOME": str(folder)}
    with running_lab(folder, env, folder / "lab.log", TOKEN, f"--ServerApp.root_dir={folder}",
                     "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True") as url:
        yield url
    shutil.rmtree(folder / ".local", ignore_errors=True)


def _type(page, text: str) -> None:
    """Answer the input box Jupyter shows for ``input()`` (a new box for every question: wait until
    the answered one is gone, so the next answer cannot land in it)."""
    box = page.locator(".jp-Stdin-input").last
    box.wait_for(state="visible", timeout=300_000)
    handle = box.element_handle()
    handle.fill(text)
    handle.press("Enter")
    page.wait_for_function("(box) => !box.isConnected", arg=handle, timeout=60_000)


def _wait_for(page, needle: str, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = "\n".join(page.locator(".jp-OutputArea-output").all_inner_texts())
        if needle in text:
            return text
        time.sleep(0.5)
    raise AssertionError(f"{needle!r} never appeared in the notebook's outputs")


def test_a_game_in_jupyterlab_refuses_a_bad_code_plays_a_legal_one_and_quits(lab):
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{lab}/lab/tree/azul3_play.ipynb?token={TOKEN}")
        page.locator(".jp-Notebook").first.wait_for(timeout=120_000)
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget "
                               "&& window.jupyterapp.shell.currentWidget.sessionContext "
                               "&& window.jupyterapp.shell.currentWidget.sessionContext.session", timeout=120_000)
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")

        _type(page, "9Z9")
        text = _wait_for(page, "Refused: Unknown source '9'")
        boards_before = text.count("first-player marker")

        _type(page, "help")
        text = _wait_for(page, "Your legal moves:")
        legal = CODE.findall(text.split("Your legal moves:")[-1].split("A move code is")[0])
        assert legal, text[-2000:]
        _type(page, legal[0])
        text = _wait_for(page, f"You play {legal[0]}")
        assert text.count("first-player marker") > boards_before, "the board is drawn again after the move"
        assert "Check:" not in text, "the reference decode_move and legal_takes agree with the engine"

        _type(page, "quit")
        _wait_for(page, "You left the game.")
        page.locator(".jp-OutputArea-output img").last.wait_for(timeout=60_000)  # the final board, drawn
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
        assert not tracebacks, tracebacks
        browser.close()
