"""azcourse.progress: bars leave a readable final line in executed notebooks, their HTML, and terminals.

A notebook executed by nbclient (as by the grader) keeps what the kernel last sent for each output:
tqdm.auto's widget left its first frame ("0%") or a widget view that shows "Error displaying
widget: model not found" once its state is gone. ``progress`` replaces the widget by a text line
through its display id when the bar closes; these tests execute real kernels and look at what is
saved.
"""
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from tqdm.std import tqdm as text_tqdm

from autograder.kernel import CappedClient
from autograder.reference import REPO_ROOT
from azcourse.progress import progress

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# tqdm's default line: "desc:  40%|████      | 4/10 [00:00<00:01,  5.12it/s]"
LINE = re.compile(r"^(?P<desc>[^:]+): +(?P<percent>\d+)%\|[^|]+\| (?P<n>\d+)/(?P<total>\d+) "
                  r"\[\d\d:\d\d<\d\d:\d\d, +[\d.]+(it/s|s/it)\]$")

CELLS = {
    "done": "from azcourse.progress import progress\n"
            "for i in progress(range(5), desc='done'):\n    pass",
    "broken": "for i in progress(range(10), desc='broken'):\n    if i == 3:\n        break",
    "raised": "for i in progress(range(10), desc='raised'):\n    if i == 4:\n        raise ValueError('stop')",
    "manual": "bar = progress(total=7, desc='manual')\nbar.update(7)\nbar.close()",
    "hidden": "for i in progress(range(3), desc='hidden', leave=False):\n    pass\nprint('next')",
    "disabled": "for i in progress(range(3), desc='disabled', disable=True):\n    pass",
}


def _execute(nb, client_class, **kw):
    """Run `nb` in a fresh python3 kernel that imports this checkout's azcourse."""
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", path)
        for key, value in kw.pop("env", {}).items():
            patch.setenv(key, value)
        client_class(nb, timeout=600, kernel_name="python3", allow_errors=True, **kw).execute()
    return nb


def _display_texts(cell) -> list[str]:
    """The cell's text-only displays (a bar's final line; not a figure, which has an image too)."""
    return [out.data["text/plain"] for out in cell.get("outputs", [])
            if out.output_type == "display_data" and set(out.data) == {"text/plain"}]


@pytest.fixture(scope="module", params=[NotebookClient, CappedClient], ids=["nbclient", "grader"])
def executed(request):
    """The cells above, executed by plain nbclient and by the grader's client."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS.values()])
    return dict(zip(CELLS, _execute(nb, request.param).cells)), nb


def _final_line(cell) -> dict:
    texts = _display_texts(cell)
    assert len(texts) == 1, cell.outputs
    match = LINE.match(texts[0])
    assert match, f"not a tqdm line: {texts[0]!r}"
    return match.groupdict()


def test_the_saved_notebook_holds_final_lines_and_no_widget_views(executed):
    cells, nb = executed
    assert WIDGET_VIEW not in nbformat.writes(nb)
    assert _final_line(cells["done"]) == {"desc": "done", "percent": "100", "n": "5", "total": "5"}
    assert _final_line(cells["broken"]) == {"desc": "broken", "percent": "30", "n": "3", "total": "10"}
    assert _final_line(cells["raised"]) == {"desc": "raised", "percent": "40", "n": "4", "total": "10"}
    assert [out.ename for out in cells["raised"].outputs if out.output_type == "error"] == ["ValueError"]
    assert _final_line(cells["manual"]) == {"desc": "manual", "percent": "100", "n": "7", "total": "7"}
    assert _display_texts(cells["hidden"]) == [""]  # leave=False: the finished bar leaves nothing
    assert [out.text for out in cells["hidden"].outputs if out.output_type == "stream"] == ["next\n"]
    assert cells["disabled"].outputs == []


def test_the_html_export_shows_the_final_lines(executed):
    cells, nb = executed
    html, _ = HTMLExporter().from_notebook_node(nb)
    assert "done: 100%|██████████| 5/5 [" in html
    assert "broken:  30%|███       | 3/10 [" in html
    assert f'<script type="{WIDGET_VIEW}">' not in html  # what a reader would see as "Error displaying widget"
    assert "0%|          |" not in html  # no first frame left behind


def test_outside_a_kernel_it_is_plain_tqdm_on_stderr(capsys):
    bar = progress(range(4), desc="steps")
    assert type(bar) is text_tqdm
    assert list(bar) == [0, 1, 2, 3]
    assert re.search(r"steps: 100%\|[^|]+\| 4/4 \[", capsys.readouterr().err)
    assert list(progress(range(2), desc="quiet", disable=True)) == [0, 1]
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_a_graded_notebook_saves_readable_progress_lines():
    """The ttt2 solution run by the grader's client with the autograde budget: each of its three bars
    (training iterations, deep-search rounds, matches) is saved as a finished text line."""
    path = REPO_ROOT / "solutions" / "ttt2_selfplay" / "ttt2_selfplay.ipynb"
    nb = _execute(nbformat.read(path, as_version=4), CappedClient,
                  resources={"metadata": {"path": str(path.parent)}}, env={"NBGRADER_EXECUTION": "autograde"})
    assert not [out for cell in nb.cells for out in cell.get("outputs", []) if out.output_type == "error"]
    assert WIDGET_VIEW not in nbformat.writes(nb)
    lines = [LINE.match(text) for cell in nb.cells if "progress(" in cell.source for text in _display_texts(cell)]
    assert [line and line["desc"] for line in lines] == ["AlphaZero iterations", "deep-search rounds", "matches"]
    assert all(line["n"] == line["total"] and line["percent"] == "100" for line in lines), lines


def test_a_batch_counts_running_done_and_time_left_in_a_log_and_on_a_terminal(capsys):
    """autograder.batch_progress: one plain line per finished item in a log; on a terminal, a tqdm bar on
    stderr with the same counts and the lines above it on stdout."""
    from autograder.batch_progress import BatchProgress, duration

    lines = []
    batch = BatchProgress(3, "autograde", log=lines.append)
    batch.started(), batch.started()
    batch.finished("graded a/ttt1_mcts in 1.0 s: 29/29 points")
    batch.started()
    batch.finished("graded b/ttt1_mcts in 1.0 s: 0/29 points")
    batch.finished("graded c/ttt1_mcts in 1.0 s: 3/29 points")
    assert re.fullmatch(r"\[1/3\] graded a/ttt1_mcts in 1.0 s: 29/29 points  \(1 running, 2 to go, about \d+ s left\)",
                        lines[0]), lines
    assert lines[1].startswith("[2/3] graded b/") and "1 running, 1 to go" in lines[1]
    assert lines[2] == "[3/3] graded c/ttt1_mcts in 1.0 s: 3/29 points"
    assert [duration(s) for s in (45, 185, 3725)] == ["45 s", "3 min 5 s", "1 h 02 min"]

    bar = BatchProgress(2, "autograde", bar=True)
    bar.started()
    bar.finished("graded a/ttt1_mcts in 1.0 s: 29/29 points")
    bar.close()
    out, err = capsys.readouterr()
    assert out == "[1/2] graded a/ttt1_mcts in 1.0 s: 29/29 points\n"
    assert re.search(r"autograde: 1/2 \|.*\| \[\d\d:\d\d so far, [\d:?]+ left\], 0 running, 1 done", err), err
