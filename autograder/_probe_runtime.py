"""Kernel side of a sandboxed hidden test (copied into the sandbox as ``_agprobe._runtime``).

The grader rewrites each ``check_<name>(fn)`` call of a hidden-test cell into
``_agprobe._runtime.probe("<module>", "<name>", fn, "<nonce>")``. This runs the *probe* half of
the check on the cases the grader wrote into the read-only probe library, and writes the
plain-data outputs (JSON) to ``<scratch>/.probe/<nonce>.json``. The *judge* half never runs
here: the grader reads the file and decides, outside this process. Standard library and numpy
only; nothing here can see the reference solution.
"""
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
    """Run ``probe_<name>`` of the probe module of ``<module>`` (``ttt_checks`` -> ``_agprobe.ttt_probes``)
    on the grader's cases; write its outputs."""
    cases = load_cases(module, name)
    checks = importlib.import_module(f"_agprobe.{module.removesuffix('_checks')}_probes")
    import numpy as np

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        outputs = getattr(checks, f"probe_{name}")(fn, cases)
    os.makedirs(OUT, exist_ok=True)
    tmp = os.path.join(OUT, f"{nonce}.tmp")
    with open(tmp, "w") as handle:
        json.dump({"nonce": nonce, "outputs": outputs}, handle, default=_plain)
    os.replace(tmp, os.path.join(OUT, f"{nonce}.json"))


def _audit(event, args):
    """Record attempts to open grader-looking paths (evidence for the instructor's report)."""
    if event in ("open", "os.listdir", "os.scandir", "sqlite3.connect", "os.remove", "shutil.copyfile") and args:
        target = str(args[0])
        if any(word in target for word in SUSPICIOUS) and not target.startswith(TRUSTED_PREFIXES):
            try:
                with open(os.path.join(OUT, "audit.log"), "a") as handle:
                    handle.write(json.dumps({"event": event, "path": target[:300]}) + "\n")
            except OSError:
                pass


def install() -> None:
    """Called once per kernel before the notebook runs."""
    os.makedirs(OUT, exist_ok=True)
    sys.addaudithook(_audit)
