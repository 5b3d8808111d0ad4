"""The planning players of azcourse.core.planners, on Othello with a hand-made network (disc counts)."""
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.arena import FunctionAgent, play_match
from azcourse.core.planners import MonteCarloAgent, PolicyNetAgent, ValueAgent, masked_prior, value_for
from azcourse.othello.agents import GreedyAgent
from azcourse.othello.game import Othello


def disc_network(game):
    """``predict`` of a network that knows only disc counts: a uniform prior, and the mover's share of
    the disc difference as the value."""
    def predict(state):
        mine, theirs = (game.scores(state)[p] for p in (game.to_move(state), 1 - game.to_move(state)))
        return np.ones(game.action_space_size), (mine - theirs) / (mine + theirs)
    return predict


def random_positions(game, count, seed):
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, game.size * game.size))):
            if game.is_terminal(state):
                break
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
        if not game.is_terminal(state):
            found.append(state)
    return found


def test_values_are_seen_from_the_asking_player():
    game = Othello(4)
    predict = disc_network(game)
    state = game.next_state(game.initial_state(), int(np.flatnonzero(game.legal_mask(game.initial_state()))[0]))
    mover = game.to_move(state)
    assert value_for(game, state, mover, predict) == pytest.approx(predict(state)[1])
    assert value_for(game, state, 1 - mover, predict) == pytest.approx(-predict(state)[1])


def test_a_finished_game_counts_its_result_not_the_network():
    game = Othello(4)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    lying = lambda s: (np.ones(game.action_space_size), 0.123)  # noqa: E731
    assert [value_for(game, state, p, lying) for p in (0, 1)] == list(game.returns(state))


def test_masked_prior_keeps_legal_moves_only_and_falls_back_to_uniform():
    game = Othello(6)
    state = game.initial_state()
    legal = game.legal_mask(state)
    prior = masked_prior(game, state, lambda s: (np.arange(game.action_space_size, dtype=float), 0.0))
    assert prior.sum() == pytest.approx(1) and np.all(prior[~legal] == 0) and np.all(prior[legal] > 0)
    uniform = masked_prior(game, state, lambda s: (np.where(legal, 0.0, 1.0), 0.0))
    np.testing.assert_allclose(uniform, legal / legal.sum())


def test_the_value_player_with_disc_values_plays_the_greedy_move():
    game = Othello(6)
    value_agent, greedy = ValueAgent(game, disc_network(game)), GreedyAgent(game)
    for state in random_positions(game, 40, seed=1):
        assert value_agent.choose(state) == greedy.choose(state)


def test_the_policy_player_is_greedy_or_samples_legal_moves_by_the_prior():
    game = Othello(6)
    state = game.initial_state()
    weights = np.arange(1, game.action_space_size + 1, dtype=float)
    predict = lambda s: (weights, 0.0)  # noqa: E731
    legal = np.flatnonzero(game.legal_mask(state))
    assert PolicyNetAgent(game, predict).choose(state) == legal[-1]
    sampler = PolicyNetAgent(game, predict, np.random.default_rng(0), sample=True)
    draws = np.bincount([sampler.choose(state) for _ in range(4000)], minlength=game.action_space_size)
    assert set(np.flatnonzero(draws)) == set(legal)
    expected = weights[legal] / weights[legal].sum()
    np.testing.assert_allclose(draws[legal] / 4000, expected, atol=0.03)


def winning_choice(game, seed):
    """A position where exactly one legal action, not the lowest, ends the game won by the mover."""
    for state in random_positions(game, 400, seed):
        legal = np.flatnonzero(game.legal_mask(state))
        mover = game.to_move(state)
        wins = [a for a in legal if game.is_terminal(game.next_state(state, int(a)))
                and game.returns(game.next_state(state, int(a)))[mover] == 1]
        if len(wins) == 1 and wins[0] != legal[0] and len(legal) > 1:
            return state, int(wins[0])
    raise AssertionError("no such position found")


def test_monte_carlo_rollouts_start_after_the_candidate_move():
    """The seed tutorial's planner rolled out every candidate from the current board, so all candidates
    looked alike; rolled out from after each candidate, the winning move is seen."""
    game = Othello(4)
    state, win = winning_choice(game, seed=5)
    predict = disc_network(game)
    legal = int(game.legal_mask(state).sum())
    planner = MonteCarloAgent(game, predict, np.random.default_rng(0), top_k=legal, rollouts=3, depth=0)
    values = planner.action_values(state)
    assert planner.choose(state) == win and values[win] == 1.0

    class FromTheCurrentBoard(MonteCarloAgent):  # the seed's slip, for comparison
        def action_values(self, state):
            me = self.game.to_move(state)
            return {int(a): float(np.mean([self.rollout(state, me) for _ in range(self.rollouts)]))
                    for a in np.flatnonzero(self.game.legal_mask(state))}

    slipped = FromTheCurrentBoard(game, predict, np.random.default_rng(0), top_k=legal, rollouts=3, depth=0)
    assert slipped.choose(state) != win  # every candidate gets the same value: the lowest index wins the tie


def test_monte_carlo_beats_random_and_matches_disc_greed():
    game = Othello(6)
    predict = disc_network(game)
    planner = lambda rng: MonteCarloAgent(game, predict, rng, top_k=3, rollouts=4, depth=3)  # noqa: E731
    randomly = lambda rng: FunctionAgent(lambda s, r: int(r.choice(np.flatnonzero(game.legal_mask(s)))), rng)  # noqa: E731
    match = play_match(lambda: game, planner, randomly, games=20, seed=0, paired_deals=False, progress=False)
    assert match.wins >= 15, match.text()


def test_network_players_refuse_a_board_without_a_shipped_network():
    import subprocess
    import sys

    from azcourse.core.agents import PolicyUnavailable
    from azcourse.othello.agents import make_opponent

    for name in ("value", "policy", "monte-carlo", "alphazero"):
        with pytest.raises(PolicyUnavailable, match="no trained othello4 network is shipped"):
            make_opponent(name, Othello(4), np.random.default_rng(0), 10)
    done = subprocess.run([sys.executable, "play.py", "othello", "--size", "4", "--opponent", "policy"],
                          input="quit\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no trained othello4 network" in done.stderr


SHIPPED_6X6 = (Path(__file__).resolve().parents[1] / "ckpts" / "othello6" / "best" / "card.json").is_file()


@pytest.mark.skipif(not SHIPPED_6X6, reason="no shipped ckpts/othello6")
@pytest.mark.parametrize("name", ["value", "policy", "monte-carlo", "alphazero"])
def test_the_shipped_network_players_play_legal_games(name):
    from azcourse.othello.agents import make_opponent

    game = Othello(6)
    make = lambda rng: make_opponent(name, game, rng, 20)  # noqa: E731
    randomly = lambda rng: FunctionAgent(lambda s, r: int(r.choice(np.flatnonzero(game.legal_mask(s)))), rng)  # noqa: E731
    match = play_match(lambda: game, make, randomly, games=2, seed=0, paired_deals=False, progress=False)
    assert match.games == 2  # play_game refuses any illegal move
