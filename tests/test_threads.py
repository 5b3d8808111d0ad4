"""numpy's BLAS on one thread in the pack's search processes (azcourse.core.threads)."""
import concurrent.futures
import contextlib
import multiprocessing
import os

from azcourse.core import arena, threads
from azcourse.core.agents import RandomAgent
from azcourse.tictactoe.game import TicTacToe


def test_spawned_children_get_one_thread_and_the_parent_keeps_its_environment(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    with threads.one_thread_children():
        pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        seen = {key: pool.submit(os.getenv, key).result() for key in threads.ONE_THREAD}
    with pool:
        later = pool.submit(os.getenv, "OPENBLAS_NUM_THREADS").result()
    assert seen == threads.ONE_THREAD and later == "1"  # the child keeps what it started with
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4" and "MKL_NUM_THREADS" not in os.environ


def test_an_entry_point_keeps_a_thread_count_the_user_chose(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(key, raising=False)
    threads.use_one_thread()
    assert [os.environ[key] for key in threads.ONE_THREAD] == ["3", "1", "1"]


def random_agent(rng):
    return RandomAgent(TicTacToe(), rng)


def test_a_match_starts_its_worker_processes_with_one_thread(monkeypatch):
    entered = []

    @contextlib.contextmanager
    def recording():
        with threads.one_thread_children():
            entered.append(os.environ["OPENBLAS_NUM_THREADS"])
            yield

    monkeypatch.setattr(arena, "one_thread_children", recording)
    arena.play_match(TicTacToe, random_agent, random_agent, games=2, seed=0, workers=1, progress=False)
    assert entered == []  # one process: nothing is started
    match = arena.play_match(TicTacToe, random_agent, random_agent, games=4, seed=0, workers=2, progress=False)
    assert entered == ["1"] and match.games == 4
