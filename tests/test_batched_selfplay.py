"""Batched self-play (``search_many``, ``play_games``), its worker pools, and a run on a two-node Ray cluster.

The stand-in network below computes its logits and value with integer arithmetic, so a position's
output does not depend on the batch it is evaluated in: with it, lockstep games must equal the games
played one at a time, exactly. The pools are compared with ``NumpyNet``, for the same shares of games.
"""
from __future__ import annotations

import csv

import numpy as np
import pytest

from azcourse.alphazero.checkpoints import PARAMS_FILE
from azcourse.alphazero.config import AlphaZeroConfig
from azcourse.alphazero.flax_net import init_params, jax_forward_many
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor
from azcourse.alphazero.selfplay import play_game, play_games
from azcourse.alphazero.train import TIMING_FIELDS, train
from azcourse.alphazero.workers import InProcessPool, ProcessPool, SelfPlayWorker, host_params, shares
from azcourse.core.evaluators import NetworkEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig, search_many
from azcourse.registry import make_game


class IntegerNet:
    """A deterministic stand-in network: integer weights on the 0/1 encoding, so every position's logits
    and value are exact whatever the batch. ``forward_many`` has ``NumpyNet.forward``'s signature."""

    def __init__(self, game, seed=0):
        rng = np.random.default_rng(seed)
        size = int(np.prod(game.encoding_shape))
        self.weights = rng.integers(-5, 6, size=(size, game.action_space_size + 1))

    def forward_many(self, x):
        raw = np.rint(np.asarray(x).reshape(len(x), -1)).astype(np.int64) @ self.weights
        return raw[:, :-1] / 4.0, np.tanh(raw[:, -1] / 8.0)

    def __call__(self, x):
        logits, values = self.forward_many(x[None])
        return logits[0], float(values[0])


def searches(game, net, seeds, simulations=24):
    """One PUCT search with root noise per seed, sharing one cached evaluator; and their generators."""
    predictor = Predictor(game, net, forward_many=net.forward_many)
    evaluator = NetworkEvaluator(predictor, predictor.predict_many)
    settings = MCTSConfig(simulations=simulations, tree_policy="puct", dirichlet_alpha=0.5)
    rngs = [np.random.default_rng(seed) for seed in seeds]
    return [MCTS(game, evaluator, settings, rng) for rng in rngs], rngs, evaluator


def same_games(a, b):
    assert len(a) == len(b)
    for one, two in zip(a, b):
        for name in ("x", "pi", "z", "returns"):
            np.testing.assert_array_equal(getattr(one, name), getattr(two, name), err_msg=name)


@pytest.mark.parametrize("name", ["tictactoe", "hex4", "othello6", "tak3"])
def test_a_batch_of_one_plays_the_game_of_todays_loop(name):
    game = make_game(name)
    net = IntegerNet(game)
    for seed in range(3):
        alone, rngs, _ = searches(game, net, [seed])
        expected = play_game(game, alone[0], 4, rngs[0])
        batched, rngs, evaluator = searches(game, net, [seed])
        same_games([expected], play_games(game, batched, 4, rngs, True, evaluator.many))


@pytest.mark.parametrize("name", ["tictactoe", "hex4", "othello6"])
@pytest.mark.parametrize("reuse_tree", [True, False])
def test_games_in_lockstep_are_the_games_played_one_at_a_time(name, reuse_tree):
    game, seeds = make_game(name), [11, 12, 13, 14, 15]
    net = IntegerNet(game, seed=1)
    expected = []
    for seed in seeds:
        alone, rngs, _ = searches(game, net, [seed])
        expected.append(play_game(game, alone[0], 3, rngs[0], reuse_tree))
    batched, rngs, evaluator = searches(game, net, seeds)
    played = play_games(game, batched, 3, rngs, reuse_tree, evaluator.many)
    same_games(expected, played)
    assert len({g.moves for g in played}) > 1 or name == "othello6"  # games of several lengths finished in turn


def test_search_many_evaluates_each_round_in_one_call_and_matches_search():
    game = make_game("hex4")
    net, calls = IntegerNet(game), []
    one, _, _ = searches(game, net, [3])
    expected = one[0].search(game.initial_state())
    many, _, evaluator = searches(game, net, [3, 4, 5])

    def counting(game_, leaves):
        calls.append(len(leaves))
        return evaluator.many(game_, leaves)
    results = search_many(many, [game.initial_state()] * 3, counting)
    np.testing.assert_array_equal(results[0].visits, expected.visits)
    assert max(calls) == 3 and len(calls) <= 24 + 1  # the root, then one leaf per search a round


def test_predict_many_equals_predict_and_evaluates_a_repeated_position_once():
    game = make_game("othello6")
    spec = NetSpec.for_game(game, (), (32,))
    net = NumpyNet(spec, init_params(spec, 0))
    batched, single = Predictor(game, net, forward_many=net.forward), Predictor(game, net)
    rng, states, state = np.random.default_rng(0), [], game.initial_state()
    for _ in range(12):
        states.append(state)
        state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    states += states[:4]
    out = batched.predict_many(states)
    assert batched.evaluations == 12
    for (prior, value), state in zip(out, states):
        p, v = single(state)
        np.testing.assert_allclose(prior, p, rtol=1e-5, atol=1e-7)
        assert value == pytest.approx(v, abs=1e-5)


def test_the_jitted_batched_forward_pads_and_agrees_with_numpy():
    game = make_game("othello6")
    spec = NetSpec.for_game(game, (8,), (16,))
    params = init_params(spec, 1)
    x = np.stack([game.encode(game.initial_state())] * 5).astype(np.float32)
    x[1:, 0] = 0.0
    logits, values = jax_forward_many(spec, params)(x)
    expected = NumpyNet(spec, params).forward(x)
    assert logits.shape == (5, spec.actions) and values.shape == (5,)
    np.testing.assert_allclose(logits, expected[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(values, expected[1], rtol=1e-4, atol=1e-5)


SMALL = dict(game="tictactoe", iterations=2, games_per_iteration=6, search=dict(simulations=12), temperature_moves=2,
             replay_positions=500, batch_size=16, train_steps=3, hidden=(16,), checkpoint_every=1,
             selfplay_batch=3, workers=2)


def test_shares_are_contiguous_and_cover_every_seed():
    assert shares(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert shares([1, 2], 4) == [[1], [2]]


def test_worker_processes_play_the_games_of_the_same_shares_in_this_process():
    config = AlphaZeroConfig(**SMALL)
    spec = NetSpec.for_game(make_game("tictactoe"), (), (16,))
    params, seeds = host_params(init_params(spec, 0)), [5, 6, 7, 8, 9]
    pool = ProcessPool(config.to_dict(), 2)
    try:
        played = pool.play(params, seeds)
    finally:
        pool.close()
    here = InProcessPool(config.to_dict())
    same_games([g for share in shares(seeds, 2) for g in here.play(params, share)], played)
    assert SelfPlayWorker(config.to_dict()).play(params, seeds[:1])[0].moves == played[0].moves


ORPHAN_SCRIPT = """
import sys
from azcourse.alphazero.config import AlphaZeroConfig
from azcourse.alphazero.workers import ProcessPool
pool = ProcessPool(AlphaZeroConfig(game="tictactoe").to_dict(), 2)
print(*pool.executor._processes, flush=True)
sys.stdin.read()
"""


def test_the_worker_processes_end_when_the_trainer_is_killed_outright():
    import os
    import signal
    import subprocess
    import sys
    import time

    trainer = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        workers = [int(pid) for pid in trainer.stdout.readline().split()]
        assert len(workers) == 2 and all(os.path.exists(f"/proc/{pid}") for pid in workers)
    finally:
        trainer.send_signal(signal.SIGKILL)
        trainer.wait()
    alive = lambda pid: os.path.exists(f"/proc/{pid}") and "zombie" not in open(f"/proc/{pid}/status").read()  # noqa: E731
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(pid) for pid in workers), "a worker outlived its trainer"


def log_rows(run_dir):
    with (run_dir / "log.csv").open() as f:
        return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in csv.DictReader(f)]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The SMALL run with self-play in two processes of this machine."""
    run_dir = tmp_path_factory.mktemp("local") / "run"
    train(AlphaZeroConfig(**SMALL), run_dir, show_progress=False)
    return run_dir


def test_a_batched_run_on_two_processes_logs_every_game_and_position(local_run):
    rows = log_rows(local_run)
    assert [int(r["games"]) for r in rows] == [6, 12]
    assert all(int(r["positions"]) >= 5 * 6 * (i + 1) for i, r in enumerate(rows))


def two_node_cluster(tries: int = 3):
    """A local Ray cluster of two nodes of one CPU each. Each node's raylet gives its agents a fixed 15 s
    to start (ray-project/ray#65983); on a loaded 2-core machine that can run out, so a start that times
    out is tried again, up to ``tries`` times in all."""
    from ray.cluster_utils import Cluster

    for attempt in range(tries):
        cluster = Cluster()
        try:
            cluster.add_node(num_cpus=1)
            cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            return cluster
        except Exception as problem:  # Ray raises a bare Exception for a node that did not start
            cluster.shutdown()
            if "timed out during startup" not in str(problem) or attempt == tries - 1:
                raise


@pytest.mark.slow
def test_a_run_on_a_two_node_ray_cluster_equals_the_local_run(local_run, tmp_path):
    """Two Ray nodes of one CPU each (``ray.cluster_utils.Cluster``): the two actors land one on each
    node and the run's games, positions, losses and checkpoints equal the local run's."""
    import ray

    cluster = two_node_cluster()
    try:
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        train(AlphaZeroConfig(**SMALL), tmp_path / "run", show_progress=False, ray_address=cluster.address)
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert log_rows(tmp_path / "run") == log_rows(local_run)
    for name in ("best", "checkpoints/iter_0001", "checkpoints/iter_0002"):
        assert (tmp_path / "run" / name / PARAMS_FILE).read_bytes() == (local_run / name / PARAMS_FILE).read_bytes()
