"""The trusted half of the hidden tests: cases, the probe library, probe data, judges.

The grader builds each check's cases here (``trusted_cases``), writes them with the probe
module into a read-only *probe library* for the kernel (``build_probe_library``), reads back
what the kernel's probes wrote (``probe_outputs``: bounded in size, nesting and entries, never
following a link the kernel planted), validates its shape against the reference probe's output
on the same cases, and judges it (``judge``). Nothing here runs inside the sandbox, and the
sandbox of a notebook gets only the probe module of its own assignment
(``assignments/<assignment>/probes.py``), ``_probe_util.py`` and that notebook's case data:
never a judge, a case generator, the reference or another assignment's files.

Each assignment's grading content lives in ``autograder/assignments/<assignment>/`` (``checks.py``:
cases, schemas and judges; ``probes.py``: what runs in the kernel; ``examples.py``: example
submissions). Hidden-test cells import ``check_<name>`` from
``autograder.assignments.<assignment>.checks``; a ``module`` argument below is the assignment's name.
"""
import ast
import hashlib
import importlib
import json
import os
import pickle
import re
import shutil
import stat
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

from ._probe_runtime import _decode, _plain
from ._probe_util import quiet
from .grader_cache import cached
from .probe_schema import Malformed, validate
from .testcells import PROBE_PACKAGE, CheckCall, UnsupportedTestCell

PACKAGE_DIR = Path(__file__).resolve().parent
CONTENT_DIR = PACKAGE_DIR / "assignments"
CONTENT_PACKAGE = "autograder.assignments"
# Probe data bounds: the largest honest output (get_next_state's) is 1.6 MB of JSON, 6 levels deep.
MAX_PROBE_BYTES = 16 * 2**20
MAX_PROBE_DEPTH = 24
MAX_PROBE_COST = 1_500_000     # entries in one file, a dict counting as 8 (about 100 MB once parsed)
DICT_COST = 8
TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


def graded_assignments() -> list[str]:
    """The assignments with hidden tests: the folders of ``autograder/assignments/`` with a ``checks.py``."""
    return sorted(d.name for d in CONTENT_DIR.iterdir() if (d / "checks.py").is_file())


def has_probes(module: str) -> bool:
    return (CONTENT_DIR / module / "probes.py").is_file() and (CONTENT_DIR / module / "checks.py").is_file()


def assignment_of(module_name: str) -> str:
    """The assignment of a checks module's ``__name__``: ``autograder.assignments.ttt1_mcts.checks`` -> ``ttt1_mcts``."""
    return module_name.removeprefix(CONTENT_PACKAGE + ".").removesuffix(".checks")


def _checks(module: str):
    return importlib.import_module(f"{CONTENT_PACKAGE}.{module}.checks")


def _probes(module: str):
    return importlib.import_module(f"{CONTENT_PACKAGE}.{module}.probes")


@lru_cache(maxsize=None)
def trusted_cases(module: str, name: str):
    """The cases of ``cases_<name>()`` in ``autograder.<module>`` (built here, trusted; cached on
    disk, grader-private, between grading processes)."""
    return cached(f"{module}.{name}.pickle", lambda: getattr(_checks(module), f"cases_{name}")(),
                  pickle.dumps, pickle.loads)


@lru_cache(maxsize=None)
def kernel_cases(module: str, name: str):
    """The cases exactly as a probe in the kernel sees them (decoded from the case file)."""
    return json.loads(encoded_cases(module, name), object_hook=_decode)


def _plain_data(outputs):
    """Probe outputs as the grader reads them back from a kernel (a JSON round trip)."""
    return json.loads(json.dumps(outputs, default=_plain))


@lru_cache(maxsize=None)
def reference_outputs(module: str, name: str):
    """What the probe returns for the reference solution on the kernel's cases (cached)."""
    def compute():
        checks = _checks(module)
        from . import reference
        function = reference.reference_namespace(*checks.REFERENCE)[name]
        probe = getattr(_probes(module), f"probe_{name}")
        with quiet():
            return json.dumps(_plain_data(probe(function, kernel_cases(module, name)))).encode()
    return json.loads(cached(f"{module}.{name}.expected.json", compute, lambda b: b, lambda b: b))


def judge(module: str, name: str, outputs) -> str | None:
    """None if the judge accepts the probe outputs, else the reason (a readable message).

    The outputs must first have the shape the reference probe's outputs have on the same cases
    (``SCHEMAS[name]`` of the checks module): one result for every case, nothing missing or
    extra. Whatever goes wrong while validating or judging the student's data fails the check with a
    reason; the grader's own part (the checks module, its cases, the reference's outputs) is loaded
    first and raises: a judge that cannot load fails the grading loudly, it never marks a class wrong.
    """
    checks = _checks(module)
    expected = reference_outputs(module, name)
    cases = kernel_cases(module, name)
    try:
        validate(checks.SCHEMAS[name], outputs, expected)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            checks.JUDGES[name](cases, expected, outputs)
    except Malformed as problem:
        return (f"{name}: the test data that came back from your kernel is incomplete or malformed ({problem}); "
                "every test case needs a result (was the hidden check altered while it ran?)")
    except AssertionError as problem:
        return _not_written(name, outputs) or str(problem) or f"{name}: wrong result"
    except Exception as exc:  # data the judge cannot even compare is a wrong answer, not a crash
        return f"{name}: the test data from your code could not be checked ({type(exc).__name__}: {str(exc)[:200]})"
    return None


def _not_written(name: str, outputs) -> str | None:
    """The reason for a function that raised NotImplementedError on every case (a blank answer cell, or
    one whose visible test left the verdict to the judge), instead of the judge's first wrong case."""
    if isinstance(outputs, list) and outputs and all("NotImplementedError" in json.dumps(o) for o in outputs):
        return f"NotImplementedError: {name} is not written yet (it raised NotImplementedError on every test case)"
    return None


def run_check(module: str, name: str, fn) -> None:
    """A whole hidden test in this process: probe ``fn``, then judge (AssertionError if wrong).

    Used by ``check_<name>(fn)`` when a test cell runs outside the sandboxed grader (the
    instructor's own notebooks, the unit tests); the data takes the same JSON round trip.
    `module` may be given as ``__name__`` (``autograder.assignments.ttt1_mcts.checks``).
    """
    module = assignment_of(module)
    probe = getattr(_probes(module), f"probe_{name}")
    with quiet():
        outputs = _plain_data(probe(fn, kernel_cases(module, name)))
    reason = judge(module, name, outputs)
    if reason:
        raise AssertionError(reason)


def _encode(obj):
    """JSON-able form of case data; numpy arrays become {"__nd__": [dtype, shape, values]}."""
    import numpy as np

    if isinstance(obj, np.ndarray):
        return {"__nd__": [obj.dtype.str, list(obj.shape), obj.ravel().tolist()]}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, dict):
        return {str(k): _encode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_encode(v) for v in obj]
    if hasattr(obj, "__array__"):
        return _encode(np.asarray(obj))
    return obj


@lru_cache(maxsize=None)
def encoded_cases(module: str, name: str) -> bytes:
    return cached(f"{module}.{name}.json", lambda: json.dumps(_encode(trusted_cases(module, name))).encode(),
                   lambda b: b, lambda b: b)


def _top_level(path: Path) -> dict[str, list]:
    """{name: the top-level statements of the file that bind it} (defs, classes, assignments, imports)."""
    bound: dict[str, list] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        else:
            continue
        for name in names:
            bound.setdefault(name, []).append(node)
    return bound


def probe_fingerprint(module: str, name: str) -> str:
    """SHA-256 (hex) of what the grader sends into a kernel for the check `name` of assignment `module`: the
    probe runtime, ``probe_<name>`` with every definition of its probes module and of ``_probe_util`` that it
    reaches by name (their syntax trees: comments and layout do not count), and its case file. Equal
    fingerprints: the kernel ran the same probe on the same cases. What the probes import from the course
    (``azcourse``, the Azul engine) is not part of it."""
    files = {"probes": CONTENT_DIR / module / "probes.py", "util": PACKAGE_DIR / "_probe_util.py"}
    bound = {key: _top_level(path) for key, path in files.items()}
    digest = hashlib.sha256(ast.dump(ast.parse((PACKAGE_DIR / "_probe_runtime.py").read_text())).encode())
    todo, seen = [("probes", f"probe_{name}")], set()
    while todo:
        key, identifier = todo.pop()
        if (key, identifier) in seen:
            continue
        seen.add((key, identifier))
        for node in bound[key].get(identifier, []):
            digest.update(f"{key}\0".encode() + ast.dump(node).encode())
            if isinstance(node, ast.ImportFrom) and node.module == "_probe_util":
                todo += [("util", alias.name) for alias in node.names if (alias.asname or alias.name) == identifier]
            elif not isinstance(node, (ast.Import, ast.ImportFrom)):
                todo += [(key, n.id) for n in ast.walk(node) if isinstance(n, ast.Name)]
    digest.update(b"\0cases\0" + encoded_cases(module, name))
    return digest.hexdigest()


def build_probe_library(target: Path, calls: list[CheckCall]) -> None:
    """Write the read-only probe library: the ``_agprobe`` package (the runtime, ``_probe_util`` and
    the probe module of each assignment the calls name, laid out as in this package so that their
    relative imports work unchanged) + the cases of every call."""
    modules = sorted({c.module for c in calls})
    for module in modules:
        if not has_probes(module):
            raise UnsupportedTestCell(f"autograder/assignments/{module}/ has no checks.py and probes.py")
    package = target / PROBE_PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Probe half of the hidden tests (sandbox copy)."""\n')
    shutil.copyfile(PACKAGE_DIR / "_probe_runtime.py", package / "_runtime.py")
    shutil.copyfile(PACKAGE_DIR / "_probe_util.py", package / "_probe_util.py")
    (package / "assignments").mkdir()
    (package / "assignments" / "__init__.py").write_text("")
    for module in modules:
        (package / "assignments" / module).mkdir()
        (package / "assignments" / module / "__init__.py").write_text("")
        shutil.copyfile(CONTENT_DIR / module / "probes.py", package / "assignments" / module / "probes.py")
    (target / "cases").mkdir()
    for module, name in sorted({(c.module, c.name) for c in calls}):
        (target / "cases" / f"{module}.{name}.json").write_bytes(encoded_cases(module, name))
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def read_from_sandbox(scratch: Path, name: str, limit: int, truncate: bool = False,
                      binary: bool = False) -> str | bytes | None:
    """Text (or bytes) of scratch/.probe/<name> (a regular file, no symlink anywhere), None if absent.

    The sandbox owns that folder: never follow a link it may have planted there (this process
    has the grader's rights). Raises ValueError past `limit` bytes unless `truncate`.
    """
    folder = scratch / ".probe"
    try:
        if folder.is_symlink() or not folder.is_dir():
            return None
        descriptor = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > limit and not truncate:
            raise ValueError(f"{name} is larger than {limit} bytes")
        data = handle.read(limit)
        return data if binary else data.decode("utf-8", errors="replace")


def parse_bounded(data: bytes):
    """``json.loads`` of probe data, refused (ValueError) past the size, entry and nesting bounds,
    so that no file costs the grader more than about a hundred MB, or a deep recursion."""
    if len(data) > MAX_PROBE_BYTES:
        raise ValueError(f"larger than {MAX_PROBE_BYTES} bytes")
    # Upper bound of what parsing allocates (separators inside strings count too: conservative).
    if data.count(b",") + data.count(b":") + data.count(b"[") + DICT_COST * data.count(b"{") > MAX_PROBE_COST:
        raise ValueError(f"more than {MAX_PROBE_COST} entries")
    depth = 0
    for token in TOKENS.finditer(data):  # brackets outside strings; at most MAX_PROBE_COST of them
        if token.group() in (b"[", b"{"):
            depth += 1
            if depth > MAX_PROBE_DEPTH:
                raise ValueError(f"nested deeper than {MAX_PROBE_DEPTH} levels")
        elif token.group() in (b"]", b"}"):
            depth -= 1
    return json.loads(data)


def probe_outputs(scratch: Path, call: CheckCall, digests: dict | None = None):
    """The outputs a probe wrote, or a string saying why there are none. With `digests` ({nonce: the
    SHA-256 the probe announced first on the audit pipe}), a file that differs from what the probe
    announced is refused."""
    missing = (f"no test data came back for {call.name}: the hidden check did not run to completion "
               "(the cell was skipped or altered while it ran)")
    try:
        raw = read_from_sandbox(scratch, f"{call.nonce}.json", MAX_PROBE_BYTES, binary=True)
        if raw is None:
            return missing
        if digests is not None and digests.get(call.nonce) != hashlib.sha256(raw).hexdigest():
            return f"the test data for {call.name} was changed after the hidden check wrote it"
        data = parse_bounded(raw)
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        return f"the test data for {call.name} is unreadable ({type(exc).__name__}: {str(exc)[:120]})"
    if not isinstance(data, dict) or data.get("nonce") != call.nonce or "outputs" not in data:
        return f"the test data for {call.name} is not what the grader asked for"
    return data["outputs"]
