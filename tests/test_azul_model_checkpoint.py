"""Azul checkpoints: the msgpack round trip (our reader equals Flax's), load time, cards, and
agents made from a checkpoint in one call playing legal moves."""
import json
import time

import numpy as np
import pytest

import Azul_Simulator as az
from azcourse.azul import checkpoints, network
from azcourse.azul.game import Azul
from azcourse.core.arena import FunctionAgent, game_generators, play_game


def _fake_params(hidden=(8, 4), seed=0):
    rng = np.random.default_rng(seed)
    widths = [network.features.FEATURE_DIM, *hidden]
    params = {f"hidden_{i}": {"kernel": rng.normal(size=(a, b)).astype(np.float32),
                              "bias": rng.normal(size=b).astype(np.float32)}
              for i, (a, b) in enumerate(zip(widths[:-1], widths[1:]))}
    params["policy_head"] = {"kernel": rng.normal(size=(widths[-1], 181)).astype(np.float32),
                             "bias": np.zeros(181, np.float32)}
    params["value_head"] = {"kernel": rng.normal(size=(widths[-1], 1)).astype(np.float32),
                            "bias": np.zeros(1, np.float32)}
    params["action_head"] = {"kernel": rng.normal(size=(network.features.ACTION_FEATURES, 1)).astype(np.float32),
                             "bias": np.zeros(1, np.float32)}
    return params


def test_round_trip_and_flax_compatibility(tmp_path):
    from flax import serialization
    params = _fake_params()
    checkpoints.save_params(tmp_path, params, {"architecture": {"hidden": [8, 4]}})
    ours = checkpoints.load_params(tmp_path)
    flax_restored = serialization.msgpack_restore((tmp_path / "params.msgpack").read_bytes())
    for layer in params:
        for leaf in ("kernel", "bias"):
            np.testing.assert_array_equal(ours[layer][leaf], params[layer][leaf])
            np.testing.assert_array_equal(np.asarray(flax_restored[layer][leaf]), params[layer][leaf])
            assert ours[layer][leaf].dtype == np.float32
    assert json.loads((tmp_path / "card.json").read_text())["architecture"]["hidden"] == [8, 4]
    assert network.param_count(ours) == network.expected_param_count((8, 4))


@pytest.mark.parametrize("search", [False, True])
def test_agent_from_checkpoint_plays_legal_moves(tmp_path, search):
    checkpoints.save_params(tmp_path, _fake_params())
    agent = (checkpoints.load_agent(tmp_path, simulations=8) if search
             else checkpoints.load_agent(tmp_path))
    chance_rng, agent_rng = game_generators(3, 0, paired_deals=True)
    player = FunctionAgent(agent, agent_rng)
    record, _ = play_game(Azul(), (player, player), chance_rng)  # raises on any illegal move
    assert sum(record.moves) > 20 and min(record.scores) >= 0


SHIPPED = checkpoints.available_models()


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_checkpoint_loads_fast_and_has_a_card(name):
    start = time.perf_counter()
    agent = checkpoints.load_agent(name)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, f"loading {name} took {elapsed:.2f} s (target <= 2 s)"
    card = checkpoints.read_card(name)
    assert card["architecture"]["param_count"] == network.param_count(checkpoints.load_params(name))
    assert (checkpoints.model_dir(name) / "params.msgpack").stat().st_size < 5_000_000
    rng = np.random.default_rng(0)
    board = az.init_board(rng)
    action = agent(board, rng)
    assert az.get_valid_mask(board)[action]


def test_model_names():
    assert checkpoints.model_dir("strong").name == "azul_strong"
    assert checkpoints.model_dir("azul_baseline").name == "azul_baseline"


def test_record_arena_writes_into_the_card(tmp_path):
    checkpoints.save_params(tmp_path, _fake_params(), {"name": "x"})
    summary = {"agent_a": "x", "agent_b": "greedy", "games": 10, "seed": 0, "wins": 6, "draws": 0,
               "losses": 4, "win_rate": 0.6, "win_rate_ci95": [0.31, 0.83], "mean_score_a": 50.0,
               "mean_score_b": 45.0, "mean_score_diff": 5.0}
    checkpoints.record_arena(tmp_path, summary)
    card = checkpoints.read_card(tmp_path)
    assert card["name"] == "x" and card["arena"]["x vs greedy"]["wins"] == 6


@pytest.mark.skipif("azul_strong" not in SHIPPED, reason="no shipped azul_strong checkpoint")
def test_model_agents_registry_entries():
    assert set(checkpoints.MODEL_AGENTS) == {"baseline", "strong", "strong+search"}
    search_agent = checkpoints.MODEL_AGENTS["strong+search"]()
    assert search_agent.config.simulations == checkpoints.DEFAULT_SIMULATIONS
    assert search_agent.config.time_limit == checkpoints.DEFAULT_TIME_LIMIT
