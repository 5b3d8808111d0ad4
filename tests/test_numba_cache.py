"""The warm numba cache that every sandboxed kernel starts with (autograder/numba_cache.py)."""
import json
import os
import subprocess
import sys

import pytest

from autograder import numba_cache

COUNT_MISSES = """
import json, numba
from autograder.numba_cache import exercise
exercise()
import Azul_Simulator, azcourse.azul.features, azcourse.azul.heuristics, azcourse.azul_agents
hits = misses = 0
for module in (Azul_Simulator, azcourse.azul.features, azcourse.azul.heuristics, azcourse.azul_agents):
    for value in vars(module).values():
        if isinstance(value, numba.core.registry.CPUDispatcher) and value.signatures:
            hits += sum(value.stats.cache_hits.values())
            misses += sum(value.stats.cache_misses.values())
print(json.dumps({"hits": hits, "misses": misses}))
"""


def _compile_stats(cache_dir) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": str(numba_cache.REPO_ROOT)}
    result = subprocess.run([sys.executable, "-c", COUNT_MISSES], env=env, capture_output=True, text=True,
                            timeout=600, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_seeded_cache_spares_every_compilation(tmp_path):
    numba_cache.seed(tmp_path / ".cache")
    stats = _compile_stats(tmp_path / ".cache" / "numba")
    assert stats["hits"] > 10 and stats["misses"] == 0, stats


def test_an_empty_cache_compiles(tmp_path):
    """The counter above can see compilation: without the seed every function is a miss."""
    stats = _compile_stats(tmp_path / "empty")
    assert stats["misses"] > 10 and stats["hits"] == 0, stats


def test_only_notebooks_that_use_the_engine_get_the_cache():
    import nbformat
    uses = {name: numba_cache.uses_numba(nbformat.read(numba_cache.REPO_ROOT / "assignments" / name / f"{name}.ipynb",
                                                       as_version=4))
            for name in ("ttt1_mcts", "ttt2_selfplay", "azul3_play")}
    assert uses == {"ttt1_mcts": False, "ttt2_selfplay": False, "azul3_play": True}


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


@pytest.mark.skipif(os.geteuid() != 0, reason="handing files to another uid needs root")
def test_the_sandbox_user_owns_its_copy(tmp_path):
    numba_cache.seed(tmp_path / ".cache", uid=61063)
    paths = [tmp_path / ".cache", *(tmp_path / ".cache").rglob("*")]
    assert len(paths) > 5 and all(path.lstat().st_uid == 61063 for path in paths)
