"""Issue 11, items 3 and 7.

Item 3: the output cap counts everything a kernel sends (``autograder.kernel.CappedClient``):
display updates, comm/widget state, streams, huge results, clear_output loops. These tests run real
kernels through ``run_cells`` (unisolated: the cap lives in the grader, not in the sandbox), one
kernel per notebook, each notebook holding several scenarios.

Item 7: every field derived from a student is neutralised in the grades CSV and the terminal table
(``autograder.pipeline.neutralise``).
"""
import csv
import json
import re
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from courses import built_course

from autograder import isolation, kernel, pipeline, probes

CELL_CAP = kernel.CappedClient.max_cell_output.default_value
NOTEBOOK_CAP = kernel.CappedClient.max_notebook_output.default_value
NOTE = re.compile(r"\[output truncated by the grader: (\d+) bytes dropped\]")


# ----------------------------------------------------------------------------- item 3: helpers

class RecordingClient(kernel.CappedClient):
    """The real client, remembered so a test can look at its widget state afterwards."""
    made: list = []

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        RecordingClient.made.append(self)


def run_notebook(sources: list[str], tmp: Path, monkeypatch, cell_timeout: int = 120):
    """Run `sources` as code cells through kernel.run_cells (unisolated, as sandbox.py's `slot is
    None` branch does); returns (notebook, outcomes, flags, clients, seconds)."""
    lib, scratch = tmp / "lib", tmp / "scratch"
    probes.build_probe_library(lib, [])
    scratch.mkdir()
    (scratch / ".probe").mkdir()
    env = {**isolation.sandbox_env(), "HOME": str(scratch), "PYTHONPATH": str(lib),
           "MPLCONFIGDIR": str(scratch / ".config" / "matplotlib"),
           "NUMBA_CACHE_DIR": str(scratch / ".cache" / "numba")}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    outcomes, flags = {}, []
    RecordingClient.made = []
    monkeypatch.setattr(kernel, "CappedClient", RecordingClient)
    started = time.monotonic()
    kernel.run_cells(nb, outcomes, None, env, scratch, kernel.Budget(cell=cell_timeout, notebook=900), flags,
                     lambda error: f"{error.get('ename')}: {error.get('evalue')}")
    return nb, outcomes, flags, list(RecordingClient.made), time.monotonic() - started


def written(nb) -> int:
    return len(nbformat.writes(nb).encode())


def cell_bytes(cell) -> int:
    """What a cell's outputs take in a notebook file (nbformat's own writer)."""
    return written(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", outputs=cell.outputs)]))


def notes(cell) -> list[int]:
    return [int(m.group(1)) for o in cell.outputs if o.output_type == "stream" for m in NOTE.finditer(o.text)]


def text_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


SLACK = 20_000  # a cell's note, its source, the JSON around its outputs


# ----------------------------------------------------------------------------- item 3: the measure

def _nested(depth):
    node = []
    for _ in range(depth):
        node = [node, {"k": 0}]
    return node


SAMPLES = [
    nbformat.v4.new_output("stream", name="stdout", text="hello\n"),
    nbformat.v4.new_output("stream", name="stdout", text="\n" * 5000),
    nbformat.v4.new_output("stream", name="stderr", text="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029x" * 500),
    nbformat.v4.new_output("stream", name="stdout", text="Zoë 李雷 😀 \x00\x1b[31m\t" * 300),
    nbformat.v4.new_output("display_data", data={"text/plain": "a\nb\n" * 999, "image/png": "iVBOR" * 999,
                                                 "application/json": {"x": [1, 2.5, None, True, "s\n"] * 99}},
                           metadata={"deep": _nested(200), "isolated": True}),
    nbformat.v4.new_output("execute_result", data={"text/html": "<b>\n</b>" * 999}, execution_count=7),
    nbformat.v4.new_output("error", ename="E", evalue="v\n" * 50, traceback=["line\n" * 30] * 40),
]


@pytest.mark.parametrize("output", SAMPLES, ids=lambda o: o.output_type)
def test_stored_size_bounds_what_nbformat_writes(output):
    empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", outputs=[])])
    one = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", outputs=[output])])
    two = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", outputs=[output, output])])
    actual = written(one) - written(empty)
    measured = kernel.stored_size(output)
    assert actual <= measured <= 2 * actual + 200, (actual, measured)  # an upper bound, and not a silly one
    assert written(two) - written(one) <= measured
    widgets = {"w": {"text": "x\n" * 300, "deep": _nested(50)}}
    assert written(nbformat.v4.new_notebook(metadata={"widgets": {"m": {"state": {"id": {"state": widgets}}}}})) \
        - written(nbformat.v4.new_notebook()) <= kernel.stored_size(widgets, 6) + 200


def test_stored_size_of_unmeasurable_things_is_infinite():
    assert kernel.stored_size(_nested(5000)) > 10 ** 15   # too deep to walk
    assert kernel.stored_size({"x": b"bytes"}) > 10 ** 15  # not JSON


# ----------------------------------------------------------------------------- item 3: the floods

HONEST_CLEAR_LOOP = '''
from IPython.display import clear_output
for epoch in range(400):                     # 400 x 10 kB = 4 MB sent, 10 kB shown at a time
    clear_output(wait=True)
    print(f"epoch {epoch}: loss {1 / (epoch + 1):.4f} " + "#" * 10_000)
print("done")
'''
HONEST_TQDM = '''
import sys
from tqdm import tqdm
for _ in tqdm(range(3000), file=sys.stderr, mininterval=0):
    pass
from tqdm.notebook import tqdm as notebook_tqdm   # an ipywidgets progress bar: comm messages
for _ in notebook_tqdm(range(300), mininterval=0):
    pass
print("trained")
'''
HONEST_DISPLAY_UPDATE = '''
from IPython.display import display
status = display("starting", display_id=True)
for step in range(200):
    status.update(f"step {step}")
'''
DISPLAY_UPDATE_FLOOD = '''
from IPython.display import display
handle = display("small", display_id=True)
sent = 0
for i in range(1, 42):                        # growing updates: 51 MB in total, the last ones 2.4 MB
    handle.update("u" * (i * 60_000))
    sent += i * 60_000
assert sent >= 50_000_000
'''
SHARED_ID_FLOOD = '''
from IPython.display import display, update_display
for _ in range(200):                          # 200 outputs share one display id ...
    display("-", display_id="shared")
update_display("s" * 1_000_000, display_id="shared")   # ... one 1 MB update would write 200 MB
'''
FAR_DISPLAY = '''
from IPython.display import display
far = display("an earlier cell's output", display_id=True)
'''
FAR_UPDATE = '''
for size in (1_000_000, 1_500_000, 3_000_000, 10_000_000):   # an earlier cell's output, past the cap
    far.update("f" * size)
print("updated")
'''
WIDGET_FLOOD = '''
import ipywidgets as widgets
texts = [widgets.Text(value="w" * 100_000) for _ in range(60)]      # 6 MB of widget state
grow = widgets.Text()
for i in range(1, 41):
    grow.value = "g" * (i * 50_000)                                  # 41 MB of state updates
from comm import create_comm
raw = create_comm(target_name="jupyter.widget",
                  data={"state": {"_model_name": "Raw", "_model_module": "x", "blob": "r" * 1_000_000}})
for i in range(20):                                                  # raw comm_msgs, with binary buffers
    raw.send(data={"method": "update", "state": {f"k{i}": "c" * 500_000}, "buffer_paths": [[f"b{i}"]]},
             buffers=[b"\\0" * 500_000])
print("widgets made")
'''
STREAM_FLOOD = '''
import sys
for i in range(3000):                         # 30 MB to stdout, 3 MB to stderr
    print("z" * 10_000)
    if i % 10 == 0:
        print("e" * 10_000, file=sys.stderr)
'''
NEWLINE_FLOOD = '''
print("\\n" * 3_000_000)                       # 3 MB sent, ~36 MB once nbformat splits it in lines
'''
HUGE_RESULT = '''
class Huge:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {mime: "h" * 1_000_000 for mime in ("text/plain", "text/html", "text/markdown", "text/latex",
                                                   "image/svg+xml", "application/javascript")}
Huge()
'''
DEEP_METADATA = '''
from IPython.display import display
nested = []
for _ in range(250):
    nested = [nested, 0]                      # 1.5 kB compact, ~60 kB once written with indentation
for _ in range(60):
    display({"text/plain": "deep"}, raw=True, metadata={"k": nested})
'''
FLOOD_THEN_ERROR = '''
print("q" * 3_000_000)
raise ValueError("failed after a flood")
'''
AFTER = 'print("still here")'


@pytest.fixture(scope="module")
def flooded(tmp_path_factory):
    monkeypatch = pytest.MonkeyPatch()
    try:
        sources = [HONEST_CLEAR_LOOP, HONEST_TQDM, HONEST_DISPLAY_UPDATE, DISPLAY_UPDATE_FLOOD, SHARED_ID_FLOOD,
                   FAR_DISPLAY, FAR_UPDATE, WIDGET_FLOOD, STREAM_FLOOD, NEWLINE_FLOOD, HUGE_RESULT, DEEP_METADATA,
                   FLOOD_THEN_ERROR, AFTER]
        yield run_notebook(sources, tmp_path_factory.mktemp("flood"), monkeypatch)
    finally:
        monkeypatch.undo()


def cell(flooded, source):
    nb = flooded[0]
    return next(c for c in nb.cells if c.source == source)


@pytest.mark.slow
def test_the_flooded_notebook_ran_in_one_kernel_and_stays_small(flooded):
    nb, outcomes, flags, clients, seconds = flooded
    assert flags == [] and len(clients) == 1, flags
    errors = {nb.cells[i].source: o.error for i, o in outcomes.items() if o.error}
    assert errors == {FLOOD_THEN_ERROR: "ValueError: failed after a flood"}, errors
    assert all(o.ran for o in outcomes.values())
    assert written(nb) <= NOTEBOOK_CAP + 100_000
    for c in nb.cells:
        assert cell_bytes(c) <= CELL_CAP + SLACK, (c.source[:60], cell_bytes(c))
    assert text_of(cell(flooded, AFTER)) == "still here\n"
    print(f"flooded notebook: {seconds:.1f} s, {written(nb)} bytes")


@pytest.mark.slow
@pytest.mark.parametrize("source", [HONEST_CLEAR_LOOP, HONEST_TQDM, HONEST_DISPLAY_UPDATE, FAR_UPDATE, AFTER])
def test_honest_cells_keep_their_output_and_have_no_note(flooded, source):
    assert notes(cell(flooded, source)) == []


@pytest.mark.slow
def test_a_clear_output_progress_loop_keeps_its_final_output(flooded):
    c = cell(flooded, HONEST_CLEAR_LOOP)
    assert [o.output_type for o in c.outputs] == ["stream"]
    assert c.outputs[0].text.startswith("epoch 399: loss 0.0025 ") and c.outputs[0].text.endswith("done\n")


@pytest.mark.slow
def test_progress_bars_and_status_displays_work(flooded):
    bars = cell(flooded, HONEST_TQDM)
    assert "3000/3000" in "".join(o.text for o in bars.outputs if o.get("name") == "stderr")
    assert "trained\n" in text_of(bars)
    status = cell(flooded, HONEST_DISPLAY_UPDATE)
    assert [o.data["text/plain"] for o in status.outputs] == ["'step 199'"]


@pytest.mark.slow
def test_display_updates_cannot_grow_an_output_past_the_cap(flooded):
    c = cell(flooded, DISPLAY_UPDATE_FLOOD)
    shown = [o for o in c.outputs if o.output_type == "display_data"]
    assert len(shown) == 1 and 0 < len(shown[0].data["text/plain"]) <= CELL_CAP  # the largest that fit
    assert len(notes(c)) == 1 and notes(c)[0] > 10_000_000   # one note, counting what was refused


@pytest.mark.slow
def test_one_update_of_a_shared_display_id_counts_once_per_output(flooded):
    c = cell(flooded, SHARED_ID_FLOOD)
    assert cell_bytes(c) <= CELL_CAP + SLACK
    assert len(notes(c)) == 1
    big = [o for o in c.outputs if o.output_type == "display_data" and len(o.data["text/plain"]) > 1000]
    assert 0 < len(big) < 3   # the update reached only the outputs that had room for it


@pytest.mark.slow
def test_updates_of_an_earlier_cell_are_capped_and_noted_there(flooded):
    far, later = cell(flooded, FAR_DISPLAY), cell(flooded, FAR_UPDATE)
    assert cell_bytes(far) <= CELL_CAP + SLACK
    assert text_of(later) == "updated\n"
    shown = [o for o in far.outputs if o.output_type == "display_data"]
    assert len(shown) == 1 and len(shown[0].data["text/plain"]) == 1_500_000 + 2   # the last that fit
    assert notes(far)[0] >= 13_000_000 and notes(later) == []   # the note is where the bytes would have gone


@pytest.mark.slow
def test_widget_state_is_capped(flooded):
    c = cell(flooded, WIDGET_FLOOD)
    assert len(notes(c)) == 1 and "widgets made\n" in text_of(c)
    client = flooded[3][0]
    assert client.widget_state, "no widget state kept at all"
    client.set_widgets_metadata()  # what nbclient's execute() would write into the notebook
    widgets = nbformat.v4.new_notebook(metadata={"widgets": client.nb.metadata.widgets})
    assert 100_000 < written(widgets) <= CELL_CAP + SLACK
    assert client._widget_total <= CELL_CAP


@pytest.mark.slow
@pytest.mark.parametrize("source", [STREAM_FLOOD, NEWLINE_FLOOD, HUGE_RESULT, DEEP_METADATA])
def test_floods_are_truncated_with_one_note(flooded, source):
    c = cell(flooded, source)
    assert cell_bytes(c) <= CELL_CAP + SLACK
    assert len(notes(c)) == 1


@pytest.mark.slow
def test_a_huge_result_in_many_mime_types_is_dropped_whole(flooded):
    c = cell(flooded, HUGE_RESULT)
    assert [o.output_type for o in c.outputs] == ["stream"] and notes(c)[0] > 6_000_000


@pytest.mark.slow
def test_an_error_after_a_flood_is_still_seen(flooded):
    c = cell(flooded, FLOOD_THEN_ERROR)
    errors = [o for o in c.outputs if o.output_type == "error"]
    assert [(e.ename, e.evalue) for e in errors] == [("ValueError", "failed after a flood")]
    assert len(notes(c)) == 1


def test_the_notebook_cap_holds_across_cells(tmp_path, monkeypatch):
    fill = 'print("n" * 1_900_000)'
    sources = [fill] * 12 + ["raise KeyError('late')", AFTER]
    nb, outcomes, flags, clients, seconds = run_notebook(sources, tmp_path, monkeypatch)
    assert written(nb) <= NOTEBOOK_CAP + 100_000
    print([notes(c) for c in nb.cells])
    assert all(notes(c) == [] for c in nb.cells[:10])      # ten cells of 1.9 MB fit in 20 MB
    assert all(len(notes(c)) == 1 for c in nb.cells[10:12])  # the next ones found the notebook full
    assert outcomes[12].error == "KeyError: 'late'"         # an error still shows, even then
    print(f"notebook cap: {seconds:.1f} s")


def test_a_message_over_the_transport_limit_costs_the_kernel_not_the_grader(tmp_path, monkeypatch):
    huge = kernel.CappedClient.max_message_bytes.default_value * 2
    sources = ["x = 1", f"print('m' * {huge})", "print('after', x); 1 / 0", AFTER]
    nb, outcomes, flags, clients, seconds = run_notebook(sources, tmp_path, monkeypatch)
    assert outcomes[1].error and "kernel died" in outcomes[1].error
    assert any("kernel died in cell 1" in f for f in flags)
    assert len(clients) == 2                               # a fresh kernel for the cells after it
    assert text_of(nb.cells[2]) == "after 1\n"             # ... with the earlier cells replayed
    assert outcomes[2].error == "ZeroDivisionError: division by zero"
    assert text_of(nb.cells[3]) == "still here\n"
    assert seconds < 60


# ----------------------------------------------------------------------------- item 7: the neutraliser

FORMULA = re.compile(r"^\s*[=+\-@\uff1d\uff0b\uff0d\uff20]")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\ud800-\udfff]")


@pytest.mark.parametrize("hostile, expected", [
    ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
    ("+1+1", "'+1+1"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
    ("  =1+1", "'  =1+1"),                       # after leading whitespace
    ("\t=cmd|' /C calc'!A0", "' =cmd|' /C calc'!A0"),  # tab and CR variants: a space, then the prefix
    ("\r=1+1", "' =1+1"),
    ("\r\n@x", "' @x"),
    ("\u3000=1", "'\u3000=1"),                    # an ideographic space before it
    ("\uff1d1+1", "'\uff1d1+1"),                  # fullwidth = (NFKC folds it to =)
    ("\ufe66cmd", "'\ufe66cmd"),                  # small =
    ("\u202e=1+1", "'=1+1"),                      # a bidi override hiding the formula start
    ("\x00=1+1", "'=1+1"),
    ("\x1b[31m=1+1", "'=1+1"),                    # an escape in front of it
    ("-1", "'-1"),                                # text that looks like a number is text
    ("score -1 on test", "score -1 on test"),     # mid-string: unchanged
    ("x = 1 + 2 - 3 @ 4", "x = 1 + 2 - 3 @ 4"),
    ("a\x1b[31mred\x1b[0m text", "ared text"),    # ANSI CSI colours
    ("\x1b[2J\x1b[Hcleared", "cleared"),          # screen clear, cursor home
    ("x\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07y", "xclicky"),   # OSC 8 hyperlink, BEL-terminated
    ("x\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\y", "xclicky"),  # ... ST-terminated
    ("t\x1b]0;owned title\x07ok", "tok"),         # OSC 0: the window title
    ("a\x9b2Jb", "ab"),                           # C1 CSI
    ("a\x9d8;;http://e\x9cb", "ab"),              # C1 OSC ... C1 ST
    ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),           # DCS (sixel)
    ("bell\x07 nul\x00 del\x7f c1\x85!", "bell nul del c1 !"),  # BEL, NUL, DEL removed; NEL is a line break
    ("lone\x1b esc", "lonesc"),                   # ESC SP e is a whole (ECMA-35) sequence, as a terminal reads it
    ("trailing\x1b", "trailing"),
    ("\x1b\x00[31m=x", "[31m=x"),                 # no escape can re-form from the pieces
    ("abc\u202eexe.txt", "abcexe.txt"),           # right-to-left override
    ("\u2066isolate\u2069 \u200emark\u200f", "isolate mark"),
    ("zero\u200bwidth\ufeff", "zerowidth"),
    ("tag\U000e0041\U000e0042s", "tags"),         # Unicode tag characters (invisible text)
    ("lone \ud800 surrogate", "lone  surrogate"),
    ("line1\nline2\r\nline3\tend", "line1 line2 line3 end"),
    ("Zoë, 李雷, Ådne, نور\u200cا", "Zoë, 李雷, Ådne, نور\u200cا"),   # real names (ZWNJ kept)
    ("", ""),
    ("graded", "graded"),
])
def test_neutralise(hostile, expected):
    assert pipeline.neutralise(hostile) == expected
    assert pipeline.neutralise(expected) == expected  # idempotent
    assert not FORMULA.match(pipeline.neutralise(hostile)) and not CONTROL.search(pipeline.neutralise(hostile))


@pytest.mark.parametrize("number", [0, -1, 2.5, -0.5, None, True])
def test_numbers_stay_numbers(number):
    assert pipeline.neutralise(number) is number


def test_neutralise_leaves_no_escape_whatever_the_input():
    import random
    alphabet = "=+-@ \t\r\n\x00\x07\x1b\x9b\x9c\x9d[];\\P8Jm0123abc\u202e\u2066\uff1d\x85\u2028"
    chance = random.Random(11)
    for _ in range(5000):
        text = "".join(chance.choice(alphabet) for _ in range(chance.randrange(12)))
        clean = pipeline.neutralise(text)
        assert not CONTROL.search(clean) and "\u2028" not in clean, repr(text)
        assert not FORMULA.match(clean), repr(text)
        assert pipeline.neutralise(clean) == clean, repr(text)


# ----------------------------------------------------------------------------- item 7: export and table

HOSTILE_ID = "@SUM(1+1)\x1b[31m\u202e"
HOSTILE = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "\t=1+1", "\r@x", "-2+3",
           "\x1b]8;;http://evil.example/\x07click me\x1b]8;;\x07", "\x1b[2J\x1b[31mred\x1b[0m", "bell\x07\x00nul",
           "c1\x9b31m", "abc\u202etxt.exe", "multi\nline\r\nreason"]


@pytest.fixture(scope="module")
def hostile_course(tmp_path_factory):
    from nbgrader.api import Gradebook

    from autograder.grading_config import COURSE_ID

    course = built_course(tmp_path_factory, tmp_path_factory.mktemp("export") / "ws")
    ghost = "\x1b]0;title\x07-ghost"                     # no submission, problems only
    pipeline.add_students(course, [{"id": HOSTILE_ID}, {"id": ghost}])
    assignment, notebook = "ttt1_mcts", "ttt1_mcts"
    with Gradebook(course.db_url, COURSE_ID) as gb:
        gb.add_submission(assignment, HOSTILE_ID)  # a submission entry: the row is "graded"
        grade_ids = sorted(g.name for g in gb.find_submission_notebook(notebook, assignment, HOSTILE_ID).grades)
    folder = course.reports / assignment / HOSTILE_ID
    folder.mkdir(parents=True)
    (folder / f"{notebook}.collect.json").write_text(json.dumps({"problems": HOSTILE, "flags": HOSTILE}))
    (folder / f"{notebook}.json").write_text(json.dumps({
        "isolation": "=1+1\x1b[0m", "flags": HOSTILE,
        "cells": {g: {"passed": False, "reason": f"{HOSTILE[i % len(HOSTILE)]}: boom\x07\nsecond line"}
                  for i, g in enumerate(grade_ids)}}))
    ghost_folder = course.reports / assignment / ghost
    ghost_folder.mkdir(parents=True)
    (ghost_folder / f"{notebook}.collect.json").write_text(json.dumps({"problems": HOSTILE}))
    (ghost_folder / "autograde-error.json").write_text(json.dumps({"error": "=IMPORTXML(\x1b[0m)"}))
    return course, grade_ids


@pytest.mark.slow
def test_export_neutralises_every_student_field(hostile_course, tmp_path):
    course, grade_ids = hostile_course
    output = pipeline.export(course, tmp_path / "grades.csv")
    raw = output.read_bytes().decode("utf-8")
    assert not CONTROL.search(raw.replace("\r\n", "")), "a control character reached the CSV"
    rows = list(csv.reader(raw.splitlines()))
    assert len(rows) == 3  # the header, the hostile student, the ghost (no submission, problems only)
    for row in rows:
        for field in row:
            assert not FORMULA.match(field), field
    header, *body = rows
    graded = dict(zip(header, next(r for r in body if "SUM" in r[0])))
    assert graded["student"] == "'@SUM(1+1)" and graded["status"] == "graded"
    assert graded["isolation"] == "'=1+1"
    assert "'=HYPERLINK" not in graded["problems"] or graded["problems"].startswith("'=HYPERLINK")
    assert graded["problems"].startswith('\'=HYPERLINK("http://x","y"); +cmd')  # only the start is a cell start
    assert "click me" in graded["flags"] and "http://evil" not in graded["flags"]
    assert "multi line reason" in graded["flags"]
    reasons = [graded[f"{g} (reason)"] for g in grade_ids]
    assert reasons[0] == '\'=HYPERLINK("http://x","y"): boom / second line'  # every line, BEL gone
    assert all(r.endswith(": boom / second line") for r in reasons)
    assert all(graded[g] == "needs manual grade" for g in grade_ids)  # not autograded yet: untouched text
    ghost = dict(zip(header, next(r for r in body if "ghost" in r[0])))
    assert ghost["student"] == "'-ghost" and ghost["status"] == "autograde failed"
    assert ghost["problems"].endswith("autograde failed: =IMPORTXML()")
    assert ghost["max_score"] and float(ghost["max_score"]) > 0  # numbers stay numbers


@pytest.mark.slow
def test_table_neutralises_every_student_field(hostile_course):
    course, _ = hostile_course
    text = pipeline.table(pipeline.grade_rows(course))
    assert not CONTROL.search(text.replace("\n", ""))
    lines = text.splitlines()
    assert any(line.startswith("'@SUM(1+1)") for line in lines)
    assert any(line.startswith("'-ghost") for line in lines)


@pytest.mark.slow
def test_numeric_scores_stay_numeric_in_the_csv(hostile_course, tmp_path):
    course, grade_ids = hostile_course
    from nbgrader.api import Gradebook

    from autograder.grading_config import COURSE_ID
    with Gradebook(course.db_url, COURSE_ID) as gb:
        grade = gb.find_grade(grade_ids[0], "ttt1_mcts", "ttt1_mcts", HOSTILE_ID)
        grade.manual_score = -1.0  # a (strange) negative score from the gradebook: still a number
        gb.db.commit()
    try:
        rows = list(csv.DictReader(pipeline.export(course, tmp_path / "grades.csv").open(encoding="utf-8")))
        graded = next(r for r in rows if "SUM" in r["student"])
        assert float(graded["score"]) == -1.0 and graded["score"].startswith("-")
    finally:
        with Gradebook(course.db_url, COURSE_ID) as gb:
            gb.find_grade(grade_ids[0], "ttt1_mcts", "ttt1_mcts", HOSTILE_ID).manual_score = None
            gb.db.commit()
