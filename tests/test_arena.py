"""The one arena (azcourse.core.arena) on games without chance: seats, draws, seeding, openings, round robins."""
import functools

import numpy as np
import pytest

from azcourse.core import arena
from azcourse.core.agents import RandomAgent
from azcourse.othello.agents import GreedyAgent
from azcourse.othello.game import Othello
from azcourse.tictactoe.game import TicTacToe


class FirstLegal:
    """Deterministic: the lowest legal action."""

    name = "first"

    def __init__(self, game):
        self.game, self.seen = game, []

    def choose(self, state):
        return int(np.flatnonzero(self.game.legal_mask(state))[0])

    def observe(self, action):
        self.seen.append(action)


def first_legal(rng):
    return FirstLegal(TicTacToe())


def random_agent(rng, game_class=TicTacToe):
    return RandomAgent(game_class(), rng)


def test_a_game_records_seats_moves_and_the_winner_and_every_agent_observes_every_move():
    game = TicTacToe()
    a, b = FirstLegal(game), FirstLegal(game)
    record, final = arena.play_game(game, (a, b))
    assert game.is_terminal(final) and record.winner == 0  # X fills the top row first (squares 0, 1, 2)
    assert record.returns == (1.0, -1.0) and record.scores == record.returns
    assert sum(record.moves) == len(a.seen) == len(b.seen) and a.seen == b.seen
    assert record.moves[0] == record.moves[1] + 1 and record.chance_steps == 0


def test_an_illegal_choice_is_refused():
    game = TicTacToe()
    cheat = FirstLegal(game)
    cheat.choose = lambda state: 0  # square 0, which X has just taken
    with pytest.raises(arena.IllegalAgentMove, match="seat 1"):
        arena.play_game(game, (FirstLegal(game), cheat))


def test_a_draw_is_reported_apart_and_counts_half():
    """Two perfect tic-tac-toe players draw every game: no win or loss for either side."""
    from azcourse.tictactoe.perfect import PerfectAgent

    match = arena.play_match(TicTacToe, PerfectAgent, PerfectAgent, games=6, seed=0, progress=False,
                             names=("a", "b"), opening_moves=1)
    assert (match.wins, match.draws, match.losses) == (0, 6, 0)
    assert match.score_rate == 0.5 and match.win_rate == 0.0
    lo, hi = match.interval("draws")
    assert lo > 0.5 and hi == 1.0


def test_seats_alternate_and_the_match_is_a_function_of_its_seed():
    one = arena.play_match(TicTacToe, random_agent, first_legal, games=40, seed=3, progress=False)
    again = arena.play_match(TicTacToe, random_agent, first_legal, games=40, seed=3, progress=False)
    other = arena.play_match(TicTacToe, random_agent, first_legal, games=40, seed=4, progress=False)
    assert one.score_diffs == again.score_diffs and one.score_diffs != other.score_diffs
    assert one.wins + one.draws + one.losses == 40
    lo, hi = one.interval()
    assert lo <= one.win_rate <= hi


def test_results_are_split_by_seat():
    """Two copies of the same deterministic player: the one that opens always wins (X takes the top
    row), so A wins every game it opens and loses every other, 50% overall."""
    match = arena.play_match(TicTacToe, first_legal, first_legal, games=10, seed=0, progress=False)
    assert match.by_seat == ((5, 0, 0), (0, 0, 5)) and match.win_rate == 0.5
    rate, lo, hi = match.seat_win_rate(0)
    assert rate == 1.0 and lo > 0.5 and match.seat_win_rate(1)[0] == 0.0
    assert match.as_dict()["by_seat"]["second"] == {"wins": 0, "draws": 0, "losses": 5}
    assert "moving first: 5/0/0  moving second: 0/0/5" in match.text()


def test_workers_do_not_change_the_result():
    serial = arena.play_match(TicTacToe, random_agent, random_agent, games=12, seed=5, progress=False)
    parallel = arena.play_match(TicTacToe, random_agent, random_agent, games=12, seed=5, workers=2, progress=False)
    assert serial.score_diffs == parallel.score_diffs


def test_random_openings_vary_deterministic_games_and_pairs_share_them():
    game = Othello(6)
    greedy = lambda rng: GreedyAgent(game)  # noqa: E731
    fixed = arena.play_match(lambda: game, greedy, greedy, games=8, seed=0, progress=False)
    varied = arena.play_match(lambda: game, greedy, greedy, games=8, seed=0, progress=False, opening_moves=4)
    assert len({abs(d) for d in fixed.score_diffs}) == 1  # one game, played from both seats
    assert len(set(varied.score_diffs)) > 2
    # the two games of a pair start from the same opening
    openings = [arena.random_opening(game, arena.game_generators(0, i, True)[0], 4) for i in range(4)]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[0] != openings[2]


def test_a_round_robin_counts_wins_and_draws_per_pair():
    from azcourse.tictactoe.perfect import PerfectAgent

    game = TicTacToe()
    rng = np.random.default_rng(0)
    agents = [PerfectAgent(rng), RandomAgent(game, rng), FirstLegal(game)]
    result = arena.round_robin(game, agents, ["perfect", "random", "first"], 10, rng, show_progress=False)
    assert np.all(result.wins + result.wins.T + result.draws == 10 - 10 * np.eye(3, dtype=int))
    assert result.wins[1, 0] == 0 and result.wins[2, 0] == 0  # nobody beats the perfect player
    rate = result.score_rate()
    off = ~np.eye(3, dtype=bool)
    assert np.all(np.isnan(rate[~off])) and np.allclose((rate + rate.T)[off], 1.0)
    intervals = result.intervals()
    assert intervals.shape == (3, 3, 2) and np.all(intervals[0, 1, 0] <= result.wins[0, 1] / 10)


def test_a_pickled_agent_factory_plays_in_workers():
    make = functools.partial(random_agent, game_class=TicTacToe)
    match = arena.play_match(TicTacToe, make, make, games=4, seed=0, workers=2, progress=False)
    assert match.games == 4 and match.workers == 2
