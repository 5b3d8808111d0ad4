"""The trainer's search options: Gumbel self-play and agents (``root_policy``), playout-cap randomisation
(``cheap_fraction``: cheap moves keep their value target, carry no policy target, and the policy loss
ignores them), the growing budget (``simulations_start``), and the refusals of their values.

Self-play here uses an untrained numpy network and a few simulations; the one run of the trainer trains
two steps (a smoke test of the whole path: weights in the replay, the weighted loss, the card's root policy).
"""
import csv
import dataclasses
import json

import jax
import numpy as np
import pytest
from scipy.special import log_softmax

from azcourse.alphazero import learn
from azcourse.alphazero import train as train_module
from azcourse.alphazero import searches as search_settings
from azcourse.alphazero.agent import AlphaZeroAgent, load_agent
from azcourse.alphazero.checkpoints import load_checkpoint
from azcourse.alphazero.config import AlphaZeroConfig, ConfigError
from azcourse.alphazero.flax_net import init_params, make_module
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor
from azcourse.alphazero.replay import ReplayWindow
from azcourse.alphazero.selfplay import discounted, play_game, play_games, positions
from azcourse.alphazero.workers import InProcessPool, host_params
from azcourse.core.evaluators import NetworkEvaluator
from azcourse.core.mcts import MCTS
from azcourse.tictactoe.game import TicTacToe


def network(game, hidden=(8,)):
    spec = NetSpec.for_game(game, (), hidden)
    return spec, NumpyNet(spec, init_params(spec, 0))


def searches(game, config: AlphaZeroConfig, seeds, simulations=None, search=MCTS):
    """One self-play search of ``config`` per seed (an untrained network), and their generators."""
    _, net = network(game)
    evaluator = NetworkEvaluator(Predictor(game, net))
    rngs = [np.random.default_rng(seed) for seed in seeds]
    settings = search_settings.full(config) if simulations is None else \
        dataclasses.replace(config.search, simulations=simulations)
    return [search(game, evaluator, settings, rng) for rng in rngs], rngs


# -- playout-cap randomisation --------------------------------------------------------------------------------
def test_cheap_moves_keep_their_result_but_carry_no_policy_target():
    game = TicTacToe()
    config = AlphaZeroConfig(search=dict(simulations=12), cheap_fraction=0.5, cheap_simulations=2,
                             temperature_moves=2)
    (search,), (rng,) = searches(game, config, [3])
    cheap = search_settings.cheap(config)
    assert cheap.simulations == 2 and cheap.dirichlet_alpha == 0 and search.config.dirichlet_alpha > 0
    records = [play_game(game, search, 2, rng, True, cheap, 0.5) for _ in range(6)]
    assert search.config is not cheap  # the search's own config is back after the games
    w = np.concatenate([r.w for r in records])
    assert set(w.tolist()) == {0.0, 1.0} and 0.25 < w.mean() < 0.75
    for played in records:
        np.testing.assert_array_equal(played.pi[played.w == 0], 0)  # no policy target
        np.testing.assert_allclose(played.pi[played.w == 1].sum(axis=1), 1, rtol=1e-6)
        movers = np.arange(played.moves) % 2
        np.testing.assert_array_equal(played.z, played.returns[movers])  # every position keeps its value target
        x, pi, z, weights = positions(game, played)
        assert len(x) == len(weights) == 8 * played.moves
        np.testing.assert_array_equal(weights, np.repeat(played.w, 8))
        np.testing.assert_array_equal(pi[weights == 0], 0)


def test_without_cheap_moves_self_play_is_unchanged_and_every_position_has_a_target():
    game = TicTacToe()
    config = AlphaZeroConfig(search=dict(simulations=8))
    (one,), (rng_one,) = searches(game, config, [5])
    (two,), (rng_two,) = searches(game, config, [5])
    plain, weighted = play_game(game, one, 3, rng_one), play_game(game, two, 3, rng_two, True, search_settings.cheap(config), 0.0)
    for name in ("x", "pi", "z", "returns"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(weighted, name))
    assert search_settings.cheap(config) is None and (plain.w == 1).all()


def test_a_discounted_value_target_shrinks_with_the_distance_to_the_end_and_keeps_its_sign():
    game = TicTacToe()
    (search,), (rng,) = searches(game, AlphaZeroConfig(search=dict(simulations=8)), [7])
    played = play_game(game, search, 3, rng)
    x, pi, z, w = positions(game, played, symmetries=False, discount=0.9)
    steps = played.moves - 1 - np.arange(played.moves)
    np.testing.assert_allclose(z, played.z * 0.9 ** steps, rtol=1e-6)
    assert z[-1] == played.z[-1] and (np.sign(z) == np.sign(played.z)).all()
    np.testing.assert_array_equal(x, played.x)
    np.testing.assert_array_equal(positions(game, played, False)[2], played.z)  # 1: today's targets
    images = positions(game, played, True, 0.9)[2]
    np.testing.assert_allclose(images, np.repeat(z, 8), rtol=1e-6)  # every image shares its position's target
    np.testing.assert_allclose(discounted(np.array([1, -1, 1], np.float32), 0.5), [0.25, -0.5, 1.0])


def test_the_policy_loss_ignores_positions_without_a_target_and_the_value_loss_keeps_them():
    game = TicTacToe()
    spec, _ = network(game, (16,))
    loss = jax.jit(learn.make_loss(make_module(spec), 1.0, 0.0))
    params, rng = init_params(spec, 0), np.random.default_rng(0)
    x = rng.random((12, *spec.encoding_shape)).astype(np.float32)
    pi = rng.dirichlet(np.ones(spec.actions), 12).astype(np.float32)
    z = rng.choice([-1.0, 0.0, 1.0], 12).astype(np.float32)
    w = np.array([1, 0] * 6, np.float32)
    logits, v = NumpyNet(spec, host_params(params)).forward(x)  # the same network in numpy
    cross_entropy = -(pi * log_softmax(logits, axis=1)).sum(axis=1)
    _, terms = loss(params, x, pi, z, w)
    assert float(terms[0]) == pytest.approx(np.mean((v - z) ** 2), rel=1e-5)  # the value term: every position
    assert float(terms[1]) == pytest.approx(cross_entropy[w == 1].mean(), rel=1e-5)  # the policy term: targets only
    # the gradient of the policy term does not see the policy of a position without a target
    grad = jax.grad(lambda p, q: loss(p, x, q, z, w)[1][1], argnums=1)(params, pi)
    assert np.all(np.asarray(grad)[w == 0] == 0) and np.any(np.asarray(grad)[w == 1] != 0)


def test_the_replay_keeps_the_weights_and_loads_a_state_saved_without_them():
    window = ReplayWindow(4, (2,), 3)
    window.add(np.arange(10, dtype=np.float32).reshape(5, 2), np.ones((5, 3)) / 3, np.zeros(5),
               np.array([1, 0, 1, 0, 0], np.float32))
    window.add(np.full((1, 2), 10, np.float32), np.ones((1, 3)) / 3, np.zeros(1))  # no weights: a target
    x, _, _, w = window.sample(2, 6, np.random.default_rng(0))
    np.testing.assert_array_equal(w, np.isin(x[..., 0], [4, 10]).astype(np.float32))  # held: 10 (w 1), 4 (1), 6 (0), 8 (0)
    arrays = window.arrays()
    again = ReplayWindow.from_arrays(4, arrays)
    np.testing.assert_array_equal(again.w, window.w)
    older = ReplayWindow.from_arrays(4, {k: v for k, v in arrays.items() if k != "w"})  # a state saved before
    assert (older.w == 1).all()


# -- the growing budget ---------------------------------------------------------------------------------------------
def test_the_budget_grows_linearly_then_stays():
    config = AlphaZeroConfig(search=dict(simulations=40), simulations_start=8, simulations_growth_iterations=4)
    assert [config.simulations_at(k) for k in range(1, 8)] == [8, 16, 24, 32, 40, 40, 40]
    odd = AlphaZeroConfig(search=dict(simulations=10), simulations_start=3, simulations_growth_iterations=3)
    assert [odd.simulations_at(k) for k in range(1, 6)] == [3, 5, 7, 10, 10]  # 3 + 7 k // 3
    assert {AlphaZeroConfig(search=dict(simulations=40)).simulations_at(k) for k in range(1, 5)} == {40}


def test_the_trainer_and_its_workers_search_with_the_iteration_s_budget(tmp_path, monkeypatch):
    budgets, real = [], train_module.play_game

    def recording(game, search, *args):
        budgets.append(search.config.simulations)
        return real(game, search, *args)
    monkeypatch.setattr(train_module, "play_game", recording)
    config = AlphaZeroConfig(search=dict(simulations=12), iterations=3, games_per_iteration=1, simulations_start=4,
                             simulations_growth_iterations=2, train_steps=0, hidden=(8,), replay_positions=100)
    train_module.train(config, tmp_path / "run", show_progress=False)
    assert budgets == [4, 8, 12]
    # a worker plays an iteration's game with that iteration's budget (iteration 1: 4 simulations)
    game = TicTacToe()
    spec, _ = network(game)
    params = host_params(init_params(spec, 0))
    played = InProcessPool(config.to_dict()).play(params, [9], 1)[0]
    (search,), (rng,) = searches(game, config, [9], 4)
    alone = play_games(game, [search], config.temperature_moves, [rng], config.reuse_tree)[0]
    np.testing.assert_array_equal(played.pi, alone.pi)


# -- Gumbel self-play and agents ---------------------------------------------------------------------------------------
class Recording(MCTS):
    """An ``MCTS`` that keeps every ``(state, result)`` of its searches."""

    def search(self, state, gumbel=None, config=None):
        result = super().search(state, gumbel, config)
        self.record = getattr(self, "record", []) + [(state, result)]
        return result


def test_gumbel_self_play_plays_the_search_s_choice_and_learns_its_improved_policy():
    game = TicTacToe()
    config = AlphaZeroConfig(search=dict(simulations=8, root_policy="gumbel", max_considered_actions=4),
                             temperature_moves=9)
    settings = search_settings.full(config)
    assert settings.root_policy == "gumbel" and settings.dirichlet_alpha == 0 and settings.max_considered_actions == 4
    (search,), (rng,) = searches(game, config, [1], search=Recording)
    played = play_game(game, search, config.temperature_moves, rng, True)
    assert len(search.record) == played.moves
    for t, (state, result) in enumerate(search.record):
        np.testing.assert_allclose(played.pi[t], result.policy, rtol=1e-6)
        legal = game.legal_mask(state)
        assert np.all(played.pi[t][legal] > 0) and np.all(played.pi[t][~legal] == 0)  # an improved policy
        if t + 1 < played.moves:  # the move played is the search's own (no temperature)
            assert game.state_key(game.next_state(state, result.action)) == game.state_key(search.record[t + 1][0])


def test_gumbel_games_with_cheap_moves_in_lockstep_are_the_games_played_one_at_a_time():
    game = TicTacToe()
    config = AlphaZeroConfig(search=dict(simulations=8, root_policy="gumbel", max_considered_actions=4),
                             cheap_fraction=0.3, cheap_simulations=2)
    cheap, seeds = search_settings.cheap(config), [4, 5, 6]
    alone = []
    for seed in seeds:
        (search,), (rng,) = searches(game, config, [seed])
        alone.append(play_game(game, search, 0, rng, True, cheap, 0.3))
    batch, rngs = searches(game, config, seeds)
    together = play_games(game, batch, 0, rngs, True, batch[0].evaluator.many, cheap, 0.3)
    for one, two in zip(alone, together):
        for name in ("x", "pi", "z", "w", "returns"):
            np.testing.assert_array_equal(getattr(one, name), getattr(two, name), err_msg=name)
    assert 0 < np.concatenate([g.w for g in together]).mean() < 1


def test_a_gumbel_agent_samples_with_noise_first_then_plays_without():
    game = TicTacToe()
    _, net = network(game)
    agent = AlphaZeroAgent(game, net, search_settings.from_card({"simulations": 8, "root_policy": "gumbel",
                                                                 "max_considered_actions": 4}), 0, sample_moves=1)
    asked = []
    search = agent.mcts.search
    agent.mcts.search = lambda state, config=None: asked.append(config) or search(state, config=config)
    state = game.initial_state()
    first = agent.choose(state)
    assert asked == [None] and 0 <= first < 9  # its own search: Gumbel noise
    agent.observe(first)
    state = game.next_state(state, first)
    agent.choose(state)
    assert asked[1].gumbel_scale == 0.0  # greedy after the sampled moves, passed to that search only
    assert agent.mcts.config.gumbel_scale == 1.0
    assert search_settings.from_card({"c_init": 1.0, "c_base": 2.0, "unvisited_value": 0.0}).root_policy == "puct"


def test_a_gumbel_run_with_cheap_moves_and_a_growing_budget_trains_and_its_agent_searches_so(tmp_path):
    config = AlphaZeroConfig(search=dict(simulations=8, root_policy="gumbel", max_considered_actions=4), iterations=2,
                             games_per_iteration=2, simulations_start=4, simulations_growth_iterations=1,
                             cheap_fraction=0.5, cheap_simulations=2, train_steps=2, batch_size=8, hidden=(8,),
                             replay_positions=200, gate_games=2, gate_simulations=4)
    run_dir = tmp_path / "run"
    train_module.train(config, run_dir, show_progress=False)
    card = json.loads((run_dir / "best" / "card.json").read_text())
    assert card["play"]["root_policy"] == "gumbel" and card["play"]["max_considered_actions"] == 4
    agent = load_agent(run_dir)
    assert agent.mcts.config.root_policy == "gumbel" and agent.mcts.config.max_considered_actions == 4
    rows = list(csv.DictReader((run_dir / "log.csv").open()))
    assert all(float(row["policy_loss"]) > 0 and row["accepted"] in ("0", "1") for row in rows)


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_azul_trains_on_the_one_trainer_with_the_refill_as_a_leaf(tmp_path, monkeypatch):
    """A seconds-long Azul run of the one trainer (the game through the registry, chance at the refill, the
    engine's per-take features read by the action head): with chance_outcomes = 0 every search stops at the
    refill, which the network values, and never draws a deal; its checkpoint plays Azul with the same setting."""
    from azcourse.core import mcts as mcts_module

    drawn = []
    resolve = mcts_module.MCTS._simulate_steps

    def watching(self, root):  # every chance node a search meets must be a leaf: no outcome held below it
        result = yield from resolve(self, root)
        stack = [root]
        while stack:
            node = stack.pop()
            if node.kind == mcts_module.CHANCE:
                drawn.append(len(node.children))
            elif node.kind == mcts_module.DECISION:
                stack += [child for child in node.children if child is not None]
        return result

    monkeypatch.setattr(mcts_module.MCTS, "_simulate_steps", watching)
    config = AlphaZeroConfig(search=dict(simulations=4, root_policy="gumbel", max_considered_actions=4, chance_outcomes=0),
                             game="azul", iterations=1, games_per_iteration=1, train_steps=2, batch_size=8,
                             hidden=(16,), action_head=True, replay_positions=500, symmetries=False)
    run_dir = tmp_path / "run"
    train_module.train(config, run_dir, show_progress=False)
    rows = list(csv.DictReader((run_dir / "log.csv").open()))
    assert len(rows) == 1 and float(rows[0]["mean_moves"]) > 40 and float(rows[0]["policy_loss"]) > 0
    assert drawn and set(drawn) == {0}  # chance nodes were met, and each stayed a leaf
    card = json.loads((run_dir / "best" / "card.json").read_text())
    assert card["game"] == "azul" and card["play"]["chance_outcomes"] == 0
    assert card["architecture"]["action_features"] == [180, 6]
    agent = load_agent(run_dir, rng=0)
    assert agent.mcts.config.chance_outcomes == 0
    game = agent.game
    state = game.initial_state(np.random.default_rng(1))
    assert game.legal_mask(state)[agent.choose(state)]
    # Azul's own loader and arena names read the trainer's checkpoint: the policy alone and inside Azul's search
    from azcourse.azul.checkpoints import load_agent as load_azul_agent
    from azcourse.azul.checkpoints import load_network

    net = load_network(run_dir / "best")
    prior, value = net(state)
    checkpoint = load_checkpoint(run_dir)
    trainer_prior, trainer_value = Predictor(game, checkpoint.net)(state)  # softmax over all 181 actions
    legal = game.legal_mask(state)
    assert prior[~legal].sum() == 0 and value == pytest.approx(trainer_value)
    np.testing.assert_allclose(prior[legal], trainer_prior[legal] / trainer_prior[legal].sum(), rtol=1e-5)
    assert net.policy_action(state) == int(np.argmax(np.where(legal, prior, -1)))
    for azul_agent in (load_azul_agent(run_dir / "best"), load_azul_agent(run_dir / "best", simulations=8)):
        assert legal[azul_agent(state, np.random.default_rng(2))]


@pytest.mark.slow  # trains: the whole suite only (tests/conftest.py)
def test_a_warm_start_imitates_the_teacher_before_the_first_iteration(tmp_path):
    """Azul's teacher is the greedy player: each position of its games has the greedy choice as a one-hot
    target; the warm start's steps move the network's policy onto greedy's choices (its best takes, ties
    included) on other positions, the first self-play starts from that network, and the card records it."""
    from azcourse.alphazero.checkpoints import load_checkpoint
    from azcourse.alphazero.warm_start import teacher_game
    from azcourse.azul.agents import greedy_agent, greedy_candidates
    from azcourse.azul.game import Azul

    game = Azul()
    played = teacher_game(game, greedy_agent, 0.0, np.random.default_rng(0))
    assert played.moves > 40 and np.all(played.pi.sum(axis=1) == 1) and set(np.unique(played.z)) <= {-1.0, 0.0, 1.0}
    config = AlphaZeroConfig(search=dict(simulations=4, root_policy="gumbel", max_considered_actions=4, chance_outcomes=0),
                             game="azul", iterations=1, games_per_iteration=1, train_steps=1, batch_size=256,
                             hidden=(32,), action_head=True, replay_positions=5000, symmetries=False,
                             warm_start_games=30, warm_start_steps=150)
    run_dir = tmp_path / "run"
    train_module.train(config, run_dir, show_progress=False)
    warm = json.loads((run_dir / "best" / "card.json").read_text())["training"]["warm_start"]
    assert warm["games"] == 30 and warm["positions"] > 1000 and warm["steps"] == 150
    rng, boards = np.random.default_rng(11), []
    while len(boards) < 200:  # positions of other games, greedy's moves with a third played at random
        board = game.initial_state(rng)
        while not game.is_terminal(board):
            if game.is_chance(board):
                board = game.resolve_chance(board, rng)
                continue
            boards.append(board)
            legal = np.flatnonzero(game.legal_mask(board))
            board = game.next_state(board, greedy_agent(board, rng) if rng.random() < 0.7 else int(rng.choice(legal)))
    x, legal = np.stack([game.encode(b) for b in boards]), np.stack([game.legal_mask(b) for b in boards])
    best = [greedy_candidates(b) for b in boards]

    def on_greedy(net):
        """The mean probability, over the legal takes, that the network gives greedy's best takes."""
        logits, _ = net.forward(x)
        p = np.exp(log_softmax(np.where(legal, logits, -np.inf), axis=1))
        return float(np.mean([p[i, takes].sum() for i, takes in enumerate(best)]))

    warmed = load_checkpoint(run_dir / "checkpoints" / "iter_0000")
    assert on_greedy(warmed.net) > on_greedy(NumpyNet(warmed.spec, init_params(warmed.spec, config.seed))) + 0.1


def test_a_margin_value_target_counts_the_final_score_difference_of_the_player_to_move():
    """With ``value_margin_scale`` each position's target is half the result and half tanh(margin / scale), the
    margin the final score of the player to move there minus the other's: one sign per seat, the winner's
    positive when the winner scored more, and the same in self-play and in the teacher's games."""
    from azcourse.alphazero.warm_start import teacher_game
    from azcourse.azul.agents import greedy_agent
    from azcourse.azul.game import Azul

    game = Azul()
    (search,), (rng,) = searches(game, AlphaZeroConfig(search=dict(simulations=2, chance_outcomes=0)), [3])
    for played in (teacher_game(game, greedy_agent, 0.2, np.random.default_rng(5)),
                   play_game(game, search, 0, rng, reuse_tree=False)):
        assert played.margin is not None and played.margin.shape == played.z.shape
        movers_of_seat0 = played.z == played.returns[0]  # a decided game: z tells the seats apart
        assert played.returns.any() and np.ptp(played.margin[movers_of_seat0]) == 0
        assert np.all(played.margin[~movers_of_seat0] == -played.margin[movers_of_seat0][0])
        winner_margin = played.margin[played.z > 0][0]
        assert winner_margin >= 0  # the row tie-break decides only equal scores
        z = positions(game, played, symmetries=False, margin_scale=12.0)[2]
        np.testing.assert_allclose(z, 0.5 * played.z + 0.5 * np.tanh(played.margin / 12.0), rtol=1e-6)
        assert np.all(np.sign(z) == np.sign(played.z)) or winner_margin == 0
    (search,), (rng,) = searches(TicTacToe(), AlphaZeroConfig(search=dict(simulations=4)), [1])
    played = play_game(TicTacToe(), search, 0, rng)
    assert played.margin is None  # no scores: the result alone
    with pytest.raises(ValueError, match="needs a game that keeps scores"):
        positions(TicTacToe(), played, margin_scale=12.0)


# -- refusals ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("values, message", [
    ({"search": {"simulations": 50, "root_policy": "sampled"}}, "search: root_policy is 'puct' or 'gumbel'"),
    ({"search": {"simulations": 50, "max_considered_actions": 0}}, "search: simulations and max_considered_actions"),
    ({"search": {"simulations": 50, "tree_policy": "uct"}}, "search.tree_policy must be 'puct'"),
    ({"search": {"simulations": 50, "time_limit": 1.0}}, "search.time_limit must be unset"),
    ({"search": {"simulations": 50, "rollouts": 3}}, "unknown search key 'rollouts'"),
    ({"search": {"simulations": 50, "root_policy": "gumbel", "dirichlet_alpha": 0.3}},
     "the Gumbel root policy needs tree_policy 'puct' and no Dirichlet noise"),
    ({"cheap_fraction": 1.0, "cheap_simulations": 4}, r"cheap_fraction must lie in \[0, 1\)"),
    ({"cheap_fraction": -0.1}, r"cheap_fraction must lie in \[0, 1\)"),
    ({"cheap_fraction": 0.5}, "cheap_simulations must lie between 1 and the first iteration's simulations"),
    ({"cheap_fraction": 0.5, "cheap_simulations": 60}, "cheap_simulations must lie between 1"),
    ({"cheap_fraction": 0.5, "cheap_simulations": 10, "simulations_start": 8, "simulations_growth_iterations": 2},
     "cheap_simulations must lie between 1 and the first iteration's simulations"),
    ({"cheap_simulations": -1}, "cheap_simulations must be 0 or more"),
    ({"simulations_start": 8}, "simulations_start and simulations_growth_iterations go together"),
    ({"simulations_growth_iterations": 5}, "go together"),
    ({"simulations_start": 60, "simulations_growth_iterations": 5}, "simulations_start must lie between 1 and simulations"),
    ({"cheap_fraction": 0.5, "cheap_simulations": 4, "search_path": "compiled"}, "needs search_path 'generic'"),
    ({"value_discount": 0.0}, r"value_discount must lie in \(0, 1\]"),
    ({"value_discount": 1.5}, r"value_discount must lie in \(0, 1\]"),
    ({"warm_start_epsilon": 1.5}, r"warm_start_epsilon must lie in \[0, 1\]"),
    ({"warm_start_games": -1}, "warm_start_games and warm_start_steps must be 0 or more"),
    ({"search": {"simulations": 50, "chance_outcomes": -1}}, "chance_outcomes at least 0"),
    ({"value_margin_scale": -1.0}, "value_margin_scale must be 0"),
    ({"value_margin_scale": 12.0, "search_path": "compiled"}, "value_margin_scale needs search_path 'generic'"),
])
def test_out_of_range_search_options_are_refused(values, message):
    with pytest.raises(ConfigError, match=message):
        AlphaZeroConfig(**{"search": {"simulations": 50}, **values})


def test_a_warm_start_or_action_head_the_game_cannot_give_is_refused_before_the_run_folder(tmp_path):
    for values, message in (({"warm_start_games": 10}, "no teacher for tictactoe"),
                            ({"action_head": True}, "gives no per-action features"),
                            ({"value_margin_scale": 10.0}, "needs a game that keeps scores; tictactoe has none")):
        with pytest.raises(ConfigError, match=message):
            train_module.train(AlphaZeroConfig(**values), tmp_path / "run", show_progress=False)
        assert not (tmp_path / "run").exists()
