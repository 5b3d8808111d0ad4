"""Azul training pipeline: a one-iteration tiny-config run (warm start + one expert iteration) with
asserted parameter count and policy/value shapes, its outputs (checkpoint, card, log, plot) and resume."""
import dataclasses
import json

import numpy as np
import pytest

import Azul_Simulator as az
from azcourse.azul import checkpoints, features, network, train


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("azul_tiny")
    config = dataclasses.replace(train.CONFIGS["tiny"], out_dir=str(root / "ckpt"),
                                 run_dir=str(root / "run"), progress=False)
    params = train.train(config, resume=False, log=lambda *_: None)
    return config, params, root


def test_tiny_run_parameter_count_and_shapes(tiny_run):
    config, params, _ = tiny_run
    assert config.hidden == (16,)
    # (1499 + 1) * 16 + (16 + 1) * 181 + (16 + 1) * 1 + (6 + 1) (action head)
    assert network.param_count(params) == 27101 == network.expected_param_count((16,))
    assert set(params) == {"hidden_0", "policy_head", "value_head", "action_head"}
    module = network.make_module(config.hidden)
    x = features.encode_batch(np.stack([az.init_board(np.random.default_rng(s)) for s in range(3)]))
    logits, value = module.apply({"params": params}, x)
    assert logits.shape == (3, az.ACTION_DIM) and value.shape == (3,)
    assert np.all(np.abs(np.asarray(value)) <= 1)
    # the numpy copy computes the same thing
    np_logits, np_value = network.NumpyAzulNet(params).forward(x)
    np.testing.assert_allclose(np_logits, np.asarray(logits), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np_value, np.asarray(value), rtol=1e-4, atol=1e-4)


def test_tiny_run_writes_checkpoint_card_log(tiny_run):
    config, params, root = tiny_run
    ckpt = root / "ckpt"
    loaded = checkpoints.load_params(ckpt)
    for layer in params:
        for leaf in ("kernel", "bias"):
            np.testing.assert_array_equal(loaded[layer][leaf], params[layer][leaf])
    card = json.loads((ckpt / "card.json").read_text())
    assert card["architecture"]["hidden"] == [16]
    assert card["architecture"]["param_count"] == 27101
    assert card["training"]["iterations_done"] == 2
    rows = [json.loads(line) for line in (ckpt / "train_log.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["warm", "search"]
    assert all(0 <= r["win_vs_greedy"] <= 1 and r["elapsed_s"] > 0 for r in rows)
    figure = train.plot_log([ckpt / "train_log.jsonl"], root / "plot.png")
    assert figure.exists() and figure.stat().st_size > 1000


def test_resume_continues_from_saved_iteration(tiny_run):
    config, _, root = tiny_run
    messages = []
    more = dataclasses.replace(config, iterations=2, dagger_from=2)  # and exercise DAgger games
    train.train(more, resume=True, log=messages.append)
    assert messages[0].startswith("resumed azul_tiny at iteration 2")
    rows = [json.loads(r) for r in (root / "ckpt" / "train_log.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    assert rows[-1]["phase"] == "dagger" and rows[-1]["positions"] > 0


def test_a_finished_run_ships_again_with_a_new_averaging_window(tiny_run):
    """Running a finished run again trains nothing and rewrites the shipped weights from the
    per-iteration snapshots: here the mean of iterations 1-2 instead of the last weights."""
    config, _, root = tiny_run
    finished = dataclasses.replace(config, iterations=2, dagger_from=2, average_from=1)
    log_before = (root / "ckpt" / "train_log.jsonl").read_text()
    messages = []
    train.train(finished, resume=True, log=messages.append)
    assert messages[-1] == "azul_tiny had finished; shipped weights and card written again"
    assert (root / "ckpt" / "train_log.jsonl").read_text() == log_before
    snapshots = [checkpoints.load_params(root / "run" / f"iter_{i}.msgpack") for i in (1, 2)]
    shipped = checkpoints.load_params(root / "ckpt")
    np.testing.assert_allclose(shipped["hidden_0"]["kernel"],
                               (snapshots[0]["hidden_0"]["kernel"] + snapshots[1]["hidden_0"]["kernel"]) / 2,
                               rtol=1e-6, atol=1e-7)
    assert not np.array_equal(shipped["hidden_0"]["kernel"], snapshots[1]["hidden_0"]["kernel"])
    card = json.loads((root / "ckpt" / "card.json").read_text())
    assert card["training"]["shipped_weights"].startswith("mean of the weights after iterations 1-2")
    assert "out_dir" not in card["training"]["config"] and "run_dir" not in card["training"]["config"]


def test_value_targets_follow_each_seat():
    rng = np.random.default_rng(0)
    board = az.init_board(rng)
    while not board[az.GAME_OVER]:
        legal = np.flatnonzero(az.get_valid_mask(board))
        board = az.get_next_state(board, int(rng.choice(legal)), rng)
    s = az.AzulState.decode(board)
    from azcourse.azul.selfplay import value_targets
    z = value_targets(board, [0, 1])
    diff = s.by_seat(0).score - s.by_seat(1).score
    assert z[0] == pytest.approx(-z[1])
    if diff:
        assert np.sign(z[0]) == np.sign(diff)
