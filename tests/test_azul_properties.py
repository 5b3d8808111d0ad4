"""Property tests over thousands of random games (AZUL_RULES.md invariants and the engine contract).

One module-level set of recorded games (2,000 seeds, three policies: uniform, pattern-lines first,
floor first) feeds most checks, so each invariant is checked on every reachable state of every game:
tile census, NOOP legality, termination, scores, structured-view round trip, reward symmetry, the
``current_seat`` contract. A few tests replay games themselves (purity, determinism) and hypothesis
draws extra seeds.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import Azul_Simulator as az
from Azul_Simulator import (NOOP, AzulState, current_seat, flip_board, get_next_state, get_reward,
                            get_valid_mask, init_board, tile_census)
from azul_builders import random_game

N_GAMES = 2000
pytestmark = pytest.mark.slow  # 2,000 recorded games (about 35 CPU-s): the whole suite only; the rules' unit tests are in test_azul_rules.py
FLOOR_EVERY = 40   # every 40th game prefers the floor: those run to the round cap (~600 steps each)


def policy_of(seed: int) -> str:
    if seed % FLOOR_EVERY == FLOOR_EVERY - 1:
        return "floor"
    return "uniform" if seed % 2 == 0 else "lines"


class Game:
    """A recorded game: ``boards[i]`` --``actions[i]``--> ``boards[i + 1]``; ``masks[i]`` is the mask
    of ``boards[i]``; the last board is terminal.

    Every board is decoded once (``AzulState.decode``, ``tile_census``) into per-state arrays, indexed
    by *absolute seat* where a player is meant, so the tests below are plain array checks.
    """

    def __init__(self, seed: int):
        self.seed = seed
        boards, masks, actions = [], [], []
        last = None
        for b, mask, action, nxt in random_game(seed, policy_of(seed)):
            boards.append(b)
            masks.append(mask)
            actions.append(action)
            last = nxt
        boards.append(last)
        self.boards = np.stack(boards)
        self.masks = np.stack(masks)
        self.actions = np.array(actions)
        n = len(boards)
        self.census_totals = np.zeros((n, 5), dtype=np.int64)
        self.census_min = np.zeros(n, dtype=np.int64)
        self.round_trip = np.zeros(n, dtype=bool)
        self.seat = np.zeros(n, dtype=np.int64)
        self.score = np.zeros((n, 2), dtype=np.int64)
        self.wall = np.zeros((n, 2, 5, 5), dtype=bool)
        self.rows = np.zeros((n, 2), dtype=np.int64)
        self.has_marker = np.zeros((n, 2), dtype=bool)
        self.is_starter = np.zeros((n, 2), dtype=bool)
        self.marker_in_centre = np.zeros(n, dtype=bool)
        self.offer_empty = np.zeros(n, dtype=bool)
        self.game_over = np.zeros(n, dtype=bool)
        self.round = np.zeros(n, dtype=np.int64)
        self.max_factory = np.zeros(n, dtype=np.int64)
        for i, b in enumerate(self.boards):
            census = np.array(list(tile_census(b).values()))
            self.census_totals[i] = census.sum(axis=0)
            self.census_min[i] = census.min()
            s = AzulState.decode(b)
            again = s.encode()
            self.round_trip[i] = np.array_equal(again, b) and again.dtype == b.dtype
            self.seat[i] = current_seat(b)
            for k, seat in enumerate((s.seat, 1 - s.seat)):
                p = s.players[k]
                self.score[i, seat] = p.score
                self.wall[i, seat] = p.wall
                self.rows[i, seat] = p.complete_rows()
                self.has_marker[i, seat] = p.has_marker
                self.is_starter[i, seat] = p.is_starter
            self.marker_in_centre[i] = s.marker_in_centre
            self.offer_empty[i] = s.factories.sum() == 0 and s.centre.sum() == 0
            self.game_over[i] = s.game_over
            self.round[i] = s.round
            self.max_factory[i] = s.factories.sum(axis=1).max()

    def steps(self):
        for i, action in enumerate(self.actions):
            yield self.boards[i], self.masks[i], int(action), self.boards[i + 1]


@pytest.fixture(scope="module")
def games() -> list[Game]:
    return [Game(seed) for seed in range(N_GAMES)]


def offer_empty(s: AzulState) -> bool:
    return s.factories.sum() == 0 and s.centre.sum() == 0


# ------------------------------------------------------------------------------------------------
def test_recorded_games_are_varied(games):
    lengths = np.array([len(g.actions) for g in games])
    rounds = np.array([g.round[-1] for g in games])
    assert len(games) == N_GAMES
    assert lengths.min() > 10 and rounds.min() >= 5
    assert len(set(rounds.tolist())) >= 4     # different games last different numbers of rounds
    assert (rounds == az.MAX_ROUNDS).sum() >= N_GAMES // FLOOR_EVERY   # the floor games hit the cap
    assert sum(len(g.boards) for g in games) > 100_000


def test_tile_census_20_per_colour_in_every_state(games):
    for g in games:
        assert (g.census_totals == 20).all(), g.seed
        assert (g.census_min >= 0).all(), g.seed


def test_factories_never_hold_more_than_four(games):
    for g in games:
        assert (g.max_factory <= 4).all(), g.seed


def test_noop_legal_exactly_at_round_ends_and_then_alone(games):
    for g in games:
        before = slice(0, -1)
        assert not g.game_over[before].any()
        assert np.array_equal(g.masks[:, NOOP], g.offer_empty[before]), g.seed
        noop_rows = g.masks[:, NOOP]
        assert (g.masks[noop_rows].sum(axis=1) == 1).all()
        assert (g.actions[noop_rows] == NOOP).all()
        assert g.masks[~noop_rows].any(axis=1).all()     # no pass: a take exists while the offer lasts
        assert g.game_over[-1]
        assert not get_valid_mask(g.boards[-1]).any()


def test_games_terminate_with_a_complete_row_or_the_cap(games):
    for g in games:
        assert g.game_over[-1] and 1 <= g.round[-1] <= az.MAX_ROUNDS
        assert g.rows[-1].max() >= 1 or g.round[-1] == az.MAX_ROUNDS, g.seed
        assert g.actions[-1] == NOOP     # the game ends on a wall-tiling, never on a take


def test_no_complete_row_before_the_final_round_end(games):
    for g in games:
        assert (g.rows[:-1] == 0).all(), g.seed


def test_scores_never_negative_and_change_only_at_round_ends(games):
    for g in games:
        assert (g.score >= 0).all(), g.seed
        takes = g.actions != NOOP
        assert np.array_equal(g.score[1:][takes], g.score[:-1][takes]), g.seed
        assert np.array_equal(g.wall[1:][takes], g.wall[:-1][takes]), g.seed
        # walls only ever gain tiles
        assert (g.wall[1:] >= g.wall[:-1]).all()


def test_final_score_is_wall_tiling_plus_bonus_once(games):
    # Recompute the last round with the public helpers: per seat, the wall-tiling of the complete
    # pattern lines and the floor, then the end bonus.
    for g in games:
        before, after = AzulState.decode(g.boards[-2]), AzulState.decode(g.boards[-1])
        for seat in (0, 1):
            p = before.by_seat(seat)
            completed = [(r, int(np.argmax(p.pattern[r]))) for r in range(5) if p.pattern[r].sum() == r + 1]
            n_floor = int(p.floor.sum()) + int(p.has_marker)
            score, wall = az.wall_tiling(p.score, p.wall, completed, n_floor)
            assert (wall == after.by_seat(seat).wall).all()
            assert after.by_seat(seat).score == score + az.end_game_bonus(wall), g.seed


def test_every_round_end_matches_wall_tiling(games):
    # The same recomputation for every NOOP of 300 games (no bonus before the end).
    for g in games[:300]:
        for i in np.flatnonzero(g.actions == NOOP)[:-1]:
            before, after = AzulState.decode(g.boards[i]), AzulState.decode(g.boards[i + 1])
            for seat in (0, 1):
                p = before.by_seat(seat)
                completed = [(r, int(np.argmax(p.pattern[r]))) for r in range(5)
                             if p.pattern[r].sum() == r + 1]
                score, wall = az.wall_tiling(p.score, p.wall, completed, int(p.floor.sum()) + p.has_marker)
                assert after.by_seat(seat).score == score and (after.by_seat(seat).wall == wall).all()


def test_decode_encode_round_trip(games):
    for g in games:
        assert g.round_trip.all(), g.seed


def test_reward_of_flipped_board_negates(games):
    for g in games:
        for b in g.boards:
            reward, over = get_reward(b)
            f_reward, f_over = get_reward(flip_board(b))
            assert f_over == over and f_reward == -reward
            if not over:
                assert reward == 0
            assert current_seat(flip_board(b)) == 1 - current_seat(b)
        # the final reward agrees with the scores and the row tie-break (rule 20)
        me, opp = g.seat[-1], 1 - g.seat[-1]
        expected = az.winner((g.score[-1, me], g.score[-1, opp]), (g.rows[-1, me], g.rows[-1, opp]))
        assert get_reward(g.boards[-1]) == ({None: 0, 0: 1, 1: -1}[expected], True)


def test_current_seat_contract(games):
    for g in games:
        assert set(np.unique(g.seat)) <= {0, 1}
        for i, action in enumerate(g.actions):
            seat, nxt = g.seat[i], g.seat[i + 1]
            if action == NOOP:
                # the player to move at the NOOP starts the new round (and stays to move):
                # the marker holder (rule 14), or this round's starter if nobody took it (rule 15)
                assert nxt == seat
                if g.marker_in_centre[i]:
                    assert g.is_starter[i, seat]
                else:
                    assert g.has_marker[i, seat]
                if not g.game_over[i + 1]:
                    assert g.is_starter[i + 1, seat] and not g.is_starter[i + 1, 1 - seat]
                    assert g.marker_in_centre[i + 1] and not g.has_marker[i + 1].any()
            elif not g.offer_empty[i + 1]:
                assert nxt == 1 - seat, g.seed                 # within a round, seats alternate
            else:                                               # last take of the round
                holders = np.flatnonzero(g.has_marker[i + 1])
                starter = np.flatnonzero(g.is_starter[i + 1])
                assert nxt == (holders[0] if holders.size else starter[0]), g.seed


def test_marker_is_in_exactly_one_place(games):
    for g in games:
        places = g.marker_in_centre.astype(int) + g.has_marker.sum(axis=1)
        assert (places[~g.game_over] == 1).all(), g.seed
        assert (places <= 1).all()
        assert (g.is_starter.sum(axis=1) == 1).all()


def test_both_seats_start_games(games):
    starters = [g.seat[0] for g in games]
    assert 0.4 < np.mean(starters) < 0.6


def test_inputs_never_mutated():
    for seed in range(60):
        for b, mask, action, _ in random_game(seed, policy_of(seed)):
            snapshot = b.copy()
            get_valid_mask(b)
            get_reward(b)
            flip_board(b)
            current_seat(b)
            tile_census(b)
            AzulState.decode(b)
            get_next_state(b, action, np.random.default_rng(seed))
            if action != NOOP:
                az.take_action_from_string(b, az.action_to_string(action))
                illegal = np.flatnonzero(~mask[:NOOP])
                if illegal.size:
                    az.take_action_from_string(b, az.action_to_string(int(illegal[0])))
            assert np.array_equal(b, snapshot) and b.dtype == snapshot.dtype, seed


def test_illegal_actions_are_refused_by_get_next_state(games):
    pick = np.random.default_rng(0)
    for g in games[:60]:
        for b, mask, _, _ in list(g.steps())[::5]:
            illegal = np.flatnonzero(~mask)
            for a in pick.choice(illegal, size=min(15, illegal.size), replace=False):
                with pytest.raises(ValueError):
                    get_next_state(b, int(a), np.random.default_rng(0))


def test_same_seed_same_game(games):
    for g in games[:100]:
        again = Game(g.seed)
        assert np.array_equal(again.boards, g.boards) and np.array_equal(again.actions, g.actions)


def test_different_seeds_different_games(games):
    first_deals = {g.boards[0].tobytes() for g in games[:200]}
    assert len(first_deals) == 200
    whole_games = {g.boards.tobytes() for g in games}
    assert len(whole_games) == len(games)


def test_same_position_different_rng_different_refills(games):
    for g in games[:50]:
        i = int(np.flatnonzero(g.actions == NOOP)[0])
        deals = {get_next_state(g.boards[i], NOOP, np.random.default_rng(k)).tobytes() for k in range(8)}
        assert len(deals) >= 6


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**63 - 1),
       policy=st.sampled_from(["uniform", "lines", "floor"]))
def test_any_seed_plays_a_sound_game(seed, policy):
    steps = 0
    final = None
    for b, mask, action, nxt in random_game(seed, policy):
        steps += 1
        assert mask[action]
        assert steps < 5000
        final = nxt
        s = AzulState.decode(nxt)
        assert np.sum(list(tile_census(nxt).values()), axis=0).tolist() == [20] * 5
        assert all(p.score >= 0 for p in s.players)
        assert (s.factories.sum(axis=1) <= 4).all()
    assert AzulState.decode(final).game_over
