"""The AlphaZero trainer (``azcourse.alphazero``): perfect tic-tac-toe from the shipped config, exact
resume, the loss terms, symmetries, checkpoints and agents, config refusals, and the game registry.

Every training here is real (Flax + optax on real self-play), on budgets of seconds; the
tic-tac-toe run of ``configs/tictactoe_az.toml`` is the one slow test (about 25 s on one core).
"""
import csv
import functools
import json
import pickle
from pathlib import Path

import jax
import numpy as np
import pytest

from azcourse.alphazero import learn
from azcourse.alphazero.__main__ import main
from azcourse.alphazero.agent import AlphaZeroAgent, load_agent
from azcourse.alphazero.checkpoints import PARAMS_FILE, load_checkpoint
from azcourse.alphazero.config import LEGACY_SEARCH_KEYS, AlphaZeroConfig, ConfigError, load_config, parse_override, to_toml
from azcourse.alphazero.flax_net import init_params, jax_forward, make_module
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor, param_count
from azcourse.alphazero.replay import ReplayWindow
from azcourse.alphazero.selfplay import augment, play_game
from azcourse.alphazero.train import LOG_FIELDS, TIMING_FIELDS, train
from azcourse.core.agents import make_agent
from azcourse.core.arena import play_match
from azcourse.core.evaluators import NetworkEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.hex.game import Hex, HexState
from azcourse.registry import UnknownGame, make_game
from azcourse.tictactoe.game import ONGOING, TicTacToe, TicTacToeState
from azcourse.tictactoe.perfect import PerfectAgent

ROOT = Path(__file__).resolve().parents[1]
TTT_CONFIG = ROOT / "configs" / "tictactoe_az.toml"
# a few seconds of real training on 3x3 Hex, with gating on so that the resume covers it too
TINY_HEX = dict(game="hex3", iterations=2, games_per_iteration=3, search=dict(simulations=8), temperature_moves=2,
                replay_positions=200, batch_size=16, train_steps=5, hidden=(16,), gate_games=2, gate_simulations=4,
                checkpoint_every=1)


def random_states(game, count, rng):
    """``count`` decision states reached by random play."""
    states = []
    while len(states) < count:
        state = game.initial_state(rng)
        for _ in range(int(rng.integers(0, 6))):
            child = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
            if game.is_terminal(child):
                break
            state = child
        states.append(state)
    return states


def log_rows(run_dir):
    with (Path(run_dir) / "log.csv").open() as f:
        return list(csv.DictReader(f))


# -- the end-to-end run: perfect tic-tac-toe ------------------------------------------------------------
@pytest.fixture(scope="module")
def ttt_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("ttt") / "run"
    train(load_config(TTT_CONFIG), run_dir, show_progress=False)
    return run_dir


def against_perfect(checkpoint, games=40):
    """``MatchSummary`` of the checkpoint's agent (100 simulations, greedy, subtree kept) against the
    minimax player, which draws among its optimal moves; seats alternate."""
    return play_match(TicTacToe, functools.partial(load_agent, checkpoint, simulations=100), PerfectAgent,
                      games=games, seed=11, progress=False)


@pytest.mark.slow
def test_shipped_config_reaches_perfect_play_against_minimax(ttt_run):
    trained = against_perfect(ttt_run / "best")
    assert trained.games == 40 and trained.losses == 0 and trained.draws == 40, trained.text()
    untrained = against_perfect(ttt_run / "checkpoints" / "iter_0000")
    assert untrained.losses >= 5, f"the same search with the untrained network should lose: {untrained.text()}"
    rows = log_rows(ttt_run)
    assert [int(r["iteration"]) for r in rows] == list(range(1, 11))
    assert float(rows[-1]["value_loss"]) < 0.5 * float(rows[0]["value_loss"])
    assert float(rows[-1]["policy_loss"]) < float(rows[0]["policy_loss"])


def test_shipped_checkpoint_is_the_config_run_and_never_loses_to_minimax():
    shipped = ROOT / "ckpts" / "tictactoe_az"
    assert load_config(shipped / "config.toml") == load_config(TTT_CONFIG)
    summary = play_match(TicTacToe, functools.partial(load_agent, "tictactoe_az", simulations=100), PerfectAgent,
                         games=20, seed=3, progress=False)
    assert summary.losses == 0 and summary.draws == 20, summary.text()


# -- exact resume (and gating) on 3x3 Hex ---------------------------------------------------------------
def interrupt_in_second_iteration(config, run_dir) -> None:
    """Train ``config`` in ``run_dir`` and interrupt it inside its second iteration (self-play and training
    done, nothing of that iteration saved yet); the log then holds iteration 1 alone."""
    from azcourse.alphazero import train as train_module

    original = train_module.gate

    def interrupted(run):
        if run.iteration == 1:
            raise KeyboardInterrupt
        return original(run)
    train_module.gate = interrupted
    try:
        with pytest.raises(KeyboardInterrupt):
            train(config, run_dir, show_progress=False)
    finally:
        train_module.gate = original
    assert [r["iteration"] for r in log_rows(run_dir)] == ["1"]


def assert_same_run(straight, other) -> None:
    """The same parameters, byte for byte, and the same log (timings aside) in two folders of the tiny run."""
    for name in ("best", "checkpoints/iter_0001", "checkpoints/iter_0002"):
        assert (straight / name / PARAMS_FILE).read_bytes() == (other / name / PARAMS_FILE).read_bytes(), name
    strip = lambda rows: [{k: v for k, v in r.items() if k not in TIMING_FIELDS} for r in rows]  # noqa: E731
    assert strip(log_rows(straight)) == strip(log_rows(other))


@pytest.fixture(scope="module")
def hex_runs(tmp_path_factory):
    """The tiny Hex run twice: straight through, and interrupted inside its second iteration then
    continued. Returns both run folders."""
    base = tmp_path_factory.mktemp("hex")
    config = AlphaZeroConfig(**TINY_HEX)
    train(config, base / "straight", show_progress=False)
    interrupt_in_second_iteration(config, base / "resumed")
    train(config, base / "resumed", show_progress=False)
    return base / "straight", base / "resumed"


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_resume_after_an_interruption_is_bit_identical(hex_runs):
    straight, resumed = hex_runs
    assert_same_run(straight, resumed)
    assert (straight / "resume" / "state.msgpack").exists()
    assert len(log_rows(resumed)) == 2


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_a_run_that_writes_its_state_less_often_repeats_the_lost_iterations_to_the_same_result(hex_runs, tmp_path):
    """``resume_every = 2``: interrupted in iteration 2, the run's state is still the start's, so the
    continued run drops iteration 1's log row, plays it again and ends as the uninterrupted run."""
    from flax import serialization

    straight, _ = hex_runs
    config = AlphaZeroConfig(**{**TINY_HEX, "resume_every": 2})
    interrupt_in_second_iteration(config, tmp_path / "run")
    assert serialization.msgpack_restore((tmp_path / "run" / "resume" / "state.msgpack").read_bytes())["iteration"] == 0
    train(config, tmp_path / "run", show_progress=False)
    assert_same_run(straight, tmp_path / "run")


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_log_has_every_term_and_gating_decides_the_best_network(hex_runs):
    straight, _ = hex_runs
    rows = log_rows(straight)
    assert tuple(rows[0]) == LOG_FIELDS
    for row in rows:
        assert all(float(row[k]) >= 0 for k in (*learn.TERMS, "total_loss"))
        total = float(row["value_loss"]) + float(row["policy_loss"]) + float(row["l2"])
        assert float(row["total_loss"]) == pytest.approx(total, abs=1e-4)
        assert 0 <= float(row["gate_score"]) <= 1 and row["accepted"] in ("0", "1")
        assert row["accepted"] == str(int(float(row["gate_score"]) >= 0.55))
    best = (straight / "best" / PARAMS_FILE).read_bytes()
    last = (straight / "checkpoints" / "iter_0002" / PARAMS_FILE).read_bytes()
    assert (best == last) == (rows[-1]["accepted"] == "1")


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_a_continued_run_refuses_another_config_and_a_foreign_folder(hex_runs, tmp_path):
    straight, _ = hex_runs
    with pytest.raises(ConfigError, match="search.simulations: 8 there"):
        train(AlphaZeroConfig(**{**TINY_HEX, "search": {"simulations": 9}}), straight, show_progress=False)
    (tmp_path / "notes.txt").write_text("someone else's")
    with pytest.raises(ConfigError, match="not empty"):
        train(AlphaZeroConfig(**TINY_HEX), tmp_path, show_progress=False)


# -- checkpoints and agents -----------------------------------------------------------------------------
@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_checkpoint_round_trip_card_params_and_agent(hex_runs):
    from flax import serialization

    straight, _ = hex_runs
    checkpoint = load_checkpoint(straight)  # a run folder means its best network
    assert checkpoint.path == straight / "best" and checkpoint.game.name == "hex3"
    card = checkpoint.card
    assert card["game"] == "hex3" and card["iteration"] == 2 and card["format"].startswith("flax.serialization")
    # dense 20 -> 16, policy head 16 -> 9, value head 16 -> 1 (Hex(3).encode has 2 + 2 * 9 entries)
    assert card["architecture"]["param_count"] == param_count(checkpoint.params) == (20 * 16 + 16) + (16 * 9 + 9) + 17
    assert card["training"]["config"] == AlphaZeroConfig(**TINY_HEX).to_dict()
    assert card["training"]["games"] == 6 and card["command"] and card["date"]
    restored = serialization.msgpack_restore((checkpoint.path / PARAMS_FILE).read_bytes())
    for layer, leaves in restored.items():
        for leaf, value in leaves.items():
            np.testing.assert_array_equal(checkpoint.params[layer][leaf], value)
    make = functools.partial(load_agent, straight, simulations=10)
    pickle.dumps(make)  # play_match's workers need it
    summary = play_match(functools.partial(make_game, "hex3"), make,
                         lambda rng: make_agent("random", Hex(3), rng), games=4, progress=False)
    assert summary.games == 4 and summary.wins + summary.draws + summary.losses == 4
    agent = make(np.random.default_rng(0))
    assert isinstance(agent, AlphaZeroAgent) and agent.mcts.config.simulations == 10
    assert load_agent(straight).mcts.config.simulations == TINY_HEX["search"]["simulations"]  # the card's default


def test_missing_checkpoint_is_refused_with_what_was_tried(tmp_path):
    with pytest.raises(FileNotFoundError, match="no AlphaZero checkpoint"):
        load_checkpoint(tmp_path / "nowhere")


# -- the network and the loss ------------------------------------------------------------------------------
@pytest.mark.parametrize("channels", [(), (4, 3)])
def test_numpy_forward_matches_flax(channels):
    game = TicTacToe()
    spec = NetSpec.for_game(game, channels, (8,))
    params = init_params(spec, seed=3)
    x = np.stack([game.encode(s) for s in random_states(game, 10, np.random.default_rng(0))])
    logits, value = jax.jit(make_module(spec).apply)({"params": params}, x)
    assert logits.shape == (10, 9) and value.shape == (10,)
    numpy_logits, numpy_value = NumpyNet(spec, params).forward(x)
    np.testing.assert_allclose(numpy_logits, logits, atol=1e-5)
    np.testing.assert_allclose(numpy_value, value, atol=1e-5)
    one_logits, one_value = jax_forward(spec, params)(x[0])
    np.testing.assert_allclose(one_logits, logits[0], atol=1e-5)
    prior, v = Predictor(game, NumpyNet(spec, params))(random_states(game, 1, np.random.default_rng(0))[0])
    assert prior.shape == (9,) and prior.sum() == pytest.approx(1.0) and -1 <= v <= 1


def test_the_action_head_adds_each_action_s_own_features_to_its_logit():
    """Azul's encoding ends with 6 features of each of its 180 takes: the action head (6 -> 1, shared) adds
    a value of them to each take's logit, in numpy as in Flax; a game without such features refuses it."""
    from azcourse.azul.game import Azul

    game = Azul()
    spec = NetSpec.for_game(game, (), (8,), action_head=True)
    assert spec.action_features == (180, 6) and spec.as_dict()["action_features"] == [180, 6]
    params = init_params(spec, seed=3)
    rng = np.random.default_rng(0)
    x = np.stack([game.encode(game.initial_state(rng)) for _ in range(4)])
    logits, value = jax.jit(make_module(spec).apply)({"params": params}, x)
    numpy_logits, numpy_value = NumpyNet(spec, params).forward(x)
    np.testing.assert_allclose(numpy_logits, logits, atol=1e-5)
    np.testing.assert_allclose(numpy_value, value, atol=1e-5)
    plain = dict(params)
    kernel, bias = np.asarray(plain.pop("action_head")["kernel"]), np.asarray(params["action_head"]["bias"])
    without = NumpyNet(NetSpec.for_game(game, (), (8,)), plain).forward(x)[0]
    per_take = x[:, -180 * 6:].reshape(4, 180, 6)
    np.testing.assert_allclose(numpy_logits[:, :180] - without[:, :180], (per_take @ kernel)[..., 0] + bias, atol=1e-5)
    np.testing.assert_array_equal(numpy_logits[:, 180], without[:, 180])  # NOOP has no features
    with pytest.raises(ValueError, match="action_head = false"):
        NetSpec.for_game(TicTacToe(), (), (8,), action_head=True)


def test_convolutions_need_a_spatial_encoding():
    with pytest.raises(ValueError, match="channels = \\[\\]"):
        NetSpec.for_game(Hex(3), channels=(8,))


def fixed_batch(game, size, rng):
    """Positions of random play with random legal policies and random results."""
    states = random_states(game, size, rng)
    x = np.stack([game.encode(s) for s in states])
    pi = np.stack([game.legal_mask(s) * rng.random(game.action_space_size) for s in states]).astype(np.float32)
    pi /= pi.sum(axis=1, keepdims=True)
    return x, pi, rng.choice([-1.0, 0.0, 1.0], size).astype(np.float32)


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_each_loss_term_decreases_on_a_fixed_batch(optimizer):
    game = TicTacToe()
    spec = NetSpec.for_game(game, (), (32,))
    x, pi, z = fixed_batch(game, 32, np.random.default_rng(0))
    lr = {"adam": 0.01, "sgd": 0.05}[optimizer]
    tx, steps = learn.training_for(spec, optimizer, lr, 1.0, 1e-4)
    loss = jax.jit(learn.make_loss(make_module(spec), 1.0, 1e-4))
    params = init_params(spec, 0)
    _, before = loss(params, x, pi, z)
    kernels = sum(float(np.sum(np.asarray(layer["kernel"], np.float64) ** 2)) for layer in params.values())
    assert float(before[2]) == pytest.approx(1e-4 * kernels, rel=1e-5)
    repeat = lambda a: np.repeat(a[None], 40, axis=0)  # noqa: E731
    params, _, terms = steps(params, tx.init(params), repeat(x), repeat(pi), repeat(z))
    _, after = loss(params, x, pi, z)
    assert terms.shape == (40, 3) and np.allclose(terms[0], before, atol=1e-6)
    assert float(after[0]) < float(before[0]) - 0.05, "value MSE"
    assert float(after[1]) < float(before[1]) - 0.05, "policy cross-entropy"
    # the data terms pull the weights up; with no value weight and a large decay the L2 term falls
    tx, steps = learn.training_for(spec, optimizer, lr, 0.0, 0.1)
    params = init_params(spec, 0)
    _, _, terms = steps(params, tx.init(params), repeat(x), repeat(pi), repeat(z))
    assert float(terms[0, 2]) == pytest.approx(0.1 * kernels, rel=1e-5)
    assert float(terms[-1, 2]) < 0.9 * float(terms[0, 2])


# -- self-play, symmetries, replay -------------------------------------------------------------------------
def untrained_search(game, simulations=16, seed=0, alpha=0.0):
    spec = NetSpec.for_game(game, (), (8,))
    evaluator = NetworkEvaluator(Predictor(game, NumpyNet(spec, init_params(spec, 0))))
    return MCTS(game, evaluator, MCTSConfig(simulations=simulations, tree_policy="puct", dirichlet_alpha=alpha), seed)


@pytest.mark.parametrize("reuse_tree", [True, False])
def test_self_play_game_records_policies_and_results(reuse_tree):
    game = TicTacToe()
    played = play_game(game, untrained_search(game, alpha=0.3), 2, np.random.default_rng(1), reuse_tree)
    t = played.moves
    assert played.x.shape == (t, 2, 3, 3) and played.pi.shape == (t, 9) and played.z.shape == (t,)
    np.testing.assert_allclose(played.pi.sum(axis=1), 1.0, rtol=1e-6)
    occupied = played.x.sum(axis=1).reshape(t, 9) > 0
    assert np.all(played.pi[occupied] == 0)
    movers = np.arange(t) % 2  # X opens and turns alternate
    np.testing.assert_array_equal(played.z, played.returns[movers])
    for i in range(2, t - 1):  # after the temperature moves: the most visited move is played
        placed = (played.x[i + 1].sum(axis=0) - played.x[i].sum(axis=0)).reshape(9)
        assert int(np.argmax(placed)) == int(np.argmax(played.pi[i]))


def ttt_from_encoding(x):
    planes = np.asarray(x).reshape(2, 9)
    mover = 0 if planes.sum() % 2 == 0 else 1
    cells = bytes(int(mover + 1 if planes[0, i] else (2 - mover if planes[1, i] else 0)) for i in range(9))
    return TicTacToeState(cells, mover, ONGOING)


def hex_from_encoding(x):
    cells = np.asarray(x[2:]).reshape(-1, 2)
    return HexState(bytes(int(1 if a else (2 if b else 0)) for a, b in cells), int(x[1]), -1)


@pytest.mark.parametrize("game, decode, count", [(TicTacToe(), ttt_from_encoding, 8), (Hex(3), hex_from_encoding, 2)])
def test_symmetries_permute_policies_consistently(game, decode, count):
    rng = np.random.default_rng(4)
    for state in random_states(game, 20, rng):
        mask = game.legal_mask(state).astype(np.float32)
        images = game.symmetries(game.encode(state), mask)
        assert len(images) == count
        np.testing.assert_array_equal(images[0][0], game.encode(state))
        for action in np.flatnonzero(mask):
            one_hot = np.eye(game.action_space_size, dtype=np.float32)[action]
            child_images = game.symmetries(game.encode(game.next_state(state, int(action))), one_hot)
            moved_images = game.symmetries(game.encode(state), one_hot)
            for (x, image_mask), (_, moved), (child_x, _) in zip(images, moved_images, child_images):
                image = decode(x)  # the transformed position
                np.testing.assert_array_equal(game.encode(image), x)
                np.testing.assert_array_equal(game.legal_mask(image), image_mask > 0)
                image_action = int(np.argmax(moved))
                assert moved.sum() == 1 and image_mask[image_action] == 1
                # the moved action, played in the transformed position, reaches the transformed child
                np.testing.assert_array_equal(game.encode(game.next_state(image, image_action)), child_x)


def test_augment_stores_every_image_with_its_result():
    game = TicTacToe()
    played = play_game(game, untrained_search(game), 9, np.random.default_rng(2))
    x, pi, z = augment(game, played)
    assert x.shape == (8 * played.moves, 2, 3, 3) and pi.shape == (8 * played.moves, 9)
    np.testing.assert_array_equal(z, np.repeat(played.z, 8))
    first = x[:8].reshape(8, -1)
    assert len({row.tobytes() for row in first}) == 1  # the empty board is its own image
    np.testing.assert_allclose(np.sort(pi[8:16], axis=1), np.sort(np.repeat(pi[8:9], 8, axis=0), axis=1))


def test_replay_window_keeps_the_most_recent_positions_and_round_trips():
    window = ReplayWindow(5, (2,), 3)
    for start in (0, 3, 6):
        n = 3
        window.add(np.full((n, 2), start, np.float32) + np.arange(n)[:, None], np.ones((n, 3)) / 3, np.zeros(n))
    assert len(window) == 5 and window.added == 9
    assert sorted(window.x[:, 0].tolist()) == [4, 5, 6, 7, 8]
    window.add(np.arange(14, dtype=np.float32).reshape(7, 2), np.ones((7, 3)) / 3, np.ones(7))
    assert sorted(window.x[:, 0].tolist()) == [4, 6, 8, 10, 12] and window.added == 16
    copy = ReplayWindow.from_arrays(5, window.arrays())
    for a, b in zip(copy.sample(3, 4, np.random.default_rng(0)), window.sample(3, 4, np.random.default_rng(0))):
        np.testing.assert_array_equal(a, b)
    assert copy.sample(3, 4, np.random.default_rng(0))[0].shape == (3, 4, 2)


# -- configuration, command line, registry ---------------------------------------------------------------------
def test_unknown_or_malformed_keys_are_refused_with_the_known_ones(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key 'simulatons'; known keys: game, seed, .*simulations"):
        load_config(None, {"simulatons": 5})
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "tictactoe"\nlearning_rat = 0.1\n')
    with pytest.raises(ConfigError, match="unknown key 'learning_rat'"):
        load_config(bad)
    with pytest.raises(ConfigError, match="iterations must be an integer, got 'ten'"):
        load_config(None, dict([parse_override("iterations=ten")]))
    with pytest.raises(ConfigError, match="optimizer must be one of adam, sgd"):
        load_config(None, {"optimizer": "adagrad"})
    assert load_config(TTT_CONFIG, dict([parse_override("hidden=[8, 8]")])).hidden == (8, 8)
    shipped = load_config(TTT_CONFIG)
    (tmp_path / "again.toml").write_text(to_toml(shipped))
    assert load_config(tmp_path / "again.toml") == shipped


def test_the_othello_and_tak_configs_use_only_known_keys():
    # that each shipped run was trained by its config: tests/test_run_config.py
    for name in ("othello6", "tak3", "tak4", "tak5"):
        config = load_config(ROOT / "configs" / f"{name}.toml")
        assert config.game == name and config.channels == () and config.hidden == (256, 256)


def test_every_key_is_explained_in_the_tictactoe_config():
    text = TTT_CONFIG.read_text()
    top, _, search = text.partition("\n[search]\n")
    for key, table in [(key, top) for key in AlphaZeroConfig.__dataclass_fields__ if key != "search"] + \
            [(key, search) for key in LEGACY_SEARCH_KEYS]:
        line = next((row for row in table.splitlines() if row.split("=")[0].strip() == key), None)
        assert line is not None and "#" in line, f"{key} is not set and explained in {TTT_CONFIG.name}"
    for key in set(MCTSConfig.__dataclass_fields__) - set(LEGACY_SEARCH_KEYS):  # the others: named in a comment
        assert key in search, f"search.{key} is not named in {TTT_CONFIG.name}'s [search] table"


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_command_line_trains_matches_and_refuses(tmp_path, capsys):
    run_dir = tmp_path / "cli"
    flat = AlphaZeroConfig(**TINY_HEX).flat()
    sets = [arg for key, value in flat.items() if key != "gate_games" and value != AlphaZeroConfig().flat().get(key)
            for arg in ("--set", f"{key}={list(value) if isinstance(value, (tuple, list)) else value}")]
    assert main(["train", "--run-dir", str(run_dir), *sets, "--set", "iterations=1"]) == 0
    card = json.loads((run_dir / "best" / "card.json").read_text())
    assert card["command"].startswith("python -m azcourse.alphazero train --run-dir") and card["iteration"] == 1
    assert main(["match", str(run_dir), "--opponent", "random", "--games", "2", "--simulations", "4"]) == 0
    assert "games (seed 0, seats alternating)" in capsys.readouterr().out
    assert main(["train", "--run-dir", str(tmp_path / "x"), "--set", "bogus=1"]) == 2
    assert "unknown key 'bogus'" in capsys.readouterr().err
    assert main(["match", str(run_dir), "--opponent", "perfect"]) == 2
    assert "tic-tac-toe only" in capsys.readouterr().err
    assert main(["train", "--run-dir", str(tmp_path / "y"), "--set", "game=go19"]) == 2
    assert "unknown game 'go19'" in capsys.readouterr().err


def test_registry_makes_games_by_name_and_refuses_others():
    for name in ("tictactoe", "hex3", "hex5", "hex8"):
        assert make_game(name).name == name
    assert make_game("hex").name == "hex5"
    for name, message in (("chess", "known games: tictactoe, hex<n>"), ("tictactoe4", "takes no board size"),
                          ("hex9", "from 3 to 8")):
        with pytest.raises(UnknownGame, match=message):
            make_game(name)


def test_the_trainer_refuses_an_unknown_game_before_touching_the_folder(tmp_path):
    with pytest.raises(UnknownGame, match="'go19'"):
        train(AlphaZeroConfig(game="go19"), tmp_path / "run", show_progress=False)
    assert not (tmp_path / "run").exists()
