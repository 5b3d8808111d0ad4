"""A warm numba cache for sandboxed kernels.

The Azul engine, its features and the greedy agent are numba functions compiled on first use
(``cache=True``). A sandboxed kernel cannot write next to the read-only sources, so it compiles
into its own ``NUMBA_CACHE_DIR`` in the scratch folder: 15-45 s of compilation per graded Azul
submission. Instead the grader compiles once, in a sandbox of its own (numba's cache is keyed by
the sources' paths as the sandbox sees them, /opt/course/...), into
``~/.cache/azcourse-grader/numba-<key>/`` (``key`` follows the course modules and the numba and
Python versions), and every sandbox starts with a private copy of it, so a submission can spoil
only its own copy.

    python -m autograder.numba_cache     # build (or find) the cache and print its folder
"""
import hashlib
import inspect
import shutil
import sys
import tempfile
from pathlib import Path

from . import isolation

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
SOURCES = ("Azul_Simulator.py", "azcourse/azul/features.py", "azcourse/azul/heuristics.py",
           "azcourse/azul/agents.py")


def cache_key() -> str:
    import numba
    digest = hashlib.sha256(f"{sys.version}|{numba.__version__}".encode())
    for name in SOURCES:
        path = REPO_ROOT / name
        digest.update(name.encode() + path.read_bytes() + str(path.stat().st_mtime_ns).encode())
    return digest.hexdigest()[:16]


def exercise() -> None:
    """Call every numba function a notebook reaches: games between the greedy and the random
    agent, feature encoding, move codes and the trained models' policy."""
    import numpy as np

    import Azul_Simulator as az
    from azcourse.azul import features
    from azcourse.azul.checkpoints import load_agent
    from azcourse.azul.agents import greedy_agent, random_agent

    model = load_agent("azul_baseline")
    for game in range(2):
        rng = np.random.default_rng(game)
        board = az.init_board(rng)
        az.take_action_from_string(board, "9Z9", rng)
        while not az.get_reward(board)[1]:
            mask = az.get_valid_mask(board)
            features.encode(board)
            features.encode_replies(board)  # azul_strong's encoding (the game azul_replies)
            if mask[az.NOOP]:
                action = az.NOOP
            else:
                action = (greedy_agent, random_agent, model)[az.current_seat(board) + game](board, rng)
                az.illegal_reason(board, action)
            board = az.get_next_state(board, action, rng)
        features.encode_batch(np.stack([board, az.flip_board(board)]))
        az.tile_census(board)


def warm_cache_dir() -> Path:
    """The folder of a complete warm cache for the current sources (built on first call)."""
    root = Path(isolation.private_cache_root())
    target = root / f"numba-{cache_key()}"
    if target.is_dir():
        return target
    work = Path(tempfile.mkdtemp(prefix="building-numba-", dir=root))
    try:
        (work / "scratch").mkdir()
        (work / "lib").mkdir()
        code = inspect.getsource(exercise) + "\nexercise()\n"
        with isolation.Slot() as slot:
            sandbox = isolation.Sandbox(work / "scratch", work / "lib", slot, isolation.Limits())
            done = sandbox.run([sandbox.python, "-c", code], timeout=600,
                               env={"NUMBA_CACHE_DIR": f"{isolation.SCRATCH_INSIDE}/numba"})
        if done.returncode != 0:
            raise RuntimeError(f"building the numba cache failed:\n{done.stderr[-2000:]}")
        (work / "scratch" / "numba").rename(target)  # atomic: a parallel grader either wins or finds it there
    except OSError:
        if not target.is_dir():
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def uses_numba(nb) -> bool:
    """Whether a notebook imports the Azul engine or models (the numba code)."""
    return any(cell.cell_type == "code" and ("Azul_Simulator" in cell.source or "azcourse.azul" in cell.source)
               for cell in nb.cells)


def seed(cache_home: Path, sandbox=None) -> None:
    """Copy the warm cache to ``cache_home/numba`` (a sandbox's NUMBA_CACHE_DIR), owned by the
    sandbox's uid when there is one."""
    shutil.copytree(warm_cache_dir(), cache_home / "numba")
    if sandbox is not None:
        for path in [cache_home, *cache_home.rglob("*")]:
            sandbox.hand_over(path)


if __name__ == "__main__":
    print(warm_cache_dir())
