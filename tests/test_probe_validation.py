"""Probe data is validated in one place before any judge sees it, and read within bounds.

Every judge of every assignment gets malformed data (empty, short, long, None, {}, wrong types,
and random damage anywhere in the reference's own output): each must give a reason, never credit
and never an exception. Probe files past the size, nesting or entry bounds are refused cheaply.
"""
import copy
import hashlib
import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import probes, testcells
from autograder.probe_schema import REF, Either, Int, ListOf, Malformed, Record, Str, validate

# every judge of every assignment's checks module (autograder/assignments/*/checks.py)
MODULES = probes.graded_assignments()
CHECKS = [(module, name) for module in MODULES for name in probes._checks(module).SCHEMAS]
# the judges whose reference output trains a network with JAX (about 1.3-6 s each to compute on an idle
# machine, most of the file's time): checked in the whole suite, not in the quick tier
JAX_TRAINED = {("hex4_onpolicy", "train_step"), ("hex4_onpolicy", "policy_loss"), ("tak6_alphazero", "alphazero_loss"),
               ("ttt2_selfplay", "train_step")}


@pytest.fixture(scope="module", ids=lambda c: f"{c[0]}.{c[1]}",
                params=[pytest.param(c, marks=pytest.mark.slow) if c in JAX_TRAINED else c for c in CHECKS])
def check(request):
    module, name = request.param
    return module, name, probes.reference_outputs(module, name)


def test_every_assignments_judges_are_checked():
    assert MODULES == ["azul3_play", "hex4_onpolicy", "othello5_planning", "tak6_alphazero", "ttt1_mcts", "ttt2_selfplay"]


def test_the_reference_output_is_accepted(check):
    module, name, expected = check
    assert probes.judge(module, name, copy.deepcopy(expected)) is None


@pytest.mark.parametrize("forged", [None, {}, [], "", 0, True, [None], {"outputs": []}])
def test_degenerate_data_earns_nothing(check, forged):
    module, name, _ = check
    reason = probes.judge(module, name, forged)
    assert reason and "malformed" in reason, reason


def _cut(expected, how):
    if isinstance(expected, list):
        return {"short": expected[:-1], "long": expected + expected[:1], "empty": []}[how]
    key = "searches"  # search_iter: a dict whose per-search lists must be complete
    damaged = copy.deepcopy(expected)
    damaged[key] = {"short": damaged[key][:-1], "long": damaged[key] + damaged[key][:1],
                    "empty": [[] for _ in damaged[key]]}[how]
    return damaged


@pytest.mark.parametrize("how", ["short", "long", "empty"])
def test_a_result_is_needed_for_every_case(check, how):
    module, name, expected = check
    reason = probes.judge(module, name, _cut(expected, how))
    assert reason and "malformed" in reason and "entries" in reason, reason


def _paths(value, path=()):
    """Every place in a JSON-like value (containers and leaves)."""
    yield path
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, path + (i,))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))


def _damage(value, path, kind):
    damaged = json.loads(json.dumps(value))
    parent = damaged
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    current = parent[last]
    if kind == "none":
        parent[last] = None
    elif kind == "empty_dict":
        parent[last] = {}
    elif kind == "drop" and isinstance(parent, list):
        del parent[last]
    elif kind == "drop":
        del parent[last]
    elif kind == "extra_key" and isinstance(current, dict):
        current["extra"] = 1
    elif kind == "nested":
        parent[last] = [current]
    else:
        parent[last] = None
    return damaged


@pytest.mark.slow
def test_damage_anywhere_in_the_data_earns_nothing(check):
    """Damage at 8 random places of the reference's own output: a reason every time."""
    module, name, expected = check
    places = [p for p in _paths(expected) if p]
    rng = random.Random(f"{module}.{name}")
    for path in rng.sample(places, min(8, len(places))):
        for kind in ("none", "empty_dict", "drop", "extra_key", "nested"):
            damaged = _damage(expected, path, kind)
            if damaged == expected:
                continue
            reason = probes.judge(module, name, damaged)
            assert reason, f"{module}.{name}: {kind} at {path} was accepted"


def test_schema_messages_say_where():
    schema = ListOf(Either(Record(a=Int, b=ListOf(Int, 3)), Str), REF)
    validate(schema, [{"a": 1, "b": [1, 2, 3]}, "raises X"], [{"a": 0, "b": [0, 0, 0]}, {"a": 0, "b": [0, 0, 0]}])
    with pytest.raises(Malformed, match=r"outputs\[0\]\['b'\]: expected 3 entries, got 2"):
        validate(schema, [{"a": 1, "b": [1, 2]}, "x"], [{"a": 0, "b": [0, 0, 0]}] * 2)
    with pytest.raises(Malformed, match="expected 2 entries, got 1"):
        validate(schema, ["x"], [{"a": 0, "b": [0, 0, 0]}] * 2)
    with pytest.raises(Malformed, match="expected an int, got a bool"):
        validate(schema, [{"a": True, "b": [1, 2, 3]}], [{"a": 0, "b": [0, 0, 0]}])


def test_a_forged_probe_module_earns_nothing():
    """The attack of the issue: the kernel replaces a probe by `lambda fn, cases: []`."""
    for module, name in CHECKS:
        reason = probes.judge(module, name, [])
        assert reason and "every test case needs a result" in reason


# ----------------------------------------------------------------------------- bounded reading

def _write(tmp_path, call, text: str) -> None:
    folder = tmp_path / ".probe"
    folder.mkdir(exist_ok=True)
    (folder / f"{call.nonce}.json").write_text(text)


def _wrapped(call, outputs: str) -> str:
    return f'{{"nonce": "{call.nonce}", "outputs": {outputs}}}'


@pytest.mark.parametrize("outputs, why", [
    ("[" * 200_000 + "]" * 200_000, "nested deeper"),
    ("[" + ",".join(["[]"] * 2_000_000) + "]", "entries"),
    ('[' + ','.join(['{"a":1}'] * 300_000) + ']', "entries"),
    ('["' + "x" * (17 * 2**20) + '"]', "larger"),
])
def test_hostile_probe_files_are_refused_with_a_reason(tmp_path, outputs, why):
    call = testcells.CheckCall("ttt1_mcts", "get_reward")
    _write(tmp_path, call, _wrapped(call, outputs))
    reason = probes.probe_outputs(tmp_path, call)
    assert isinstance(reason, str) and "unreadable" in reason and why in reason, str(reason)[:200]


def test_a_file_changed_after_the_probe_announced_it_is_refused(tmp_path):
    """The probe announces its file's SHA-256 on the audit pipe (issue 31): a file rewritten after that (a
    thread, a `__del__`) no longer matches, and an unannounced one has no hash."""
    call = testcells.CheckCall("ttt1_mcts", "get_reward")
    data = _wrapped(call, "[1, 2]")
    _write(tmp_path, call, data)
    digest = hashlib.sha256(data.encode()).hexdigest()
    assert probes.probe_outputs(tmp_path, call, {call.nonce: digest}) == [1, 2]
    _write(tmp_path, call, _wrapped(call, "[1, 3]"))
    for digests in ({call.nonce: digest}, {}):
        reason = probes.probe_outputs(tmp_path, call, digests)
        assert reason == "the test data for get_reward was changed after the hidden check wrote it"


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    call = testcells.CheckCall("ttt1_mcts", "get_reward")
    value = ["[" * 1000 + '\\"' + "{" * 1000 + '"']
    _write(tmp_path, call, _wrapped(call, json.dumps(value)))
    assert probes.probe_outputs(tmp_path, call) == value


def test_every_honest_output_is_within_the_bounds(check, tmp_path):
    module, name, expected = check
    call = testcells.CheckCall(module, name)
    _write(tmp_path, call, json.dumps({"nonce": call.nonce, "outputs": expected}))
    assert probes.probe_outputs(tmp_path, call) == expected


WORST_CASE = textwrap.dedent('''
    import sys
    from pathlib import Path
    from autograder import probes, testcells
    call = testcells.CheckCall("ttt1_mcts", "get_reward")
    scratch = Path(sys.argv[1])
    (scratch / ".probe").mkdir()
    # (item, its cost in entries): as many as the bounds accept, of the shapes dearest to parse
    shapes = {"floats": ("1.0000001,", 1), "dicts": ('{"a":[]},', 12), "lists": ("[0],", 2),
              "strings": ('"abcdefgh",', 1), "nested": ("[" * 20 + "0" + "]" * 20 + ",", 21)}
    for label, (item, cost) in shapes.items():
        count = min((probes.MAX_PROBE_BYTES - 200) // len(item), probes.MAX_PROBE_COST // cost - 50)
        text = '{"nonce": "%s", "outputs": [%s0]}' % (call.nonce, item * count)
        (scratch / ".probe" / f"{call.nonce}.json").write_text(text)
        del text
        result = probes.probe_outputs(scratch, call)
        print(label, "refused" if isinstance(result, str) else len(result))
        del result
    peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    print("maxrss_mb", int(peak.split()[1]) // 1024)  # this process's peak (ru_maxrss counts the forked parent)
''')


def test_the_dearest_files_within_the_bounds_cost_little_memory(tmp_path):
    """Files as large as the bounds accept, of the shapes that cost most once parsed: the
    grader's peak memory stays far below what one of them could cost unbounded (GBs)."""
    done = subprocess.run([sys.executable, "-c", WORST_CASE, str(tmp_path)], capture_output=True, text=True,
                          check=True)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert int(lines["maxrss_mb"]) < 300, done.stdout
    assert all(lines[label] != "refused" for label in ("floats", "dicts", "lists", "strings", "nested")), done.stdout


def test_a_judge_that_cannot_load_fails_the_grading_it_never_marks_the_answer_wrong(monkeypatch):
    """The grader's own part (checks module, cases, reference) broken, e.g. a typo in an edited checks.py:
    the judge raises, so a grading or a rejudge stops instead of failing every student's test."""
    module, name = "ttt1_mcts", "get_reward"
    expected = probes.reference_outputs(module, name)

    def broken(_):
        raise SyntaxError("invalid syntax (checks.py, line 12)")

    monkeypatch.setattr(probes, "_checks", broken)
    with pytest.raises(SyntaxError, match="checks.py"):
        probes.judge(module, name, copy.deepcopy(expected))
