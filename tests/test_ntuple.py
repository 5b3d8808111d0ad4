"""The pattern-table network (``azcourse.alphazero.ntuple``, ``network = "ntuple"``): the compiled evaluation
against the plain reference, its symmetry, the JAX training model against both, the compiled search's own
leaf evaluation, and a seconds-long run of ``configs/othello8_ntuple.toml`` shrunk to 6x6 that trains,
checkpoints, resumes and plays."""
import csv
import json
import pathlib

import numpy as np
import pytest

from azcourse.alphazero import compiled_search
from azcourse.alphazero.agent import load_agent
from azcourse.alphazero.checkpoints import load_checkpoint
from azcourse.alphazero.config import ConfigError, load_config
from azcourse.alphazero.ntuple import kernels, reference
from azcourse.alphazero.ntuple.patterns import NEG, NTupleSpec, base_patterns, geometry, init_params
from azcourse.alphazero.train import train
from azcourse.core.mcts import MCTSConfig
from azcourse.core.square_symmetry import NUM_SYMMETRIES, square_permutation, transform_planes
from azcourse.othello.game import Othello
from azcourse.othello.symmetry import transform_policy

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "othello8_ntuple.toml"


def random_params(spec: NTupleSpec, seed: int) -> dict:
    """Parameters with every entry drawn at random (untied entries would show in the symmetry test)."""
    rng = np.random.default_rng(seed)
    params = init_params(spec)
    for layer in params.values():
        for name, value in layer.items():
            value[:] = rng.normal(0.0, 0.2, value.shape) + (3.0 if name == "scale" else 0.0)
    return params


def random_states(game, count: int, seed: int) -> list:
    """Decision states of random games, forced passes among them."""
    rng, states = np.random.default_rng(seed), []
    state = game.initial_state(rng)
    while len(states) < count:
        if game.is_terminal(state):
            state = game.initial_state(rng)
            continue
        states.append(state)
        state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    return states


def test_the_classic_tuples_make_46_lookups_on_8x8_and_the_pass_has_a_class_of_its_own():
    g = geometry(8)
    assert [p.name for p in base_patterns(8)] == ["edge+2X", "corner3x3", "corner2x5", "row1", "row2", "row3",
                                                  "diag0", "diag1", "diag2", "diag3", "diag4"]
    assert len(g.lengths) == 46 and np.bincount(g.pattern).tolist() == [4, 4, 8, 4, 4, 4, 2, 4, 4, 4, 4]
    assert len({frozenset(row[row >= 0].tolist()) for row in g.squares}) == 46  # one lookup a set of squares
    assert g.classes == 11 and g.square_class[64] == 10 and g.square_class[0] == g.square_class[63] == g.square_class[7]


@pytest.mark.parametrize("n", [8, 6, 4])
def test_the_compiled_evaluation_equals_the_plain_reference(n):
    game, spec = Othello(n), NTupleSpec(n, 4, 0.3)
    params = random_params(spec, n)
    states = random_states(game, 120, n)
    logits, values = kernels.NTupleNet(spec, params).forward(np.stack([game.encode(s) for s in states]))
    passes = 0
    for state, row, value in zip(states, logits, values):
        expected_logits, expected_value = reference.evaluate(spec, params, game, state)
        assert value == pytest.approx(expected_value, abs=1e-12)
        np.testing.assert_allclose(row, expected_logits, rtol=0, atol=1e-12)
        passes += row[game.pass_action] == 0.0
    assert n == 8 or passes  # the small boards' random games include forced passes


def test_the_evaluation_is_invariant_under_the_board_symmetries():
    game, spec = Othello(8), NTupleSpec(8, 6, 0.25)
    net = kernels.NTupleNet(spec, random_params(spec, 1))
    x = np.stack([game.encode(s) for s in random_states(game, 60, 1)])
    logits, values = net.forward(x)
    for g in range(1, NUM_SYMMETRIES):
        image_logits, image_values = net.forward(transform_planes(x, g))
        np.testing.assert_allclose(image_values, values, rtol=0, atol=1e-12)
        np.testing.assert_allclose(image_logits, transform_policy(logits, g), rtol=0, atol=1e-12)
        assert not np.array_equal(square_permutation(8, g), np.arange(64))  # a real change of the board


def test_the_jax_training_model_equals_the_compiled_evaluation():
    from azcourse.alphazero.ntuple.model import make_model

    game, spec = Othello(6), NTupleSpec(6, 3, 0.5)
    params = random_params(spec, 2)
    x = np.stack([game.encode(s) for s in random_states(game, 200, 2)])
    logits, values = kernels.NTupleNet(spec, params).forward(x)
    model_logits, model_values = map(np.asarray, make_model(spec).apply({"params": params}, kernels.features(spec, x)))
    legal = logits > NEG / 2
    assert np.array_equal(model_logits > NEG / 2, legal) and (model_logits[~legal] == NEG).all()
    np.testing.assert_allclose(model_values, values, rtol=0, atol=2e-6)  # float32 against float64
    np.testing.assert_allclose(model_logits[legal], logits[legal], rtol=0, atol=2e-5)


def test_the_compiled_search_evaluates_its_leaves_with_the_tables():
    game, spec = Othello(8), NTupleSpec(8, 6, 0.25)
    params = random_params(spec, 3)
    tables, net = kernels.tables_of(spec, params), kernels.NTupleNet(spec, params)
    config = MCTSConfig(simulations=24, tree_policy="puct", dirichlet_alpha=0.0)
    states = random_states(game, 4, 3)
    lock = compiled_search.Lockstep(compiled_search.rules_for(game), config, len(states), tables)
    for slot, state in enumerate(states):
        lock.start(slot, state, np.random.default_rng(slot))
    assert lock.step().tolist() == list(range(len(states)))  # one round: every search to its end
    trees = lock.trees
    for slot, state in enumerate(states):
        root = lock.slots.root[slot]
        logits, value = net(game.encode(state))
        edges = slice(trees.edge0[root], trees.edge0[root] + trees.edges[root])
        prior = np.exp(logits - logits.max())
        np.testing.assert_array_equal(trees.action[edges], np.flatnonzero(game.legal_mask(state)))
        np.testing.assert_allclose(trees.prior[edges], (prior / prior.sum())[trees.action[edges]], rtol=1e-12)
        assert trees.value[root] == pytest.approx(value, abs=1e-12) and trees.n[edges].sum() == 24
    # whole games: the same as the search with the tables' forward pass called from Python, one batch a round
    noisy = MCTSConfig(simulations=24, tree_policy="puct", dirichlet_alpha=0.3)
    rngs = lambda: [np.random.default_rng(seed) for seed in range(6)]  # noqa: E731
    inside = compiled_search.play_games(game, tables, noisy, 4, rngs())
    called = compiled_search.play_games(game, net.forward, noisy, 4, rngs())
    for a, b in zip(inside, called):
        np.testing.assert_array_equal(a.x, b.x)
        np.testing.assert_allclose(a.pi, b.pi, rtol=0, atol=1e-6)


def test_a_tiny_run_trains_checkpoints_resumes_and_plays(tmp_path):
    tiny = {"game": "othello6", "iterations": 1, "games_per_iteration": 6, "workers": 1, "selfplay_batch": 6,
            "train_steps": 25, "batch_size": 64, "replay_positions": 3000, "search.simulations": 8,
            "search.max_considered_actions": 4}
    run = tmp_path / "run"
    train(load_config(CONFIG, tiny), run, show_progress=False)
    first = load_checkpoint(run)
    assert first.card["architecture"]["network"] == "ntuple" and first.card["iteration"] == 1
    assert train(load_config(CONFIG, {**tiny, "iterations": 2}), run, show_progress=False).iterations == 2
    with (run / "log.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and float(rows[1]["policy_loss"]) < np.log(37)  # below the uniform prior's (37 actions)
    best = load_checkpoint(run)
    assert best.card["iteration"] == 2 and not np.array_equal(best.params["tables"]["kernel"],
                                                             first.params["tables"]["kernel"])
    assert isinstance(best.net, kernels.NTupleNet) and best.spec == NTupleSpec(6, 6, 0.25)
    train(load_config(CONFIG, {**tiny, "iterations": 2}), tmp_path / "straight", show_progress=False)
    straight = load_checkpoint(tmp_path / "straight")
    for layer, leaves in best.params.items():  # the resumed run is the uninterrupted one, bit for bit
        for name, value in leaves.items():
            np.testing.assert_array_equal(value, straight.params[layer][name])
    agent = load_agent(run, simulations=16, rng=0)
    state = agent.game.initial_state(None)
    assert agent.game.legal_mask(state)[agent.choose(state)]


def test_a_tiny_run_with_the_exact_endgame_ends_its_games_there_and_its_agents_play_it(tmp_path, monkeypatch):
    """``endgame_empties = 8`` on 6x6 (32 empty squares at the start): every self-play game ends after at most 24
    placing moves, most after exactly 24, with the solved result; the card's play entry names the endgame (and
    the compiled search, ``play_search_path``), and the checkpoint's agent plays the solver's best move at 8 empty
    squares (and a given 0 turns it off)."""
    from azcourse.othello import endgame

    tiny = {"game": "othello6", "iterations": 1, "games_per_iteration": 6, "workers": 1, "selfplay_batch": 6,
            "train_steps": 5, "batch_size": 32, "replay_positions": 3000, "search.simulations": 8,
            "search.max_considered_actions": 4, "endgame_empties": 8, "play_endgame_empties": 0}
    played, compiled_play = [], compiled_search.play_games
    monkeypatch.setattr(compiled_search, "play_games", lambda *args: played.extend(compiled_play(*args)) or played)
    run = tmp_path / "run"
    train(load_config(CONFIG, tiny), run, show_progress=False)
    placed = [int((g.pi[:, 36] < 1).sum()) for g in played]  # the records that are not forced passes
    assert len(played) == 6 and max(placed) == 24 and placed.count(24) >= 4, placed
    assert 'endgame_empties = 8' in (run / "config.toml").read_text()
    assert load_checkpoint(run).card["play"]["endgame_empties"] == 8
    agent = load_agent(run, simulations=4, rng=0)
    assert type(agent).__name__ == "CompiledAgent"  # the card's play entry names the compiled search
    game, rng = agent.game, np.random.default_rng(1)
    state = game.initial_state()
    while endgame.empty_squares(game, state) > 8 or not state.moves:
        state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    assert agent.endgame.empties == 8
    child = game.next_state(state, agent.choose(state))
    black, white = game.scores(child)
    after = -endgame.solve(game, child).margin if not child.over else (black - white) * (1 - 2 * state.player)
    assert after == endgame.solve(game, state).margin
    assert load_agent(run, simulations=4, rng=0, endgame_empties=0).endgame is None


def test_what_the_pattern_tables_cannot_do_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="Othello"):
        train(load_config(CONFIG, {"game": "hex5"}), tmp_path / "hex", show_progress=False)
    assert not (tmp_path / "hex").exists()
    with pytest.raises(ConfigError, match="inference"):
        load_config(CONFIG, {"inference": "jax"})
    with pytest.raises(ConfigError, match="network must be one of mlp, ntuple"):
        load_config(CONFIG, {"network": "resnet"})
    spec = NTupleSpec(6)
    with pytest.raises(ConfigError, match="Othello"):
        compiled_search.Lockstep(compiled_search.rules_for(Othello(8)), MCTSConfig(tree_policy="puct"), 2,
                                 kernels.tables_of(spec, init_params(spec)))
    with pytest.raises(ValueError, match="tables/kernel"):
        kernels.NTupleNet(NTupleSpec(6, 4), init_params(spec))
    card = {**spec.as_dict(), "patterns": {"edge": [0, 1, 2]}}
    with pytest.raises(ValueError, match="not this pack's"):
        NTupleSpec.from_dict(json.loads(json.dumps(card)))
