"""Kernel side of a sandboxed hidden test (copied into the sandbox as ``_agprobe._runtime``).

The grader rewrites each ``check_<name>(fn)`` call of a hidden-test cell into
``_agprobe._runtime.probe("<module>", "<name>", fn, "<nonce>")``. This runs the *probe* half of
the check on the cases the grader wrote into the read-only probe library, and writes the
plain-data outputs (JSON) to ``<scratch>/.probe/<nonce>.json``, whose SHA-256 it announces. The *judge* half never runs
here: the grader reads the file and decides, outside this process. Evidence (suspicious file
access, audit hooks added, imports of this package outside a probe, each probe's nonce) goes to
the grader through a pipe whose write end the kernel inherits (``autograder.audit``). Standard
library and numpy only; nothing here can see the reference solution.
"""
import hashlib
import importlib
import json
import os
import sys
import warnings

LIB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(os.getcwd(), ".probe")
TRUSTED_PREFIXES = (LIB, sys.prefix, sys.base_prefix, "/usr/")
SUSPICIOUS = ("gradebook", "assignments", "solutions", "autograder", "nbgrader", "/.git", "hidden")


def _decode(obj):
    if "__nd__" in obj and len(obj) == 1:
        import numpy as np

        dtype, shape, flat = obj["__nd__"]
        return np.asarray(flat, dtype=dtype).reshape(shape)
    return obj


def _plain(obj):
    """json.dump fallback: numpy scalars and arrays become Python numbers and lists."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    return repr(obj)


def load_cases(module: str, name: str):
    with open(os.path.join(LIB, "cases", f"{module}.{name}.json")) as handle:
        return json.load(handle, object_hook=_decode)


def probe(module: str, name: str, fn, nonce: str) -> None:
    """Run ``probe_<name>`` of the probe module of assignment ``<module>``
    (``_agprobe.assignments.<module>.probes``) on the grader's cases; write its outputs."""
    _PROBING[0] += 1
    try:
        _announce({"probe": nonce})
        cases = load_cases(module, name)
        checks = importlib.import_module(f"_agprobe.assignments.{module}.probes")
    finally:
        _PROBING[0] -= 1
    import numpy as np

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        outputs = getattr(checks, f"probe_{name}")(fn, cases)
    data = json.dumps({"nonce": nonce, "outputs": outputs}, default=_plain).encode()
    os.makedirs(OUT, exist_ok=True)
    tmp = os.path.join(OUT, f"{nonce}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, os.path.join(OUT, f"{nonce}.json"))
    _announce({"data": nonce, "sha256": hashlib.sha256(data).hexdigest()})  # the file may not change after this


_PROBING = [0]  # > 0 while probe() loads its module (an import of the probe package is then the grader's)
FILE_EVENTS = ("open", "os.listdir", "os.scandir", "sqlite3.connect", "os.remove", "shutil.copyfile")


def _channel():
    try:
        return int(os.environ.get("AG_AUDIT_FD", ""))
    except ValueError:
        return None


def _announce(record, _fd=_channel(), _write=os.write, _dumps=json.dumps) -> None:
    """One JSON line into the grader's audit pipe (evidence the kernel cannot take back)."""
    if _fd is None:
        return
    try:
        _write(_fd, (_dumps(record)[:2000] + "\n").encode())
    except (OSError, ValueError, TypeError):
        pass


def install() -> None:
    """Called once per kernel before the notebook runs: the audit hook (it cannot be removed)."""
    os.makedirs(OUT, exist_ok=True)
    busy = [False]

    def audit(event, args, _announce=_announce, _str=str, _probing=_PROBING, _busy=busy,
              _suspicious=SUSPICIOUS, _trusted=TRUSTED_PREFIXES, _files=FILE_EVENTS):
        if _busy[0]:
            return
        record = None
        if event == "sys.addaudithook":
            record = {"event": event}
        elif event == "import" and args and _str(args[0]).startswith("_agprobe") and not _probing[0]:
            record = {"event": event, "path": _str(args[0])[:300]}
        elif event in _files and args:
            target = _str(args[0])
            if any(word in target for word in _suspicious) and not target.startswith(_trusted):
                record = {"event": event, "path": target[:300]}
        if record is not None:
            _busy[0] = True
            try:
                _announce(record)
            finally:
                _busy[0] = False

    sys.addaudithook(audit)
