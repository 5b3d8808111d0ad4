"""The grader's private cache: ``~/.cache/azcourse-grader/<key>/``.

The key hashes everything the graders derive data from (this package, the source notebooks,
the course modules), so a change to a check, a case generator or a reference solution starts
a fresh cache. The folder belongs to the grader's user alone (0700): a sandbox never sees it.
"""
import hashlib
import os
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent


def private_root() -> Path | None:
    """``~/.cache/azcourse-grader`` if it is (or can be made) private to this user, else None."""
    root = Path.home() / ".cache" / "azcourse-grader"
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = root.stat()
        if info.st_uid != os.geteuid() or info.st_mode & 0o077:
            return None
        return root
    except OSError:
        return None


@lru_cache(maxsize=1)
def cache_dir() -> Path | None:
    """The keyed cache folder of the current sources (None when no private folder can be had)."""
    digest = hashlib.sha256()
    inputs = [*PACKAGE_DIR.rglob("*.py"), *(REPO_ROOT / "assignments").glob("*/*.ipynb"),
              *(REPO_ROOT / "azcourse").rglob("*.py")]
    for path in sorted(inputs):
        digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0" + path.read_bytes())
    root = private_root()
    if root is None:
        return None
    target = root / digest.hexdigest()[:24]
    try:
        target.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return target


def cached(filename: str, compute, dump, load):
    """``load`` of the cached file, or ``compute()`` (then stored with ``dump``)."""
    folder = cache_dir()
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
