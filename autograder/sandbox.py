"""Run a submission in a sandboxed kernel and grade its hidden tests outside it.

``SandboxExecute`` replaces nbgrader's ``Execute`` preprocessor in ``nbgrader autograde``
(see ``autograder.grading_config``). For each notebook it:

1. rewrites every hidden-test call ``check_<name>(fn)`` (imported ``from autograder.<module>``)
   into a *probe* call with a fresh random nonce; the probe runs the student's function on
   cases the grader wrote into a read-only probe library and writes plain data (JSON) to the
   scratch folder;
2. executes the notebook cell by cell in a kernel started by ``_sandbox_launch.py``: its own
   mount namespace and root directory (no course sources, solutions, hidden tests, autograder
   package or gradebook in it), its own empty network namespace (Unix-socket channels), a
   private /tmp, an unprivileged uid of its own, resource limits, a clean environment; a timeout or a dead kernel costs that cell, and the kernel
   is restarted (earlier non-test cells replayed) for the cells after it;
3. *judges* each graded cell in this trusted process: the cell passes only if it ran without
   an error, every probe of the cell left data tagged with its nonce, and every judge
   (``judge_<name>`` of the trusted ``autograder.<module>``, which compares with the
   reference solution) accepts it;
4. replaces the graded cells' outputs by that verdict (stdout kept; stderr, errors and
   results from the kernel dropped), so nbgrader's ``SaveAutoGrades`` records exactly the
   trusted verdict: library warnings on stderr never cost points, and nothing the kernel
   prints can award them;
5. writes a JSON report per notebook (verdicts, reasons, runtime flags) for the instructor.

Without root (or without mount namespaces) it falls back to an unisolated kernel in a scratch
folder, logs a warning, and says so in the report; the verdicts are still decided here.
"""
import ast
import copy
import fcntl
import hashlib
import importlib
import json
import os
import pickle
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Bool, Dict, Integer, List, Unicode

from . import numba_cache

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
LAUNCHER = PACKAGE_DIR / "_sandbox_launch.py"
SCRATCH_INSIDE = "/sandbox"
LIB_INSIDE = "/opt/agprobe"
PROBE_PACKAGE = "_agprobe"
# Modules of this package that enter the sandbox (by name: ``_report``, ``*_checks``, ``*_cases``):
# probes and case generators only. Anything else (reference, build, the configuration, this
# module) never does; ``reference`` is replaced by a stub that raises.
PROBE_MODULE_PATTERNS = ("_report.py", "*_checks.py", "*_cases.py")


def probe_modules() -> list[str]:
    return sorted({p.stem for pattern in PROBE_MODULE_PATTERNS for p in PACKAGE_DIR.glob(pattern)})
REFERENCE_STUB = ('"""Not available in the sandbox: the reference solution stays with the grader."""\n\n\n'
                  "def __getattr__(name):\n"
                  "    raise RuntimeError('the reference solution is not available inside the sandbox')\n")
UID_RANGE = range(61000, 61064)
UID_LOCK_DIR = Path(tempfile.gettempdir()) / "azcourse-sandbox-uids"
MAX_PROBE_BYTES = 256 * 2**20
FRAMEWORK_PATHS = ("azcourse", "Azul_Simulator.py", "Azul_Visuals.py", "play.py", "ckpts")
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


# ----------------------------------------------------------------------------- hidden-test calls

@dataclass
class CheckCall:
    """One ``check_<name>(arg)`` call found in a hidden-test cell."""
    module: str          # e.g. "ttt_checks" (of autograder.ttt_checks)
    name: str            # e.g. "get_next_state"
    nonce: str = field(default_factory=lambda: secrets.token_hex(16))


class UnsupportedTestCell(ValueError):
    """A test cell uses ``autograder`` in a way the sandbox cannot split into probe and judge."""


def rewrite_test_cell(source: str) -> tuple[str, list[CheckCall]]:
    """The cell's source with every check call replaced by a probe call, and the calls found.

    ``from autograder.<module> import check_<name>`` lines become ``pass``;
    ``check_<name>(<expr>)`` becomes ``_agprobe._runtime.probe("<module>", "<name>", <expr>, "<nonce>")``.
    Cells that do not mention ``autograder`` are returned unchanged.
    """
    if "autograder" not in source:
        return source, []
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise UnsupportedTestCell(f"the test cell does not parse: {exc}") from None
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    position = lambda lineno, col: offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())
    imported: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    calls: list[CheckCall] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograder"):
            module = (node.module or "").split(".", 1)[-1]
            if node.module.count(".") != 1 or any(not a.name.startswith("check_") or a.asname for a in node.names):
                raise UnsupportedTestCell(f"unsupported import in a test cell: {ast.unparse(node)}")
            for alias in node.names:
                imported[alias.name] = module
            edits.append((position(node.lineno, node.col_offset), position(node.end_lineno, node.end_col_offset),
                          "pass"))
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "autograder" for a in node.names):
            raise UnsupportedTestCell(f"unsupported import in a test cell: {ast.unparse(node)}"
                                      " (use `from autograder.<module> import check_<name>`)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
            if len(node.args) != 1 or node.keywords:
                raise UnsupportedTestCell(f"a check takes exactly one argument: {ast.unparse(node)}")
            call = CheckCall(imported[node.func.id], node.func.id[len("check_"):])
            argument = ast.get_source_segment(source, node.args[0])
            edits.append((position(node.lineno, node.col_offset), position(node.end_lineno, node.end_col_offset),
                          f"__import__({PROBE_PACKAGE + '._runtime'!r}).{'_runtime'}.probe("
                          f"{call.module!r}, {call.name!r}, {argument}, {call.nonce!r})"))
            calls.append(call)
        elif isinstance(node, ast.Name) and node.id == "autograder":
            raise UnsupportedTestCell("a test cell may use autograder only through `check_<name>(...)` calls")
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return source, calls


# ----------------------------------------------------------------------------- trusted side

class _Captured(Exception):
    pass


@lru_cache(maxsize=1)
def _cache_dir() -> Path | None:
    """~/.cache/azcourse-grader/<hash of the graders' inputs>: private to the grader's user.

    The key covers this package, the source notebooks and the framework, so any change to a
    check, a case generator or a reference solution starts a fresh cache.
    """
    digest = hashlib.sha256()
    inputs = [*PACKAGE_DIR.glob("*.py"), *(REPO_ROOT / "assignments").glob("*/*.ipynb"),
              *(REPO_ROOT / "azcourse").rglob("*.py")]
    for path in sorted(inputs):
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    root = Path.home() / ".cache" / "azcourse-grader"
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = root.stat()
        if info.st_uid != os.geteuid() or info.st_mode & 0o077:
            return None
        target = root / digest.hexdigest()[:24]
        target.mkdir(mode=0o700, exist_ok=True)
        return target
    except OSError:
        return None


def _cached(filename: str, compute, dump, load):
    folder = _cache_dir()
    path = folder / filename if folder else None
    if path and path.exists():
        try:
            return load(path.read_bytes())
        except Exception:  # noqa: BLE001 (a damaged cache entry is recomputed)
            pass
    value = compute()
    if path:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(dump(value))
        os.replace(tmp, path)
    return value


@lru_cache(maxsize=None)
def trusted_cases(module: str, name: str):
    """The cases ``check_<name>`` of ``autograder.<module>`` would probe (built here, trusted).

    Uses ``cases_<name>()`` when the module defines it; otherwise runs ``check_<name>`` with its
    probe replaced by a recorder, so the cases are exactly the ones the check itself builds.
    Cached on disk (grader-private) between grading processes.
    """
    return _cached(f"{module}.{name}.pickle", lambda: _compute_cases(module, name), pickle.dumps, pickle.loads)


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
    return _cached(f"{module}.{name}.json", lambda: json.dumps(_encode(trusted_cases(module, name))).encode(),
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


# ----------------------------------------------------------------------------- isolation

def isolation_available() -> tuple[bool, str]:
    """Whether the chroot sandbox can be used here, and why not."""
    if not sys.platform.startswith("linux"):
        return False, "not Linux"
    if os.geteuid() != 0:
        return False, "the grader is not running as root (needed for a mount namespace and a separate uid)"
    return True, ""


class UidLease:
    """An unused uid from UID_RANGE, held (flock) until released: parallel kernels never share one."""

    def __init__(self):
        UID_LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        for uid in UID_RANGE:
            handle = open(UID_LOCK_DIR / f"{uid}.lock", "w")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            self.uid, self._handle = uid, handle
            return
        raise RuntimeError(f"all {len(UID_RANGE)} sandbox uids are in use")

    def release(self) -> None:
        kill_uid(self.uid)
        self._handle.close()


def kill_uid(uid: int) -> None:
    """SIGKILL every process owned by `uid` (what a submission left running)."""
    for _ in range(3):
        found = False
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.stat(f"/proc/{entry}").st_uid == uid:
                        os.kill(int(entry), signal.SIGKILL)
                        found = True
                except OSError:
                    pass
        if not found:
            return
        time.sleep(0.1)


def sandbox_env(scratch: str) -> dict:
    return {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "HOME": scratch,
            "USER": "student", "LOGNAME": "student", "LANG": "C.UTF-8", "TMPDIR": "/tmp",
            "PYTHONPATH": LIB_INSIDE, "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": f"{scratch}/.config/matplotlib", "JAX_PLATFORMS": "cpu",
            "NUMBA_CACHE_DIR": f"{scratch}/.cache/numba", "NBGRADER_EXECUTION": "autograde",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
            "PYDEVD_DISABLE_FILE_VALIDATION": "1"}


def readonly_paths(extra=()) -> list[str]:
    """What the sandbox sees read-only: system folders, Python, the venv, the framework modules."""
    paths = [p for p in SYSTEM_PATHS if os.path.lexists(p)]
    paths += [sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))]
    paths += [str(REPO_ROOT / p) for p in FRAMEWORK_PATHS if (REPO_ROOT / p).exists()]
    paths += list(extra)
    unique = []
    for path in paths:
        if path not in unique and not any(path.startswith(p.rstrip("/") + "/") for p in SYSTEM_PATHS if p != path):
            unique.append(path)
    return unique


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel command goes through ``_sandbox_launch.py``."""
    launch_prefix = List([])

    def format_kernel_cmd(self, extra_arguments=None):
        return list(self.launch_prefix) + super().format_kernel_cmd(extra_arguments)


# ----------------------------------------------------------------------------- execution

@dataclass
class CellOutcome:
    ran: bool = False
    error: str | None = None        # problem found while executing (timeout, dead kernel, error output)
    passed: bool | None = None      # graded cells: the trusted verdict
    reason: str = ""


class _Restart(Exception):
    pass


class _BudgetExceeded(Exception):
    pass


class CappedClient(NotebookClient):
    """nbclient that keeps at most MAX_CELL_OUTPUT characters of output per cell (an output
    flood from student code must not exhaust the grader's memory)."""
    max_cell_output = Integer(2_000_000).tag(config=True)

    def output(self, outs, msg, display_id, cell_index):
        used = self.__dict__.setdefault("_output_used", {})
        used[cell_index] = used.get(cell_index, 0) + len(json.dumps(msg.get("content", {})))
        if used[cell_index] > self.max_cell_output:
            if used.get(("noted", cell_index)) is None:
                used[("noted", cell_index)] = True
                outs.append(nbformat.v4.new_output("stream", name="stdout",
                                                   text="\n[output truncated by the grader]\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)


class SandboxExecute(NbGraderPreprocessor):
    """Drop-in replacement of nbgrader's Execute: sandboxed probes, trusted verdicts."""

    timeout = Integer(0, help="seconds per cell; 0 = use Execute.timeout (or 120)").tag(config=True)
    cell_timeouts = Dict({}, help="seconds per cell for given grade_ids").tag(config=True)
    notebook_timeout = Integer(1200, help="wall-clock budget of a whole notebook (s)").tag(config=True)
    startup_timeout = Integer(120).tag(config=True)
    max_restarts = Integer(4, help="kernel restarts per notebook after a timeout or a dead kernel").tag(config=True)
    kernel_name = Unicode("python3").tag(config=True)
    isolation = Unicode("auto", help="'auto' (chroot sandbox if possible), 'chroot' (required) or 'none'").tag(
        config=True)
    report_directory = Unicode("", help="where per-notebook JSON reports go ('' = none)").tag(config=True)
    extra_readonly = List([], help="more host paths the sandbox may read").tag(config=True)
    warm_numba = Bool(True, help="start each kernel with a copy of the grader's compiled numba cache").tag(
        config=True)
    isolate_network = Bool(True, help="give the kernel its own (empty) network namespace").tag(config=True)
    rlimits = Dict({"RLIMIT_CORE": 0, "RLIMIT_FSIZE": 2**30, "RLIMIT_NOFILE": 4096, "RLIMIT_NPROC": 1024},
                   help="resource limits of the kernel (resource module names)").tag(config=True)

    def _cell_timeout(self, cell) -> int:
        base = self.timeout or int(self.config.Execute.get("timeout", 0) or 0) or 120
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        return int(self.cell_timeouts.get(grade_id, cell.metadata.get("autograder", {}).get("timeout", base)))

    # -- the preprocessor entry point
    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        started = time.monotonic()
        use_chroot, why_not = isolation_available()
        if self.isolation == "none":
            use_chroot, why_not = False, "isolation = 'none' in the configuration"
        if not use_chroot:
            if self.isolation == "chroot":
                raise RuntimeError(f"sandbox required but unavailable: {why_not}")
            self.log.warning("AUTOGRADER SANDBOX DISABLED (%s): student code runs unisolated, "
                             "as the grader's user; verdicts are still decided outside the kernel.", why_not)
        report = {"student": info.get("student"), "assignment": info.get("assignment"),
                  "notebook": info.get("notebook"), "isolation": "chroot" if use_chroot else f"none: {why_not}",
                  "flags": [], "cells": {}}
        workdir = Path(tempfile.mkdtemp(prefix="azsandbox-"))
        lease = UidLease() if use_chroot else None
        try:
            outcomes, calls = self._run(nb, workdir, lease, report)
            self._apply_verdicts(nb, outcomes, calls, workdir / "scratch", report)
            self._audit_flags(workdir / "scratch", report)
        finally:
            if lease:
                lease.release()
            shutil.rmtree(workdir, ignore_errors=True)
        report["seconds"] = round(time.monotonic() - started, 1)
        self._write_report(report)
        return nb, resources

    def _run(self, nb, workdir: Path, lease, report):
        executed = copy.deepcopy(nb)
        calls: dict[int, list[CheckCall]] = {}
        outcomes: dict[int, CellOutcome] = {}
        for index, cell in enumerate(executed.cells):
            if cell.cell_type != "code":
                continue
            if cell.metadata.get("nbgrader", {}).get("grade", False):
                try:
                    cell.source, calls[index] = rewrite_test_cell(cell.source)
                except UnsupportedTestCell as exc:
                    cell.source, calls[index] = "raise RuntimeError('test cell not gradable')", []
                    outcomes[index] = CellOutcome(error=f"grader configuration problem: {exc}")
        lib, scratch = workdir / "lib", workdir / "scratch"
        build_probe_library(lib, [c for cell_calls in calls.values() for c in cell_calls])
        scratch.mkdir()
        (scratch / ".probe").mkdir()
        if lease:  # the launcher hands the scratch folder itself over; the probe folder is handed here
            os.lchown(scratch / ".probe", lease.uid, lease.uid)
        if self.warm_numba and numba_cache.uses_numba(executed):  # spares the engine's compilation
            try:
                numba_cache.seed(scratch / ".cache", lease.uid if lease else None)
            except Exception as exc:  # slower grading, never a lost grade
                self.log.warning("grading without a warm numba cache: %s", exc)
        prefix, env = self._launch(workdir, lib, scratch, lease)
        self._execute_cells(executed, outcomes, prefix, env, scratch, lease, report)
        for index, cell in enumerate(executed.cells):  # kernel outputs go back into nbgrader's notebook
            if cell.cell_type == "code":
                nb.cells[index].outputs = cell.outputs
                nb.cells[index].execution_count = cell.get("execution_count")
        return outcomes, calls

    def _launch(self, workdir: Path, lib: Path, scratch: Path, lease):
        if lease is None:
            env = {**sandbox_env(str(scratch)), "PYTHONPATH": str(lib)}
            return [], env
        spec = {"root": str(workdir / "root"), "readonly": readonly_paths(self.extra_readonly),
                "lib": str(lib), "lib_inside": LIB_INSIDE, "scratch": str(scratch), "scratch_inside": SCRATCH_INSIDE,
                "uid": lease.uid, "gid": lease.uid, "rlimits": dict(self.rlimits), "env": sandbox_env(SCRATCH_INSIDE),
                "isolate_network": self.isolate_network}
        (workdir / "spec.json").write_text(json.dumps(spec))
        return [sys.executable, "-I", str(LAUNCHER), str(workdir / "spec.json"), "--"], None

    def _new_client(self, nb, prefix, env, scratch: Path):
        name = f"kernel-{secrets.token_hex(4)}"
        sockets = {"transport": "ipc", "ip": str(scratch / name)} if prefix else {}  # no network in the sandbox
        km = SandboxKernelManager(kernel_name=self.kernel_name, launch_prefix=prefix,
                                  connection_file=str(scratch / f"{name}.json"), **sockets)
        client = CappedClient(nb, km=km, timeout=120, startup_timeout=self.startup_timeout, allow_errors=True,
                                interrupt_on_timeout=False, shutdown_kernel="immediate", record_timing=False,
                                kernel_name=self.kernel_name, resources={"metadata": {"path": str(scratch)}})
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}  # kernel banners, not cell output
        return client, ({"env": env, **quiet} if env is not None else quiet)

    def _execute_cells(self, nb, outcomes, prefix, env, scratch, lease, report) -> None:
        deadline = time.monotonic() + self.notebook_timeout
        code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
        replay: list[int] = []  # non-test cells that ran cleanly, re-run after a kernel restart
        position, restarts = 0, 0
        while position < len(code_cells):
            client, start_kwargs = self._new_client(nb, prefix, env, scratch)
            try:
                with client.setup_kernel(cleanup_kc=True, **start_kwargs):
                    self._run_hidden(client, "import _agprobe._runtime as _r; _r.install(); del _r", 60)
                    for index in replay:
                        self._run_hidden(client, nb.cells[index].source, self._cell_timeout(nb.cells[index]))
                    while position < len(code_cells):
                        index = code_cells[position]
                        cell = nb.cells[index]
                        position += 1
                        outcome = outcomes.setdefault(index, CellOutcome())
                        if outcome.error:  # e.g. an unparsable test cell
                            continue
                        remaining = deadline - time.monotonic()
                        if remaining <= 1:
                            raise _BudgetExceeded
                        client.timeout = int(max(1, min(self._cell_timeout(cell), remaining)))
                        try:
                            client.execute_cell(cell, index)
                        except CellTimeoutError:
                            outcome.ran, outcome.error = True, (
                                f"the cell did not finish within {client.timeout} s (infinite loop, or too slow); "
                                "it was stopped and the kernel restarted for the cells after it")
                            report["flags"].append(f"timeout in cell {index} ({_cell_name(cell)})")
                            raise _Restart
                        except DeadKernelError:
                            outcome.ran, outcome.error = True, (
                                "the kernel died while running this cell (os._exit, a crash, or out of memory); "
                                "it was restarted for the cells after it")
                            report["flags"].append(f"kernel died in cell {index} ({_cell_name(cell)})")
                            raise _Restart
                        outcome.ran = True
                        errors = [o for o in cell.outputs if o.output_type == "error"]
                        if errors:
                            outcome.error = error_reason(errors[0])
                        elif not cell.metadata.get("nbgrader", {}).get("grade", False):
                            replay.append(index)
            except _Restart:
                restarts += 1
                if restarts > self.max_restarts:
                    self._not_run(nb, code_cells[position:], outcomes, "not run: too many kernel restarts")
                    return
            except _BudgetExceeded:
                self._not_run(nb, code_cells[position - 1:], outcomes,
                              f"not run: the notebook exceeded its time budget of {self.notebook_timeout} s")
                report["flags"].append("notebook time budget exceeded")
                return
            except Exception as exc:  # noqa: BLE001 (kernel start or replay failed: grade what ran, say why)
                self._not_run(nb, code_cells[position:], outcomes,
                              f"not run: the kernel could not be restarted ({exc})")
                report["flags"].append(f"kernel restart failed: {exc}")
                return
            finally:
                if lease:
                    kill_uid(lease.uid)

    @staticmethod
    def _not_run(nb, indices, outcomes, reason) -> None:
        for index in indices:
            outcome = outcomes.setdefault(index, CellOutcome())
            if not outcome.error:
                outcome.error = reason

    @staticmethod
    def _run_hidden(client, source: str, timeout: int) -> None:
        """Run code in the kernel outside the notebook (setup, replay); its outputs are dropped."""
        cell = nbformat.v4.new_code_cell(source)
        client.timeout = timeout
        client.nb.cells.append(cell)  # nbclient addresses cells by index: give it a real one
        try:
            client.execute_cell(cell, len(client.nb.cells) - 1, store_history=False)
        finally:
            client.nb.cells.pop()

    # -- verdicts
    def _apply_verdicts(self, nb, outcomes, calls, scratch: Path, report) -> None:
        for index, cell in enumerate(nb.cells):
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade", False):
                continue
            outcome = outcomes.setdefault(index, CellOutcome(error="not run"))
            reason = outcome.error
            if reason is None:
                if not outcome.ran:
                    reason = "not run"
                for call in calls.get(index, []):
                    if reason:
                        break
                    outputs = self._probe_outputs(scratch, call)
                    reason = outputs if isinstance(outputs, str) else judge(call.module, call.name, outputs)
            outcome.passed, outcome.reason = reason is None, reason or ""
            kept = [o for o in cell.outputs
                    if o.output_type in ("stream", "display_data") and o.get("name") != "stderr"]
            if outcome.passed:
                note = ("Tests passed" + (f" ({len(calls.get(index, []))} hidden check(s), judged by the grader "
                                          "outside your kernel)" if calls.get(index) else "") + ".\n")
                cell.outputs = kept + [nbformat.v4.new_output("stream", name="stdout", text=note)]
            else:
                cell.outputs = kept + [nbformat.v4.new_output(
                    "error", ename="TestFailed", evalue=reason.splitlines()[0] if reason else "",
                    traceback=["Test failed (decided by the grader, outside your kernel):", *reason.splitlines()])]
            report["cells"][meta.get("grade_id", str(index))] = {
                "passed": outcome.passed, "points": meta.get("points", 0), "reason": outcome.reason,
                "checks": [c.name for c in calls.get(index, [])]}

    @staticmethod
    def _probe_outputs(scratch: Path, call: CheckCall):
        """The outputs a probe wrote, or a string saying why there are none."""
        missing = (f"no test data came back for {call.name}: the hidden check did not run to completion "
                   "(the cell was skipped or altered while it ran)")
        try:
            text = read_from_sandbox(scratch, f"{call.nonce}.json", MAX_PROBE_BYTES)
            if text is None:
                return missing
            data = json.loads(text)
        except (OSError, ValueError) as exc:
            return f"the test data for {call.name} is unreadable ({type(exc).__name__})"
        if not isinstance(data, dict) or data.get("nonce") != call.nonce or "outputs" not in data:
            return f"the test data for {call.name} is not what the grader asked for"
        return data["outputs"]

    @staticmethod
    def _audit_flags(scratch: Path, report) -> None:
        try:
            text = read_from_sandbox(scratch, "audit.log", 200_000, truncate=True)
            if text is not None:
                paths = []
                for line in text.splitlines():
                    try:
                        paths.append(json.loads(line)["path"])
                    except (ValueError, KeyError, TypeError):
                        continue
                for path in sorted(set(paths))[:20]:
                    report["flags"].append(f"tried to access a grader path: {path}")
        except OSError:
            pass

    def _write_report(self, report) -> None:
        if not self.report_directory:
            return
        target = Path(self.report_directory) / str(report["assignment"]) / str(report["student"])
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{report['notebook']}.json").write_text(json.dumps(report, indent=1))


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


ANSI = re.compile(r"\x1b\[[0-9;]*m")
ARROW = re.compile(r"^\s*-+>\s*\d+\s+(.*)$")


def error_reason(error) -> str:
    """`Name: message` of an error output, plus the failing line when the message is empty."""
    reason = f"{error.get('ename', 'Error')}: {error.get('evalue', '')}".strip()
    lines = [ANSI.sub("", line) for frame in error.get("traceback", []) for line in str(frame).splitlines()]
    failing = [m.group(1) for m in map(ARROW.match, lines) if m]
    if failing:
        reason += f" (in: {failing[-1].strip()[:200]})"
    return reason


def _cell_name(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or cell.source.strip().splitlines()[0][:40]
