"""Two things a game may lend the trainer, and a run may gain when it continues:

* a hand-written evaluation for self-play's leaves: the protocol's optional ``guide``, the generic
  ``GuidedEvaluator`` that mixes it into a network's, and ``guide_prior_mix``, ``guide_value_mix``,
  ``guide_from``;
* symmetries as index maps, one drawn per training row: the protocol's optional ``symmetry_maps`` (Azul's
  120 orders of its factories), ``replay.random_images`` and ``sample_symmetries``, ``sample_symmetries_from``.

Azul has both; every run here is real training of seconds.
"""
import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

import Azul_Simulator as az
from azcourse.alphazero.checkpoints import PARAMS_FILE
from azcourse.alphazero.config import AlphaZeroConfig, ConfigError
from azcourse.alphazero.flax_net import init_params
from azcourse.alphazero.network import NetSpec, NumpyNet, Predictor
from azcourse.alphazero.replay import random_images
from azcourse.alphazero.selfplay import play_games
from azcourse.alphazero import train as train_module
from azcourse.alphazero.train import train
from azcourse.alphazero import searches
from azcourse.alphazero.workers import InProcessPool, host_params
from azcourse.azul import heuristics
from azcourse.azul.agents import greedy_agent
from azcourse.azul.features import encode
from azcourse.azul.game import Azul
from azcourse.azul.mcts_agent import PRIOR_FLOOR, AzulEvaluator
from azcourse.core.evaluators import GuidedEvaluator, NetworkEvaluator
from azcourse.core.mcts import MCTS

TINY = dict(game="azul", iterations=2, games_per_iteration=1,
            search=dict(simulations=4, root_policy="gumbel", max_considered_actions=4, chance_outcomes=0), train_steps=2, batch_size=8, hidden=(16,),
            action_head=True, replay_positions=500, symmetries=False, checkpoint_every=1)
GUIDED = dict(TINY, guide_prior_mix=0.5, guide_value_mix=0.25, guide_from=1, sample_symmetries=True,
              sample_symmetries_from=1)


def azul_net(hidden=(16,)):
    game = Azul()
    spec = NetSpec.for_game(game, (), hidden, action_head=True)
    return game, spec, NumpyNet(spec, init_params(spec, 0))


def greedy_positions(count: int, seed: int = 0) -> list:
    """Decision and chance boards of greedy games, every 3rd position."""
    game, rng, boards = Azul(), np.random.default_rng(seed), []
    board = game.initial_state(rng)
    while len(boards) < count:
        if game.is_terminal(board):
            board = game.initial_state(rng)
        boards.append(board)
        for _ in range(3):
            if game.is_terminal(board):
                break
            board = (game.resolve_chance(board, rng) if game.is_chance(board)
                     else game.next_state(board, greedy_agent(board, rng)))
    return boards


def test_azul_s_guide_is_the_projected_score_as_a_prior_and_a_value():
    game = Azul()
    boards = greedy_positions(60)
    assert any(game.is_chance(b) for b in boards) and any(not game.is_chance(b) for b in boards)
    for board in boards:
        prior, value = game.guide(board)
        assert value == pytest.approx(float(heuristics.evaluate(board))) and -1 <= value <= 1
        if game.is_chance(board):
            assert prior is None
            continue
        legal = game.legal_mask(board)
        assert prior.shape == (az.ACTION_DIM,) and prior.dtype == np.float64
        assert prior.sum() == pytest.approx(1.0) and not prior[~legal].any() and (prior[legal] > 0).all()
        assert int(np.argmax(prior)) == heuristics.heuristic_greedy_action(board)


def test_the_guided_evaluator_mixes_as_azul_s_own_search_evaluator_does():
    """The generic mix with the guide's weights (prior_mix, value_mix) is Azul's play-time evaluator with the same
    weights (one convention), on decision boards and at the refill, one board or a batch."""
    game, _, net = azul_net()
    predictor = Predictor(game, net, forward_many=net.forward)
    boards = greedy_positions(40, seed=1)
    for prior_mix, value_mix in [(0.5, 0.5), (0.25, 0.75), (0.0, 1.0), (1.0, 0.0)]:
        guided = GuidedEvaluator(NetworkEvaluator(predictor, predictor.predict_many), prior_mix, value_mix)
        azul = AzulEvaluator(predictor, prior_mix=prior_mix, value_mix=value_mix)
        batched = guided.many(game, boards)
        for board, (prior, values) in zip(boards, batched):
            one_prior, one_values = guided(game, board, None)
            want_prior, want_values = azul(game, board)
            np.testing.assert_allclose(values, want_values, atol=1e-12)
            np.testing.assert_allclose(one_values, want_values, atol=1e-12)
            if want_prior is None:  # the refill: the network's prior passes through, unused by the search
                assert game.is_chance(board)
                continue
            np.testing.assert_allclose(prior, want_prior - PRIOR_FLOOR, atol=1e-12)
            np.testing.assert_allclose(one_prior, prior, atol=1e-12)
    with pytest.raises(ValueError, match="lie in"):
        GuidedEvaluator(NetworkEvaluator(predictor), 1.5, 0.0)


@pytest.mark.parametrize("values, message", [
    (dict(guide_prior_mix=-0.1), "must lie in"),
    (dict(guide_value_mix=1.5), "must lie in"),
    (dict(guide_value_mix=0.5, guide_from=-1), "guide_from be 0 or more"),
    (dict(game="othello6", guide_value_mix=0.5, search_path="compiled"), "need search_path 'generic'"),
])
def test_guide_settings_out_of_range_are_refused(values, message):
    with pytest.raises(ConfigError, match=message):
        AlphaZeroConfig(**values)


def test_a_guide_for_a_game_without_one_is_refused_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match="tictactoe has none"):
        train(AlphaZeroConfig(game="tictactoe", iterations=1, guide_prior_mix=0.5), tmp_path / "run",
              show_progress=False)
    assert not (tmp_path / "run" / "log.csv").exists()
    with pytest.raises(ConfigError, match="has none"):
        InProcessPool(AlphaZeroConfig(game="tictactoe", guide_value_mix=0.5).to_dict())


def test_a_worker_guides_self_play_in_the_iterations_after_guide_from_only():
    """Iteration 1 (up to guide_from) plays the network's games; iteration 2 the games of the same searches
    with the guided evaluator; the two differ."""
    game, spec, net = azul_net()
    params = host_params(init_params(spec, 0))
    config = AlphaZeroConfig(**GUIDED)
    pool = InProcessPool(config.to_dict())
    plain, guided = pool.play(params, [5], 1)[0], pool.play(params, [5], 2)[0]

    def alone(evaluator):
        rng = np.random.default_rng(5)
        search = MCTS(game, evaluator, searches.full(config), rng)
        return play_games(game, [search], config.temperature_moves, [rng], config.reuse_tree, evaluator.many)[0]

    network = NetworkEvaluator(Predictor(game, net, forward_many=net.forward))
    for played, want in [(plain, alone(network)), (guided, alone(GuidedEvaluator(network, 0.5, 0.25)))]:
        np.testing.assert_array_equal(played.pi, want.pi)
        np.testing.assert_array_equal(played.z, want.z)
    assert not np.array_equal(plain.pi, guided.pi)


def reordered(board: np.ndarray, order) -> np.ndarray:
    """``board`` with factory ``g`` holding factory ``order[g]``'s tiles."""
    out = board.copy()
    for g, f in enumerate(order):
        out[az.FACTORIES + 5 * g:az.FACTORIES + 5 * g + 5] = board[az.FACTORIES + 5 * f:az.FACTORIES + 5 * f + 5]
    return out


def test_azul_s_symmetry_maps_are_the_orders_of_its_factories():
    """Image k of a position's encoding is the encoding of the board with its factories in order k, and a
    take's entry moves with its factory: the projected score after each take (greedy_scores) and the legal
    takes follow the map exactly."""
    game = Azul()
    x_maps, pi_maps = game.symmetry_maps()
    assert x_maps.shape == (120, 1499) and pi_maps.shape == (120, 181) and game.symmetry_maps()[0] is x_maps
    np.testing.assert_array_equal(x_maps[0], np.arange(1499))
    assert all(sorted(row) == list(range(181)) for row in pi_maps)  # permutations of the actions
    assert (pi_maps[:, az.NOOP] == az.NOOP).all() and (pi_maps[:, :30] == np.arange(30)).all()  # centre, refill
    orders = list(itertools.permutations(range(5)))
    for board in [b for b in greedy_positions(30, seed=4) if not Azul().is_chance(b)]:
        x, scores = encode(board), heuristics.greedy_scores(board)
        for k in range(0, 120, 7):
            image = reordered(board, orders[k])
            np.testing.assert_array_equal(encode(image), x[x_maps[k]])
            np.testing.assert_array_equal(heuristics.greedy_scores(image), scores[pi_maps[k]])
            np.testing.assert_array_equal(game.legal_mask(image), game.legal_mask(board)[pi_maps[k]])


def test_random_images_turn_each_row_into_one_image_of_itself():
    game = Azul()
    maps = game.symmetry_maps()
    boards = [b for b in greedy_positions(12, seed=6) if not game.is_chance(b)][:8]
    x = np.stack([encode(b) for b in boards]).reshape(2, -1, 1499)
    pi = np.stack([heuristics.prior(b) for b in boards]).reshape(2, -1, 181).astype(np.float32)
    seen = set()
    for seed in range(6):
        images_x, images_pi = random_images(x, pi, maps, np.random.default_rng(seed))
        assert images_x.shape == x.shape and images_pi.shape == pi.shape
        for row in itertools.product(range(x.shape[0]), range(x.shape[1])):
            ks = [k for k in range(120) if np.array_equal(images_x[row], x[row][maps[0][k]])]
            assert ks and any(np.array_equal(images_pi[row], pi[row][maps[1][k]]) for k in ks)
            seen.update(ks[:1])
    assert len(seen) > 10  # drawn, not one fixed image


@pytest.mark.parametrize("values, message", [
    (dict(symmetries=True, sample_symmetries=True), "exclude each other"),
    (dict(symmetries=False, sample_symmetries=True, sample_symmetries_from=-2), "must be 0 or more"),
])
def test_sample_symmetries_settings_out_of_range_are_refused(values, message):
    with pytest.raises(ConfigError, match=message):
        AlphaZeroConfig(**values)


def test_sampled_images_for_a_game_without_maps_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="tictactoe has none"):
        train(AlphaZeroConfig(game="tictactoe", iterations=1, symmetries=False, sample_symmetries=True),
              tmp_path / "run", show_progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """The tiny run guided and with sampled images from iteration 2, straight through, and its first iteration
    then continued with both added."""
    base = tmp_path_factory.mktemp("guide")
    drawn = []  # the iteration of each training that drew images

    def recording(x, pi, maps, rng):
        drawn.append(x.shape)
        return random_images(x, pi, maps, rng)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(train_module, "random_images", recording)
        train(AlphaZeroConfig(**GUIDED), base / "straight", show_progress=False)
        train(AlphaZeroConfig(**dict(TINY, iterations=1)), base / "staged", show_progress=False)
        train(AlphaZeroConfig(**GUIDED), base / "staged", show_progress=False)
    # iteration 2's training, once in each run (not iteration 1's): 2 steps of 8 rows
    assert drawn == [(2, 8, 1499), (2, 8, 1499)]
    return base


def test_a_run_that_gains_the_guide_and_the_images_when_it_continues_is_the_run_of_its_final_config(runs):
    for name in ("best", "checkpoints/iter_0001", "checkpoints/iter_0002"):
        assert (runs / "straight" / name / PARAMS_FILE).read_bytes() == \
               (runs / "staged" / name / PARAMS_FILE).read_bytes(), name


@pytest.mark.parametrize("change", [dict(guide_from=0), dict(guide_from=1, guide_value_mix=0.5),
                                    dict(guide_prior_mix=0.0, guide_value_mix=0.0), dict(sample_symmetries_from=0),
                                    dict(sample_symmetries=False)])
def test_a_guide_or_images_change_that_reaches_iterations_done_is_refused(runs, tmp_path, change):
    shutil.copytree(runs / "straight", tmp_path / "run")
    before = (tmp_path / "run" / "best" / PARAMS_FILE).read_bytes()
    with pytest.raises(ConfigError, match="has done 2 iterations"):
        train(AlphaZeroConfig(**dict(GUIDED, **change)), tmp_path / "run", show_progress=False)
    assert (tmp_path / "run" / "best" / PARAMS_FILE).read_bytes() == before
