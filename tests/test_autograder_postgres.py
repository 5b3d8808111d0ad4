"""The gradebook in a real PostgreSQL server: parallel graders write into it, export reads it.

Starts a throw-away server (initdb in a temporary folder, run as `nobody`, Unix socket only, no
TCP). Skipped, with the reason, when the server binaries or the psycopg2 driver are missing, or
when not running as root (the grading sandbox needs root; `nobody` runs the server).
"""
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from autograder import corpus, pipeline


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(candidates[-1]) if candidates else None


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (the grading sandbox, and `nobody` to run the server)"
    if not (_pg_bin("initdb") and _pg_bin("pg_ctl")):
        return "PostgreSQL server binaries (Debian package `postgresql`) not installed"
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "the psycopg2 driver (`pip install psycopg2-binary`) is not installed"
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")]


@pytest.fixture(scope="module")
def postgres():
    base = Path(tempfile.mkdtemp(prefix="azcourse-pg-"))  # not under pytest's root-only folder: nobody runs it
    nobody = pwd.getpwnam("nobody")
    data, sockets = base / "data", base / "sockets"
    sockets.mkdir()
    for path in (base, sockets):
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    base.chmod(0o700)
    as_nobody = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "--"]
    env = {"PATH": os.environ["PATH"], "HOME": str(base), "LANG": "C.UTF-8"}
    subprocess.run(as_nobody + [_pg_bin("initdb"), "-D", str(data), "-U", "grader", "--auth=trust", "-E", "UTF8"],
                   check=True, env=env, capture_output=True)
    options = f"-k {sockets} -c listen_addresses='' -c max_connections=50"
    subprocess.run(as_nobody + [_pg_bin("pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w",
                                "start"], check=True, env=env, capture_output=True)
    try:
        subprocess.run(as_nobody + [_pg_bin("createdb") or "createdb", "-h", str(sockets), "-U", "grader",
                                    "azcourse_gradebook"], check=True, env=env, capture_output=True)
        yield f"postgresql+psycopg2://grader@/azcourse_gradebook?host={sockets}"
    finally:
        subprocess.run(as_nobody + [_pg_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], env=env,
                       capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def test_parallel_grading_into_postgresql(postgres, tmp_path):
    course = pipeline.Course.workspace(tmp_path / "ws", db_url=postgres)
    pipeline.build(course)
    assert not (tmp_path / "ws" / "gradebook.db").exists()  # everything went to the server
    cases = [c for c in corpus.all_cases() if c.name in ("full", "blank", "partial_action_prob")
             and c.assignment == "ttt1_mcts"]
    corpus.write_submissions(tmp_path / "incoming", cases, course)
    pipeline.collect(course, tmp_path / "incoming")
    results = pipeline.autograde(course, jobs=max(2, os.cpu_count() or 2))
    assert all(r["ok"] for r in results.values()), results
    rows = {r["student"]: r for r in pipeline.grade_rows(course) if r["notebook"] == "ttt1_mcts"}
    for case in cases:
        assert rows[case.student_id]["code_score"] == corpus.expected_score(case, course), case.name
    assert not (tmp_path / "ws" / "gradebook.db").exists()
