"""The trusted half of the hidden tests: cases, the probe library, probe data, judges.

The grader builds each check's cases here (``trusted_cases``), writes them with the probe
modules into a read-only *probe library* for the kernel (``build_probe_library``), reads back
what the kernel's probes wrote (``probe_outputs``, never following a link the kernel planted)
and judges it against the reference (``judge``). Nothing here runs inside the sandbox.
"""
import importlib
import json
import os
import pickle
import shutil
import stat
import warnings
from functools import lru_cache
from pathlib import Path

from .grader_cache import cached
from .testcells import PROBE_PACKAGE, CheckCall, UnsupportedTestCell

PACKAGE_DIR = Path(__file__).resolve().parent
# Modules of this package that enter the sandbox (by name: ``_report``, ``*_checks``, ``*_cases``):
# probes and case generators only. Anything else (reference, build, the configuration, this
# module) never does; ``reference`` is replaced by a stub that raises.
PROBE_MODULE_PATTERNS = ("_report.py", "*_checks.py", "*_cases.py")
REFERENCE_STUB = ('"""Not available in the sandbox: the reference solution stays with the grader."""\n\n\n'
                  "def __getattr__(name):\n"
                  "    raise RuntimeError('the reference solution is not available inside the sandbox')\n")
MAX_PROBE_BYTES = 256 * 2**20


def probe_modules() -> list[str]:
    return sorted({p.stem for pattern in PROBE_MODULE_PATTERNS for p in PACKAGE_DIR.glob(pattern)})


class _Captured(Exception):
    pass


@lru_cache(maxsize=None)
def trusted_cases(module: str, name: str):
    """The cases ``check_<name>`` of ``autograder.<module>`` would probe (built here, trusted).

    Uses ``cases_<name>()`` when the module defines it; otherwise runs ``check_<name>`` with its
    probe replaced by a recorder, so the cases are exactly the ones the check itself builds.
    Cached on disk (grader-private) between grading processes.
    """
    return cached(f"{module}.{name}.pickle", lambda: _compute_cases(module, name), pickle.dumps, pickle.loads)


def _compute_cases(module: str, name: str):
    checks = importlib.import_module(f"autograder.{module}")
    if hasattr(checks, f"cases_{name}"):
        return getattr(checks, f"cases_{name}")()
    probe_name = f"probe_{name}"
    original, captured = getattr(checks, probe_name), {}

    def recorder(fn, cases):
        captured["cases"] = cases
        raise _Captured

    setattr(checks, probe_name, recorder)
    try:
        getattr(checks, f"check_{name}")(None)
    except _Captured:
        pass
    finally:
        setattr(checks, probe_name, original)
    if "cases" not in captured:
        raise RuntimeError(f"check_{name} of autograder.{module} never called probe_{name}")
    return captured["cases"]


def judge(module: str, name: str, outputs) -> str | None:
    """None if the judge accepts the probe outputs, else the reason (a readable message)."""
    checks = importlib.import_module(f"autograder.{module}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(checks, f"judge_{name}")(trusted_cases(module, name), outputs)
    except AssertionError as problem:
        return str(problem) or f"{name}: wrong result"
    except Exception as exc:  # data the judge cannot even compare is a wrong answer, not a crash
        return f"{name}: the test data from your code could not be checked ({type(exc).__name__}: {exc})"
    return None


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


def build_probe_library(target: Path, calls: list[CheckCall]) -> None:
    """Write the read-only probe library: ``_agprobe`` package + the cases of every call."""
    package = target / PROBE_PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Probe half of the hidden tests (sandbox copy)."""\n')
    (package / "reference.py").write_text(REFERENCE_STUB)
    shutil.copyfile(PACKAGE_DIR / "_probe_runtime.py", package / "_runtime.py")
    modules = probe_modules()
    for module in modules:
        shutil.copyfile(PACKAGE_DIR / f"{module}.py", package / f"{module}.py")
    for call in calls:
        if call.module not in modules:
            raise UnsupportedTestCell(f"autograder.{call.module} is not a probe module "
                                      f"(its name must match one of {PROBE_MODULE_PATTERNS})")
    (target / "cases").mkdir()
    for module, name in sorted({(c.module, c.name) for c in calls}):
        (target / "cases" / f"{module}.{name}.json").write_bytes(encoded_cases(module, name))
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)




def read_from_sandbox(scratch: Path, name: str, limit: int, truncate: bool = False) -> str | None:
    """Text of scratch/.probe/<name> (a regular file, no symlink anywhere), None if absent.

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
        return handle.read(limit).decode("utf-8", errors="replace")


def probe_outputs(scratch: Path, call: CheckCall):
    """The outputs a probe wrote, or a string saying why there are none."""
    missing = (f"no test data came back for {call.name}: the hidden check did not run to completion "
               "(the cell was skipped or altered while it ran)")
    try:
        text = read_from_sandbox(scratch, f"{call.nonce}.json", MAX_PROBE_BYTES)
        if text is None:
            return missing
        data = json.loads(text)
    except (OSError, ValueError, RecursionError) as exc:
        return f"the test data for {call.name} is unreadable ({type(exc).__name__})"
    if not isinstance(data, dict) or data.get("nonce") != call.nonce or "outputs" not in data:
        return f"the test data for {call.name} is not what the grader asked for"
    return data["outputs"]
