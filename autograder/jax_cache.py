"""A persistent JAX compilation cache for sandboxed kernels, written by the grader alone.

A JAX notebook's kernel spends most of its grading time in XLA, compiling again the programs that
every kernel before it compiled: the eager operations of the student's ``policy_loss`` and
``train_step`` for each shape of the hidden tests, the network's initialisation and training steps.
JAX can keep compiled programs in a folder (``JAX_COMPILATION_CACHE_DIR``) and load them instead
of compiling. A cache entry is native code that JAX runs, so a folder that one student's kernel can
write would let it run code in the next student's kernel. Hence:

- the grader fills the cache itself, once per version of the sources (``cache_key``), by grading
  the reference solution of every JAX assignment (its source notebook, hidden tests included) in a
  sandbox like a student's, whose /opt/jaxcache is writable (``sandbox.fill_jax_cache``): the same
  environment, XLA flags and mount point, so the same cache keys;
- the folder then belongs to the grader, in its private cache (``~/.cache/azcourse-grader``, 0700)
  as ``jax-<key>/``, and is never written again;
- every graded kernel of a JAX notebook gets it READ-ONLY at /opt/jaxcache, with JAX told never to
  write (an entry is written only when compiling took longer than ``NEVER`` seconds), so the
  read-only folder costs no warning in the student's output.

    python -m autograder build     # builds (or finds) the cache, after release/ and solutions/
"""
import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from . import isolation

REPO_ROOT = Path(__file__).resolve().parent.parent
# What decides the programs a kernel compiles: the notebooks (the reference solutions), the course
# modules they import, the probes and the cases they run on. (An entry is found only for the very
# program it was compiled from, so a key that missed a source would cost speed, never a grade.)
SOURCES = ("assignments/*/*.ipynb", "azcourse/**/*.py", "autograder/_probe_*.py", "autograder/assignments/*/probes.py",
           "autograder/assignments/*/checks.py", "autograder/assignments/*/cases.py")
NEVER = "1e9"  # seconds of compilation before a kernel's JAX would write an entry: never
PACKAGES = ("jax", "jaxlib", "flax", "optax", "numpy")
IMPORTS_JAX = re.compile(r"^\s*(?:from|import)\s+(?:[\w.]+\s*,\s*)*(?:jax|flax|optax)\b", re.MULTILINE)


def uses_jax(nb) -> bool:
    """Whether a notebook imports JAX, Flax or optax in a code cell."""
    return any(cell.cell_type == "code" and IMPORTS_JAX.search(cell.source) for cell in nb.cells)


def reference_notebooks() -> list[Path]:
    """The source notebooks (reference solutions and hidden tests) that use JAX."""
    return [path for path in sorted((REPO_ROOT / "assignments").glob("*/*.ipynb"))
            if uses_jax(nbformat.read(path, as_version=4))]


def kernel_env(writable: bool = False) -> dict:
    """JAX's settings in a sandboxed kernel: read the cache at /opt/jaxcache; write every program
    compiled into it only when `writable` (the grader's own runs of the reference)."""
    return {"JAX_COMPILATION_CACHE_DIR": isolation.JAX_CACHE_INSIDE,
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0" if writable else NEVER,
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1"}


def cache_key() -> str:
    """Follows the sources, the versions of Python and of the JAX stack, and the kernel's environment
    (XLA flags included): a change of any of them builds a new cache."""
    versions = {name: importlib.metadata.version(name) for name in PACKAGES}
    digest = hashlib.sha256(json.dumps([sys.version, versions, isolation.sandbox_env(kernel_env())],
                                       sort_keys=True).encode())
    for path in sorted({path for pattern in SOURCES for path in REPO_ROOT.glob(pattern)}):
        digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where the cache of the current sources lives (whether built or not)."""
    return Path(isolation.private_cache_root()) / f"jax-{cache_key()}"


def warm_cache_dir(fill) -> Path:
    """The folder of a complete cache for the current sources. When there is none yet, `fill(folder)`
    writes one into an empty folder (one grader builds it, parallel graders wait); it is then given
    to the grader's user, made read-only for everybody else, and moved into place in one step."""
    target = cache_dir()
    if target.is_dir():
        return target
    with open(target.parent / "jax-build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir():
            return target
        work = Path(tempfile.mkdtemp(prefix="building-jax-", dir=target.parent))
        try:
            fill(work)
            entries = list(work.rglob("*"))
            if not entries:
                raise RuntimeError("filling the JAX compilation cache wrote nothing")
            for path in [work, *entries]:  # a root grader's sandbox wrote them under a uid of its own
                if path.is_symlink() or not (path.is_dir() or path.is_file()):
                    raise RuntimeError(f"filling the JAX compilation cache left {path}, not a file")
                os.lchown(path, os.geteuid(), os.getegid())
                path.chmod(0o755 if path.is_dir() else 0o644)
            work.rename(target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target
