"""``azul_replies``: Azul whose encoding also says what each take leaves the opponent
(``features.encode_replies``), checked against a plain-Python reference, through the registry, its factory
orders, a seconds-long run of the one trainer and Azul's loaders on that run's checkpoint."""
import itertools

import numpy as np
import pytest

import Azul_Simulator as az
from azcourse.alphazero.config import AlphaZeroConfig
from azcourse.alphazero.train import train
from azcourse.azul import checkpoints, features
from azcourse.azul.agents import greedy_agent
from azcourse.azul.game import Azul, AzulReplies
from azcourse.azul.heuristics import BONUS_WEIGHT, PARTIAL_LINE, projected_score
from azcourse.registry import make_game


def positions(count: int, seed: int = 0) -> list:
    """Decision boards of games between greedy and random moves, every other position."""
    game, rng, boards = Azul(), np.random.default_rng(seed), []
    board = game.initial_state(rng)
    while len(boards) < count:
        if game.is_terminal(board):
            board = game.initial_state(rng)
        elif game.is_chance(board):
            board = game.resolve_chance(board, rng)
        else:
            if rng.random() < 0.5:
                boards.append(board)
            legal = np.flatnonzero(game.legal_mask(board))
            move = greedy_agent(board, rng) if rng.random() < 0.7 else int(rng.choice(legal))
            board = game.next_state(board, move)
    return boards


def best_reply_gain(board) -> float:
    """Reference: the best change of its projected score the player to move can make with one take."""
    gains = []
    for take in np.flatnonzero(az.get_valid_mask(board)[:az.N_TAKES]):
        after = az._take(board, int(take))
        section = az.PLAYER[0] if after[az.SEAT] == board[az.SEAT] else az.PLAYER[1]
        gains.append(projected_score(after, section, PARTIAL_LINE, BONUS_WEIGHT)
                     - projected_score(board, az.PLAYER[0], PARTIAL_LINE, BONUS_WEIGHT))
    return max(gains, default=0.0)


def test_the_replies_encoding_is_azul_s_with_the_opponent_s_best_reply_after_each_take():
    boards = positions(25)
    checked_round_end = checked_marker = 0
    for board in boards:
        x, y = features.encode(board), features.encode_replies(board)
        assert y.shape == (features.REPLIES_FEATURE_DIM,) == (1859,) and y.dtype == np.float32
        np.testing.assert_array_equal(y[:features.ACTION_BLOCK], x[:features.ACTION_BLOCK])
        takes = y[features.ACTION_BLOCK:].reshape(az.N_TAKES, features.REPLIES_ACTION_FEATURES)
        np.testing.assert_array_equal(takes[:, :features.ACTION_FEATURES],
                                      x[features.ACTION_BLOCK:].reshape(az.N_TAKES, features.ACTION_FEATURES))
        now = best_reply_gain(az.flip_board(board))
        legal = az.get_valid_mask(board)[:az.N_TAKES]
        assert not takes[~legal].any()
        for take in np.flatnonzero(legal):
            after = az._take(board, int(take))
            ends_round = not after[az.FACTORIES:az.CENTRE + 5].any()
            checked_round_end += ends_round
            checked_marker += bool(board[az.MARKER_IN_CENTRE]) and take < az.N_COLOURS * az.N_DESTINATIONS
            gain = 0.0 if ends_round else best_reply_gain(after)
            assert takes[take, 6] == pytest.approx(gain / 10, abs=1e-5)
            assert takes[take, 7] == pytest.approx((gain - now) / 10, abs=1e-5)
    assert checked_round_end and checked_marker  # a round's last take (no reply), and centre takes with the marker


def test_azul_replies_comes_from_the_registry_and_its_factory_orders_are_exact():
    game = make_game("azul_replies")
    assert isinstance(game, AzulReplies) and make_game(game.name).name == "azul_replies"
    assert game.encoding_shape == (1859,) and game.action_features == (180, 8)
    assert make_game("azul").encoding_shape == (1499,)
    x_maps, pi_maps = game.symmetry_maps()
    assert x_maps.shape == (120, 1859)
    np.testing.assert_array_equal(pi_maps, Azul().symmetry_maps()[1])  # the takes move as in Azul
    orders = list(itertools.permutations(range(5)))
    for board in positions(8, seed=3):
        x = game.encode(board)
        for k in range(1, 120, 13):
            image = board.copy()
            for g, f in enumerate(orders[k]):  # factory g of the image holds factory f's tiles
                image[az.FACTORIES + 5 * g:az.FACTORIES + 5 * g + 5] = board[az.FACTORIES + 5 * f:az.FACTORIES + 5 * f + 5]
            np.testing.assert_array_equal(game.encode(image), x[x_maps[k]])


def test_a_run_on_azul_replies_trains_and_azul_s_loaders_read_its_checkpoint(tmp_path):
    config = AlphaZeroConfig(search=dict(simulations=4, root_policy="gumbel", max_considered_actions=4, chance_outcomes=0),
                             game="azul_replies", iterations=1, games_per_iteration=1, train_steps=2, batch_size=8,
                             hidden=(16,), action_head=True, replay_positions=500, symmetries=False,
                             warm_start_games=2, warm_start_steps=2, sample_symmetries=True)
    train(config, tmp_path / "run", show_progress=False)
    best = tmp_path / "run" / "best"
    net = checkpoints.load_network(best)
    assert net.encode is features.encode_replies and net.net.spec.action_features == (180, 8)
    board = positions(1, seed=5)[0]
    logits, value = net.forward(features.encode_replies(board))
    prior, same_value = net(board)
    legal = az.get_valid_mask(board)
    expected = np.exp(logits[legal] - logits[legal].max())
    np.testing.assert_allclose(prior[legal], expected / expected.sum(), rtol=1e-5)
    assert not prior[~legal].any() and same_value == pytest.approx(value, abs=1e-5)
    for agent in (checkpoints.load_agent(best), checkpoints.load_agent(best, simulations=8)):
        assert legal[agent(board, np.random.default_rng(0))]


@pytest.mark.slow  # trains two networks: the whole suite only (tests/conftest.py)
def test_the_encoding_probe_trains_a_network_per_encoding_on_the_yardstick_s_choices(capsys):
    """benchmarks/azul_encoding_probe.py on 2 games and 4 steps: the yardstick's choices are legal takes, and
    it reports the best point of each encoding."""
    import sys
    from pathlib import Path

    benchmarks = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        import azul_encoding_probe as probe
    finally:
        sys.path.remove(benchmarks)
    boards, choices, index = probe.yardstick_games(2, seed=0)
    assert len(boards) == len(choices) == len(index) > 40 and set(index) == {0, 1}
    assert all(az.get_valid_mask(b)[c] and c != az.NOOP for b, c in zip(boards, choices))
    probe.main(["--games", "2", "--steps", "4", "--every", "2"])
    table = capsys.readouterr().out.split("top-1 agreement with the yardstick\n")[1].splitlines()
    assert [line.split()[0] for line in table] == ["azul", "azul_replies"]
    assert all(line.split()[1] in ("2", "4") for line in table)
