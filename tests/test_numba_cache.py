"""The warm numba cache that every sandboxed kernel starts with (autograder/numba_cache.py)."""
import inspect
import json
import os

import pytest

from autograder import build, isolation, numba_cache
from autograder.numba_cache import exercise

COUNT_MISSES = inspect.getsource(exercise) + """
import json, numba
exercise()
import Azul_Simulator, azcourse.azul.features, azcourse.azul.heuristics, azcourse.azul.agents
hits = misses = 0
for module in (Azul_Simulator, azcourse.azul.features, azcourse.azul.heuristics, azcourse.azul.agents):
    for value in vars(module).values():
        if isinstance(value, numba.core.registry.CPUDispatcher) and value.signatures:
            hits += sum(value.stats.cache_hits.values())
            misses += sum(value.stats.cache_misses.values())
print(json.dumps({"hits": hits, "misses": misses}))
"""


def _compile_stats(tmp_path, seeded: bool) -> dict:
    """Cache hits and misses of the engine's numba functions in a sandbox, as a kernel sees them."""
    (tmp_path / "scratch").mkdir()
    (tmp_path / "lib").mkdir()
    with isolation.Slot() as slot:
        sandbox = isolation.Sandbox(tmp_path / "scratch", tmp_path / "lib", slot, isolation.Limits())
        if seeded:
            numba_cache.seed(tmp_path / "scratch" / ".cache", sandbox)
        result = sandbox.run([sandbox.python, "-c", COUNT_MISSES], timeout=600, env=None)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_seeded_cache_spares_every_compilation(tmp_path):
    stats = _compile_stats(tmp_path, seeded=True)
    assert stats["hits"] > 10 and stats["misses"] == 0, stats


@pytest.mark.slow
def test_an_empty_cache_compiles(tmp_path):
    """The counter above can see compilation: without the seed every function is a miss."""
    stats = _compile_stats(tmp_path, seeded=False)
    assert stats["misses"] > 10 and stats["hits"] == 0, stats


def test_only_notebooks_that_use_the_engine_get_the_cache():
    import nbformat
    uses = {name: numba_cache.uses_numba(nbformat.read(numba_cache.REPO_ROOT / "assignments" / name / f"{name}.ipynb",
                                                       as_version=4))
            for name in build.ASSIGNMENTS}
    assert uses == {"ttt1_mcts": False, "ttt2_selfplay": False, "azul3_play": True, "hex4_onpolicy": False,
                    "othello5_planning": False,
                    "tak6_alphazero": False}


def test_the_key_follows_the_sources(tmp_path, monkeypatch):
    before = numba_cache.cache_key()
    copy = tmp_path / "repo"
    for name in numba_cache.SOURCES:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_bytes((numba_cache.REPO_ROOT / name).read_bytes())
    monkeypatch.setattr(numba_cache, "REPO_ROOT", copy)
    copied = numba_cache.cache_key()
    (copy / "Azul_Simulator.py").write_text((copy / "Azul_Simulator.py").read_text() + "\n# changed\n")
    assert len({before, copied, numba_cache.cache_key()}) == 3


def test_the_sandbox_owns_its_copy(tmp_path):
    """As root the copy belongs to the slot's uid; otherwise to the grader's user (uid 1000 inside)."""
    (tmp_path / "scratch").mkdir()
    with isolation.Slot() as slot:
        sandbox = isolation.Sandbox(tmp_path / "scratch", tmp_path, slot, isolation.Limits())
        numba_cache.seed(tmp_path / "scratch" / ".cache", sandbox)
        owner = slot.uid if slot.uid is not None else os.geteuid()
    paths = [tmp_path / "scratch" / ".cache", *(tmp_path / "scratch" / ".cache").rglob("*")]
    assert len(paths) > 5 and all(path.lstat().st_uid == owner for path in paths)
