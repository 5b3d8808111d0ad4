"""The trainer's schedules: an annealed learning rate (``anneal_start``, ``learning_rate_final``) and the
average of the learner's networks in the checkpoints (``average_from``), both of which a run may gain when
it continues, as long as the iterations already done keep theirs.

Every run here is real training of seconds on 3x3 Hex.
"""
import csv
import math
from pathlib import Path

import jax
import numpy as np
import pytest
from flax import serialization

from azcourse.alphazero import learn
from azcourse.alphazero.checkpoints import PARAMS_FILE
from azcourse.alphazero.config import AlphaZeroConfig, ConfigError
from azcourse.alphazero.flax_net import init_params
from azcourse.alphazero.network import NetSpec
from azcourse.alphazero.train import TIMING_FIELDS, train
from azcourse.tictactoe.game import TicTacToe

TINY = dict(game="hex3", iterations=4, games_per_iteration=3, search=dict(simulations=8), temperature_moves=2,
            replay_positions=200, batch_size=16, train_steps=5, hidden=(16,), checkpoint_every=1,
            learning_rate=0.01)
# constant for two iterations, then annealed; the last two iterations averaged
SCHEDULED = dict(TINY, anneal_start=2, learning_rate_final=0.001, average_from=3)


def params_of(folder: Path) -> dict:
    return serialization.msgpack_restore((folder / PARAMS_FILE).read_bytes())


def log_rows(run_dir: Path) -> list[dict]:
    with (run_dir / "log.csv").open() as f:
        return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in csv.DictReader(f)]


def test_the_learning_rate_is_constant_until_anneal_start_then_falls_on_a_cosine_to_its_final_value():
    config = AlphaZeroConfig(iterations=10, learning_rate=1e-3, anneal_start=6, learning_rate_final=1e-4)
    rates = [config.learning_rate_at(i) for i in range(1, 11)]
    assert rates[:6] == [1e-3] * 6
    assert rates[7] == pytest.approx(1e-4 + 0.9e-3 * (1 + math.cos(math.pi / 2)) / 2)  # halfway: the mean
    assert rates[-1] == pytest.approx(1e-4) and all(a > b for a, b in zip(rates[5:], rates[6:]))
    assert {AlphaZeroConfig(iterations=10).learning_rate_at(i) for i in range(1, 11)} == {0.003}
    assert [config.averaged(i) for i in (1, 5)] == [False, False]
    assert [AlphaZeroConfig(average_from=3).averaged(i) for i in (2, 3, 9)] == [False, True, True]


@pytest.mark.parametrize("values, message", [
    (dict(anneal_start=5), "go together"),
    (dict(learning_rate_final=1e-4), "go together"),
    (dict(anneal_start=5, learning_rate_final=0.01, learning_rate=0.001), "between 0 and learning_rate"),
    (dict(average_from=-1), "average_from must be 0"),
    (dict(average_from=3, gate_games=4), "needs gate_games = 0"),
])
def test_schedules_out_of_range_are_refused(values, message):
    with pytest.raises(ConfigError, match=message):
        AlphaZeroConfig(**values)


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_a_scaled_step_is_the_step_of_the_scaled_learning_rate(optimizer):
    game = TicTacToe()
    spec = NetSpec.for_game(game, (), (16,))
    rng = np.random.default_rng(0)
    x = rng.random((3, 8, *spec.encoding_shape), dtype=np.float32)
    pi = rng.dirichlet(np.ones(spec.actions), (3, 8)).astype(np.float32)
    z = rng.choice([-1.0, 1.0], (3, 8)).astype(np.float32)
    params = init_params(spec, 0)
    tx, steps = learn.training_for(spec, optimizer, 0.01, 1.0, 1e-4)
    half_tx, half_steps = learn.training_for(spec, optimizer, 0.005, 1.0, 1e-4)
    scaled, _, _ = steps(params, tx.init(params), x, pi, z, None, 0.5)
    halved, _, _ = half_steps(params, half_tx.init(params), x, pi, z)
    full, _, _ = steps(params, tx.init(params), x, pi, z)
    for a, b, c in zip(jax.tree_util.tree_leaves(scaled), jax.tree_util.tree_leaves(halved),
                       jax.tree_util.tree_leaves(full)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    moved = lambda p: sum(float(np.abs(np.asarray(a) - np.asarray(b)).sum())  # noqa: E731
                          for a, b in zip(jax.tree_util.tree_leaves(p), jax.tree_util.tree_leaves(params)))
    assert 0 < moved(scaled) < 0.75 * moved(full)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The scheduled tiny run three ways: straight through; without the average (the learner's networks in
    its checkpoints); and two constant iterations first, then continued with the schedules added."""
    base = tmp_path_factory.mktemp("schedules")
    train(AlphaZeroConfig(**SCHEDULED), base / "straight", show_progress=False)
    train(AlphaZeroConfig(**dict(SCHEDULED, average_from=0)), base / "learner", show_progress=False)
    train(AlphaZeroConfig(**dict(TINY, iterations=2)), base / "staged", show_progress=False)
    train(AlphaZeroConfig(**SCHEDULED), base / "staged", show_progress=False)
    return base


def test_the_log_records_each_iteration_s_learning_rate(runs):
    rates = [float(row["learning_rate"]) for row in log_rows(runs / "straight")]
    config = AlphaZeroConfig(**SCHEDULED)
    assert rates == pytest.approx([config.learning_rate_at(i) for i in range(1, 5)], rel=1e-5)
    assert rates[0] == rates[1] == 0.01 and rates[3] == pytest.approx(0.001)


def test_the_checkpoints_hold_the_mean_of_the_learner_s_networks_from_average_from_on(runs):
    straight, learner = runs / "straight", runs / "learner"
    assert log_rows(straight) == log_rows(learner)  # self-play and training use the learner either way
    for name in ("iter_0001", "iter_0002"):
        assert (straight / "checkpoints" / name / PARAMS_FILE).read_bytes() == \
               (learner / "checkpoints" / name / PARAMS_FILE).read_bytes()
    third, fourth = params_of(learner / "checkpoints" / "iter_0003"), params_of(learner / "checkpoints" / "iter_0004")
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(lambda a, b: not np.array_equal(a, b), third, fourth))
    for averaged in (params_of(straight / "best"), params_of(straight / "checkpoints" / "iter_0004")):
        for got, a, b in zip(*(jax.tree_util.tree_leaves(t) for t in (averaged, third, fourth))):
            np.testing.assert_allclose(got, (a + b) / 2, rtol=1e-6, atol=1e-7)
    # the mean of one network is that network
    assert (straight / "checkpoints" / "iter_0003" / PARAMS_FILE).read_bytes() == \
           (learner / "checkpoints" / "iter_0003" / PARAMS_FILE).read_bytes()


def test_a_run_continued_with_schedules_added_is_the_run_of_its_final_config(runs):
    for name in ("best", *(f"checkpoints/iter_000{i}" for i in range(1, 5))):
        assert (runs / "straight" / name / PARAMS_FILE).read_bytes() == \
               (runs / "staged" / name / PARAMS_FILE).read_bytes(), name
    assert log_rows(runs / "straight") == log_rows(runs / "staged")


@pytest.mark.parametrize("change", [
    dict(iterations=6),  # stretches a cosine already under way
    dict(anneal_start=1),
    dict(average_from=2),
    dict(average_from=0),
])
def test_a_change_of_schedule_that_reaches_iterations_done_is_refused(runs, tmp_path, change):
    import shutil

    shutil.copytree(runs / "straight", tmp_path / "run")
    before = (tmp_path / "run" / "best" / PARAMS_FILE).read_bytes()
    with pytest.raises(ConfigError, match="has done 4 iterations"):
        train(AlphaZeroConfig(**dict(SCHEDULED, **change)), tmp_path / "run", show_progress=False)
    assert (tmp_path / "run" / "best" / PARAMS_FILE).read_bytes() == before
