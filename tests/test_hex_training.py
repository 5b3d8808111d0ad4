"""Hex ANET training, the TOPP and the OHT series runner, on tiny budgets; and the shipped 5x5 run."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.agents import make_agent
from azcourse.hex.game import Hex
from azcourse.hex import anet
from azcourse.hex.checkpoints import cached_anets, load_anet
from azcourse.hex.config import ACTIVATIONS, OPTIMIZERS, ConfigError, HexConfig, load_config, to_toml
from azcourse.hex.oht import GameLayerAgent, ProcessAgent, ProtocolError, OHTAgent, run_series
from azcourse.hex.replay import ReplayBuffer
from azcourse.hex.topp import ANETPlayer, round_robin
from azcourse.hex.train import LOG_FIELDS, RESUMABLE_CHANGES, rotate_case, train

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "ckpts" / "hex5"
TINY = dict(board_size=3, episodes=4, search_games=20, save_every=2, buffer_size=50, batch_size=8, train_steps=2,
            hidden_layers=(16,), topp_games=4)


def random_states(game, count, rng):
    """``count`` positions reached by random play (none terminal)."""
    states = []
    while len(states) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, game.action_space_size - 2))):
            nxt = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
            if game.is_terminal(nxt):
                break
            state = nxt
        states.append(state)
    return states


# -- the network -------------------------------------------------------------------------------------
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_anet_sums_to_one_over_legal_cells_and_numpy_matches_flax(activation):
    config = HexConfig(board_size=4, hidden_layers=(12, 8), activation=activation)
    game, module = Hex(4), anet.module_for(config)
    params = anet.init_params(config)
    states = random_states(game, 12, np.random.default_rng(1))
    x = np.stack([game.encode(s) for s in states])
    legal = np.stack([game.legal_mask(s) for s in states])
    probs = np.asarray(anet.policy(module, params, x))
    assert probs.shape == (12, 16) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(probs[~legal] == 0.0) and np.all(probs[legal] > 0.0)
    numpy_probs = anet.NumpyANET(params, activation).probabilities(x)
    np.testing.assert_allclose(numpy_probs, probs, atol=1e-5)


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_training_steps_reduce_cross_entropy_on_a_fixed_batch(optimizer):
    lr = {"sgd": 0.5, "adagrad": 0.1, "rmsprop": 0.003, "adam": 0.003}[optimizer]
    config = HexConfig(board_size=3, hidden_layers=(32,), optimizer=optimizer, learning_rate=lr)
    game, module = Hex(3), anet.module_for(config)
    rng = np.random.default_rng(0)
    states = random_states(game, 16, rng)
    x = np.stack([game.encode(s) for s in states])
    target = np.stack([game.legal_mask(s) * rng.random(9) for s in states]).astype(np.float32)
    target /= target.sum(axis=1, keepdims=True)
    params = anet.init_params(config)
    opt = anet.make_optimizer(optimizer, lr)
    step, opt_state = anet.make_train_step(module, opt), opt.init(params)
    before = float(anet.cross_entropy(module, params, x, target))
    for _ in range(20):
        params, opt_state, loss = step(params, opt_state, x, target)
    after = float(anet.cross_entropy(module, params, x, target))
    assert after < before - 0.01, f"{optimizer}: {before:.4f} -> {after:.4f}"


def test_rollout_policy_plays_the_most_probable_legal_cell():
    config = HexConfig(board_size=4, hidden_layers=(8,))
    game, net = Hex(4), anet.NumpyANET(anet.init_params(config), "relu")
    greedy = net.rollout_policy(game, epsilon=0.0)
    for state in random_states(game, 10, np.random.default_rng(2)):
        assert greedy(game, state, None) == int(np.argmax(net.probabilities(game.encode(state))))


# -- replay buffer ----------------------------------------------------------------------------------------
def test_replay_buffer_keeps_the_newest_cases_and_samples_held_ones():
    buffer = ReplayBuffer(3, input_dim=2, cells=1)
    for i in range(5):
        buffer.add(np.full(2, i), np.full(1, i))
    assert len(buffer) == 3 and buffer.added == 5
    assert sorted(buffer.x[:, 0]) == [2.0, 3.0, 4.0]
    x, target = buffer.sample(2, np.random.default_rng(0))
    assert x.shape == (2, 2) and len(set(x[:, 0])) == 2 and np.all(x[:, 0] == target[:, 0])
    x, _ = buffer.sample(10, np.random.default_rng(0))  # more than held: with replacement
    assert x.shape == (10, 2) and set(x[:, 0]) <= {2.0, 3.0, 4.0}
    copy = ReplayBuffer.from_arrays(3, buffer.arrays())
    assert copy.added == 5 and np.array_equal(copy.x, buffer.x)
    with pytest.raises(ValueError, match="empty"):
        ReplayBuffer(3, 2, 1).sample(1, np.random.default_rng(0))


# -- configuration ------------------------------------------------------------------------------------------
def test_config_file_then_flags_take_precedence(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('episodes = 30\nhidden_layers = [32, 16]\noptimizer = "sgd"\ndisplay = true\n')
    config = load_config(path, {"episodes": "12", "save_every": "4", "hidden_layers": "8,8,8"})
    assert config.episodes == 12 and config.save_every == 4  # flags win
    assert config.optimizer == "sgd" and config.display is True  # the file wins over defaults
    assert config.hidden_layers == (8, 8, 8) and config.batch_size == HexConfig().batch_size
    assert config.cached_anets == 4
    back = tmp_path / "back.toml"
    back.write_text(to_toml(config))
    assert load_config(back) == config


@pytest.mark.parametrize("text, flags, message", [
    ("episodes = 3\nlearning_rte = 0.1\n", {}, "unknown parameter 'learning_rte'; known parameters: board_size"),
    ("", {"optimiser": "adam"}, "unknown parameter 'optimiser'"),
    ('activation = "softplus"\n', {}, "activation must be one of sigmoid, tanh, relu, linear"),
    ("", {"optimizer": "lbfgs"}, "optimizer must be one of adagrad, sgd, rmsprop, adam"),
    ("", {"episodes": "many"}, "episodes must be an integer, got 'many'"),
    ("board_size = 9\n", {}, "board_size must be from 3 to 8"),
    ("episodes = \n", {}, "is not valid TOML"),
])
def test_config_refuses_unknown_keys_and_bad_values(tmp_path, text, flags, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(path, flags)


def test_shipped_config_files_load():
    assert load_config(ROOT / "configs" / "hex5.toml").board_size == 5
    demo = load_config(ROOT / "configs" / "hex_demo.toml")
    assert demo.cached_anets >= 4


# -- training end to end ------------------------------------------------------------------------------------------
@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_tiny_run_caches_k_anets_with_cards_the_first_untrained(tmp_path):
    config = HexConfig(**TINY)
    result = train(config, tmp_path / "run", show_progress=False)
    assert result.episodes == 4 and [p.name for p in result.cached] == ["anet_0", "anet_2", "anet_4"]
    anets = cached_anets(tmp_path / "run")
    assert [a.episode for a in anets] == [0, 2, 4] and len(anets) == config.cached_anets
    untrained = anet.NumpyANET(anet.init_params(config), config.activation)
    for (_, b0), (_, b1) in zip(untrained.layers, anets[0].net.layers):
        assert np.array_equal(b0, b1)
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(anets[0].net.layers, anets[-1].net.layers))
    for a in anets:
        assert a.card["architecture"]["board_size"] == 3 and a.card["training"]["config"] == config.to_dict()
        assert a.card["architecture"]["param_count"] == 16 * (20 + 1) + 9 * (16 + 1)
    with open(tmp_path / "run" / "training_log.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["episode"]) for r in rows] == [1, 2, 3, 4] and tuple(rows[0]) == LOG_FIELDS
    assert [int(r["first_player"]) for r in rows] == [1, 2, 1, 2]
    assert all(int(r["winner"]) in (1, 2) and int(r["buffer"]) <= 50 for r in rows)


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_display_shows_every_actual_game_when_switched_on(tmp_path, capsys):
    train(HexConfig(**{**TINY, "episodes": 2, "display": True}), tmp_path / "run", show_progress=False)
    out = capsys.readouterr().out
    assert "episode 1" in out and "episode 2" in out and out.count("has won.") == 2
    train(HexConfig(**{**TINY, "episodes": 3}), tmp_path / "run", show_progress=False)
    assert "episode 3" not in capsys.readouterr().out


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_an_interrupted_run_resumes_to_the_same_result(tmp_path):
    whole = train(HexConfig(**TINY), tmp_path / "whole", show_progress=False)
    train(HexConfig(**{**TINY, "episodes": 1}), tmp_path / "split", show_progress=False)  # "interrupted" after 1
    again = train(HexConfig(**TINY), tmp_path / "split", show_progress=False)
    assert again.episodes == 4
    for a, b in zip(cached_anets(whole.run_dir), cached_anets(again.run_dir)):
        assert a.episode == b.episode
        for (k0, b0), (k1, b1) in zip(a.net.layers, b.net.layers):
            np.testing.assert_array_equal(k0, k1)
            np.testing.assert_array_equal(b0, b1)
    logs = [(run / "training_log.csv").read_text().splitlines() for run in (whole.run_dir, again.run_dir)]
    strip = [[",".join(line.split(",")[:6]) for line in log] for log in logs]  # all but timings
    assert strip[0] == strip[1]


def test_a_run_folder_of_another_run_or_other_files_is_refused(tmp_path):
    train(HexConfig(**{**TINY, "episodes": 1}), tmp_path / "run", show_progress=False)
    with pytest.raises(ConfigError, match=r"different configuration \(learning_rate: 0.002 there\)"):
        train(HexConfig(**{**TINY, "learning_rate": 0.1}), tmp_path / "run", show_progress=False)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not empty and holds no resumable run"):
        train(HexConfig(**TINY), tmp_path / "other", show_progress=False)


def test_rotated_case_is_the_turned_position_with_the_same_winner():
    game, rng = Hex(5), np.random.default_rng(3)
    for state in random_states(game, 20, rng):
        turned = game.from_seed_tuple((state.player + 1, *state.cells[::-1]))
        d = rng.random(25)
        x, target = rotate_case(game.encode(state), d)
        np.testing.assert_array_equal(x, game.encode(turned))
        np.testing.assert_array_equal(target, d[::-1])
        full = bytes(v or int(rng.integers(1, 3)) for v in state.cells)  # fill the board at random
        assert game.has_chain(full, 0) == game.has_chain(full[::-1], 0)


@pytest.mark.slow
def test_train_cli_reads_the_file_takes_flags_and_refuses_bad_ones(tmp_path):
    run = tmp_path / "run"
    command = [sys.executable, "-m", "azcourse.hex", "train", "--config", str(ROOT / "configs" / "hex_demo.toml"),
               "--run-dir", str(run), "--board-size", "3", "--episodes", "2", "--save-every", "1",
               "--search-games", "10", "--hidden-layers", "8"]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "2 episodes in" in proc.stdout and "anet_0, anet_1, anet_2" in proc.stdout
    assert load_config(run / "config.toml") == load_config(ROOT / "configs" / "hex_demo.toml", dict(
        board_size=3, episodes=2, save_every=1, search_games=10, hidden_layers="8"))
    proc = subprocess.run(command[:-2] + ["--activation", "softmax"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "python -m azcourse.hex train: activation must be one of sigmoid, tanh, relu, linear")


# -- TOPP ------------------------------------------------------------------------------------------------------
class Scripted:
    """Plays the first legal cell; remembers which seat it had in each game."""

    def __init__(self, game):
        self.game, self.seats = game, []

    def choose(self, state, rng):
        if self.game.legal_mask(state).sum() >= self.game.action_space_size - 1:  # its first move of a game
            self.seats.append(state.player)
        return int(np.flatnonzero(self.game.legal_mask(state))[0])


def test_topp_round_robin_table_is_consistent_and_starts_alternate(tmp_path):
    game = Hex(3)
    players = [Scripted(game) for _ in range(3)]
    result = round_robin(game, players, ["a", "b", "c"], 4, np.random.default_rng(0), show_progress=False)
    assert result.wins.shape == (3, 3) and np.all(np.diag(result.wins) == 0)
    off = ~np.eye(3, dtype=bool)
    assert np.all((result.wins + result.wins.T)[off] == 4)
    assert result.totals.sum() == 12
    # first-legal-cell play is deterministic, so whoever opens a game wins it: each side opens half
    assert result.first_mover_wins == 12 and np.all(result.wins[off] == 2)
    for p in players:  # each player's games: it opened (seat 0) and answered (seat 1) equally often
        assert p.seats.count(0) == p.seats.count(1) == 4
    table = result.table()
    assert table.splitlines()[1].split() == ["a", "b", "c", "total", "score"]
    assert "12 games; the opener won 12" in table
    assert result.plot(tmp_path / "topp.png").stat().st_size > 1000


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_topp_of_a_tiny_run_through_the_cli(tmp_path):
    run = tmp_path / "run"
    train(HexConfig(**TINY), run, show_progress=False)
    proc = subprocess.run([sys.executable, "-m", "azcourse.hex", "topp", "--run-dir", str(run), "--topp-games", "2",
                           "--plot", str(tmp_path / "t.png")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "TOPP: 3 ANETs, 2 games per series" in proc.stdout and "6 games;" in proc.stdout
    assert (tmp_path / "t.png").exists()


def test_anet_player_modes():
    game = Hex(4)
    net = anet.NumpyANET(anet.init_params(HexConfig(board_size=4, hidden_layers=(8,))), "relu")
    state = game.next_state(game.initial_state(), 5)
    greedy = ANETPlayer(game, net, "greedy").choose(state, np.random.default_rng(0))
    assert greedy == int(np.argmax(net.probabilities(game.encode(state))))
    draws = {ANETPlayer(game, net, "sample").choose(state, np.random.default_rng(s)) for s in range(40)}
    assert 5 not in draws and len(draws) > 3


# -- OHT series ----------------------------------------------------------------------------------------------------
@pytest.mark.slow  # other Python processes: the whole suite only (tests/conftest.py)
def test_series_in_separate_processes_follows_the_protocol():
    games = 4
    with ProcessAgent("random", 3, seed=1) as one, ProcessAgent("uct:30", 3, seed=2) as two:
        result = run_series(one, two, 3, games)
        reports = {1: one.report(), 2: two.report()}
    assert result.starters == [1, 2, 1, 2]
    assert result.wins[1] + result.wins[2] == games
    assert result.scores[1] + result.scores[2] == pytest.approx(1.0)
    assert reports[1]["pid"] != reports[2]["pid"]
    for player, report in reports.items():
        assert report["player"] == player and report["size"] == 3  # colours fixed for the series
        assert [g["winner"] for g in report["games"]] == result.winners  # both told every winner
        assert report["games"] == reports[1]["games"]  # ... and the same final states
        assert report["series"] == {str(p): {"wins": result.wins[p], "losses": games - result.wins[p]}
                                    for p in (1, 2)}
        assert report["score"] == pytest.approx(result.scores[player])
        for g, first in enumerate(report["first_states"]):
            assert first[0] == player  # asked to move only for its own colour
            stones = sum(1 for v in first[1:] if v)
            assert stones == (0 if result.starters[g] == player else 1)  # opened, or answered the opener
    for g, record in enumerate(reports[1]["games"]):
        final = record["final"]
        assert final[1:].count(1) - final[1:].count(2) == (1 if result.starters[g] == 1 else -1) * (
            1 if record["winner"] == result.starters[g] else 0)


class Cheater(OHTAgent):
    def act(self, state):
        return (0, 0)


def test_series_refuses_an_illegal_move():
    game = Hex(3)
    honest = GameLayerAgent(make_agent("random", game, np.random.default_rng(0)), game)
    with pytest.raises(ProtocolError, match=r"player 2 played \(0, 0\): off the board or taken"):
        run_series(honest, Cheater(), 3, 2)


@pytest.mark.slow  # other Python processes: the whole suite only (tests/conftest.py)
def test_series_cli_runs_two_processes():
    proc = subprocess.run([sys.executable, "-m", "azcourse.hex", "series", "random", "random", "--size", "3",
                           "--games", "4"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    wins = [int(line.split(": ")[1].split()[0]) for line in lines]
    assert len(lines) == 2 and sum(wins) == 4


# -- the shipped 5x5 run --------------------------------------------------------------------------------------------
def test_shipped_hex5_anets_load_and_their_cards_agree():
    anets = cached_anets(SHIPPED)
    assert len(anets) >= 4 and anets[0].episode == 0 and anets[-1].episode >= 200
    config = load_config(SHIPPED / "config.toml")
    assert config.board_size == 5 and config.episodes >= 200 and config.search_games >= 1
    for a in anets:
        card = a.card
        trained = {k: v for k, v in config.to_dict().items() if k not in RESUMABLE_CHANGES}
        assert {k: card["training"]["config"][k] for k in trained} == trained  # tournament keys may change
        assert card["architecture"]["hidden_layers"] == list(config.hidden_layers)
        assert card["name"] == f"hex5_anet_{a.episode}" and a.episode % config.save_every == 0
        assert (a.path / "params.msgpack").stat().st_size < 200_000
        x = Hex(5).encode(Hex(5).initial_state())
        assert a.net.probabilities(x).sum() == pytest.approx(1.0)
    with open(SHIPPED / "training_log.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["episode"]) for r in rows] == list(range(1, config.episodes + 1))
    per_move = 2 if config.rotate_cases else 1
    assert json.loads((anets[-1].path / "card.json").read_text())["training"]["cases_seen"] == per_move * sum(
        int(r["moves"]) for r in rows)


def test_an_agent_process_that_cannot_start_is_reported(tmp_path):
    with ProcessAgent(f"anet:{tmp_path}", 3) as broken:
        with pytest.raises(ProtocolError, match=r"stopped \(exit code 2\) instead of answering 'begin_series'"):
            run_series(broken, broken, 3, 1)


@pytest.mark.slow
def test_demo_trains_from_scratch_and_plays_a_topp(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "azcourse.hex", "demo", "--run-dir", str(tmp_path), "--board-size",
                           "3", "--episodes", "2", "--save-every", "1", "--search-games", "10", "--topp-games", "2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (run,) = list(tmp_path.iterdir())
    assert [a.episode for a in cached_anets(run)] == [0, 1, 2]
    assert "TOPP: 3 ANETs, 2 games per series" in proc.stdout and (run / "topp.png").exists()
