"""The JAX compilation cache of the sandboxes (autograder/jax_cache.py): built by the grader alone,
read-only in every kernel, and what the hidden tests compile is loaded from it."""
import hashlib
import json
import os
import stat

import nbformat
import pytest

from autograder import corpus, isolation, jax_cache, sandbox
from autograder.probes import build_probe_library
from autograder.testcells import CheckCall

# Counts, in a kernel, the XLA programs JAX needed and those it loaded from the persistent cache.
COUNT = """
import jax.monitoring
_jax_counts = {"programs": 0, "loaded": 0}
def _count_loaded(event, **kwargs):
    _jax_counts["loaded"] += event == "/jax/compilation_cache/cache_hits"
def _count_programs(event, duration, **kwargs):
    _jax_counts["programs"] += event == "/jax/core/compile/backend_compile_duration"
jax.monitoring.register_event_listener(_count_loaded)
jax.monitoring.register_event_duration_secs_listener(_count_programs)
"""
REFERENCE = "import jax, jax.numpy as jnp\nprint(float(jax.jit(lambda a: jnp.sin(a).sum() * 3)(jnp.arange(5.0))))\n"
HOSTILE = """
import os, jax, jax.numpy as jnp
entry = sorted(os.listdir("/opt/jaxcache"))[0]
tries = {"create": lambda: open("/opt/jaxcache/planted-cache", "wb").write(b"native code"),
         "overwrite": lambda: open(f"/opt/jaxcache/{entry}", "r+b").write(b"native code"),
         "delete": lambda: os.remove(f"/opt/jaxcache/{entry}"),
         "rename": lambda: os.rename(f"/opt/jaxcache/{entry}", "/opt/jaxcache/renamed-cache"),
         "chmod": lambda: os.chmod("/opt/jaxcache", 0o777),
         "mkdir": lambda: os.mkdir("/opt/jaxcache/sub")}
failed = {}
for name, action in tries.items():
    try:
        action()
    except OSError as exc:
        failed[name] = exc.strerror
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)  # JAX itself tries to write
jax.jit(lambda a: a * 7 - 1)(jnp.arange(11.0)).block_until_ready()
print(json.dumps({"failed": failed, "read_only": bool(os.statvfs("/opt/jaxcache").f_flag & os.ST_RDONLY)}))
"""
LISTING = """
import hashlib, os, jax
print(json.dumps({name: hashlib.sha256(open(f"/opt/jaxcache/{name}", "rb").read()).hexdigest()
                  for name in os.listdir("/opt/jaxcache")}))
"""


def _grade(tmp_path, name: str, *sources: str):
    """Grade a notebook of these code cells as a JAX submission; its cells' outputs."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in ("import json", *sources)])
    executed, _ = sandbox.SandboxExecute().preprocess(nb, {"nbgrader": {"student": name, "assignment": "jax",
                                                                         "notebook": name}})
    return [cell.outputs for cell in executed.cells]


def _printed(outputs) -> dict:
    return json.loads(next(o.text for o in outputs if o.output_type == "stream" and o.name == "stdout"))


def _snapshot(folder) -> dict:
    """Every entry of a folder: its bytes' hash, size, times, mode and owner."""
    return {path.name: (hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir",
                        *(getattr(path.lstat(), k) for k in ("st_size", "st_mtime_ns", "st_mode", "st_uid")))
            for path in [folder, *folder.iterdir()]}


@pytest.fixture
def tiny_cache(tmp_path, monkeypatch):
    """Where the grader's cache goes, at a fresh place; the reference it is filled from is one tiny
    JAX notebook (the real ones take minutes)."""
    reference = tmp_path / "tiny" / "tiny.ipynb"
    reference.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(REFERENCE)]), reference)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    monkeypatch.setattr(jax_cache, "reference_notebooks", lambda: [reference])
    monkeypatch.setattr(jax_cache, "cache_dir", lambda: private / "jax-test")
    return private / "jax-test"


def test_grading_with_a_cold_cache_builds_it_then_loads_from_it(tmp_path, tiny_cache):
    outputs = _grade(tmp_path, "cold", COUNT, REFERENCE, "print(json.dumps(_jax_counts))")
    counts = _printed(outputs[-1])
    assert counts["loaded"] == counts["programs"] >= 1  # the reference's programs, from the cache
    assert not [o for cell in outputs for o in cell if o.output_type == "error" or o.get("name") == "stderr"]
    entries = list(tiny_cache.iterdir())
    assert entries and all(path.is_file() for path in entries)
    for path in [tiny_cache, *entries]:  # the grader's, readable by the sandbox's uid, writable by nobody else
        info = path.lstat()
        assert info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == (0o755 if path == tiny_cache else 0o644)


def test_a_program_missing_from_the_cache_is_compiled_without_a_warning(tmp_path, tiny_cache):
    outputs = _grade(tmp_path, "new", COUNT, "import jax.numpy as jnp\njax.jit(lambda a: a @ a.T)(jnp.ones((3, 4)))",
                     "print(json.dumps(_jax_counts))")
    counts = _printed(outputs[-1])
    assert counts["loaded"] < counts["programs"]
    assert not [o for cell in outputs for o in cell if o.output_type == "error" or o.get("name") == "stderr"]


def test_a_kernel_cannot_write_the_cache_so_the_next_reads_the_graders(tmp_path, tiny_cache):
    sandbox.warm_jax_cache()
    before = _snapshot(tiny_cache)
    outputs = _grade(tmp_path, "hostile", HOSTILE)
    tried = _printed(outputs[1])
    assert tried["read_only"] and set(tried["failed"]) == {"create", "overwrite", "delete", "rename", "chmod", "mkdir"}
    assert "Error writing persistent compilation cache entry" in "".join(
        o.text for o in outputs[1] if o.get("name") == "stderr")  # JAX tried, in the student's own output
    assert _snapshot(tiny_cache) == before
    seen = _printed(_grade(tmp_path, "next", LISTING)[1])
    assert seen == {name: digest for name, (digest, *_) in before.items() if name != tiny_cache.name}


def test_the_key_follows_the_sources_and_the_kernels_environment(tmp_path, monkeypatch):
    before = jax_cache.cache_key()
    copy = tmp_path / "repo"
    for pattern in jax_cache.SOURCES:
        for path in jax_cache.REPO_ROOT.glob(pattern):
            target = copy / path.relative_to(jax_cache.REPO_ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    monkeypatch.setattr(jax_cache, "REPO_ROOT", copy)
    copied = jax_cache.cache_key()
    probes = copy / "autograder" / "assignments" / "hex4_onpolicy" / "probes.py"
    probes.write_text(probes.read_text() + "\n# changed\n")
    changed = jax_cache.cache_key()
    env = isolation.sandbox_env
    monkeypatch.setattr(isolation, "sandbox_env", lambda extra=None: {**env(extra), "XLA_FLAGS": "--xla_cpu_fast_math"})
    assert len({before, copied, changed, jax_cache.cache_key()}) == 3 and before == copied


def test_only_jax_notebooks_get_the_cache():
    assert [path.parent.name for path in jax_cache.reference_notebooks()] == ["hex4_onpolicy", "tak6_alphazero", "ttt2_selfplay"]


@pytest.mark.slow
def test_what_part_4s_hidden_tests_compile_is_all_in_the_cache(tmp_path):
    """The policy_loss and train_step probes on the reference answers, in a kernel like a graded one:
    with the grader's cache every program is loaded; without it, the same programs are compiled."""
    answers = corpus.source_solutions("hex4_onpolicy")
    script = COUNT + "import json\nimport numpy as np\nimport jax.numpy as jnp\n" + answers["policy_loss"] + "\n" + \
        answers["train_step"] + """
from _agprobe import _runtime
from _agprobe.assignments.hex4_onpolicy import probes
for name, fn in (("policy_loss", policy_loss), ("train_step", train_step)):
    getattr(probes, f"probe_{name}")(fn, _runtime.load_cases("hex4_onpolicy", name))
print(json.dumps(_jax_counts))
"""
    cache = sandbox.warm_jax_cache()
    counts = []
    for folder in (cache, None):
        work = tmp_path / ("warm" if folder else "none")
        (work / "scratch").mkdir(parents=True)
        build_probe_library(work / "lib", [CheckCall("hex4_onpolicy", "policy_loss"),
                                           CheckCall("hex4_onpolicy", "train_step")])
        with isolation.Slot() as slot:
            box = isolation.Sandbox(work / "scratch", work / "lib", slot, isolation.Limits(), folder)
            done = box.run([box.python, "-c", script], timeout=600, env=jax_cache.kernel_env() if folder else None)
        assert done.returncode == 0 and not done.stderr.strip(), done.stderr[-2000:]
        counts.append(json.loads(done.stdout.strip().splitlines()[-1]))
    with_cache, without = counts
    assert with_cache["programs"] == without["programs"] > 50
    assert with_cache["loaded"] == with_cache["programs"] and without["loaded"] == 0
