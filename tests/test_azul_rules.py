"""Rules tests for the Azul engine, organised by the numbered items of ``shared/AZUL_RULES.md``.

Every expected value below is worked out by hand from the specification (the comment next to it shows
the arithmetic), not read off the engine. Wall cells are (row, column) counted from 0; cell (r, c)
holds colour (c - r) mod 5 with colours B Y R D W = 0..4 (D = black).

Positions are built with the helpers of ``azul_builders`` (walls as '#'/'.' strings, tiles as colour
letters) and run through the public engine: ``get_next_state``, ``get_valid_mask``, ``get_reward``.
The last class checks, one by one, the "mistakes seen in public engines" of the specification.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import Azul_Simulator as az
from Azul_Simulator import (NOOP, AzulState, current_seat, end_game_bonus, floor_penalty,
                            get_next_state, get_reward, get_valid_mask, init_board, score_placement,
                            string_to_action, tile_census, wall_tiling, winner)
from azul_builders import (B, D, R, W, Y, census_totals, colour_at, column_of, counts, legal_codes,
                           play, player, random_game, state, wall, wall_with)

RNG_SEED = 12345


def rng(seed: int = RNG_SEED) -> np.random.Generator:
    return np.random.default_rng(seed)


def noop(b: np.ndarray, seed: int = RNG_SEED) -> np.ndarray:
    """The round-ending chance step, after checking it is the only legal action."""
    assert legal_codes(b) == {"NOOP"}
    return get_next_state(b, NOOP, rng(seed))


def round_end(me: dict | None = None, opp: dict | None = None, **kwargs) -> np.ndarray:
    """A position where the offer is exhausted (the NOOP is next), seen from the next round's starter.

    By default nobody took the marker this round (it is still in the centre) and ``me`` started the
    round, so ``me`` starts the next one (rule 15) and no floor space is taken by the marker.
    """
    me = dict(me or {})
    opp = dict(opp or {})
    if not me.get("has_marker") and not opp.get("has_marker"):
        kwargs.setdefault("marker_in_centre", True)
        me.setdefault("is_starter", True)
    return state(me=player(**me), opp=player(**opp), **kwargs).encode()


def seat_view(b: np.ndarray, seat: int):
    return AzulState.decode(b).by_seat(seat)


def expected_reward(b: np.ndarray, winner_seat: int | None) -> int:
    if winner_seat is None:
        return 0
    return 1 if winner_seat == current_seat(b) else -1


# ================================================================================================
# Components and set-up
# ================================================================================================
class TestRule01_Components:
    def test_colour_codes_and_order(self):
        assert az.COLOUR_CODES == "BYRDW"
        assert az.N_COLOURS == 5

    @pytest.mark.parametrize("seed", range(10))
    def test_new_game_holds_100_tiles_20_per_colour_scores_zero(self, seed):
        b = init_board(rng(seed))
        s = AzulState.decode(b)
        assert census_totals(b).tolist() == [20] * 5
        # All tiles start in the bag: after the first fill, bag + factories is everything.
        assert (s.bag + s.factories.sum(axis=0)).tolist() == [20] * 5
        assert s.lid.tolist() == [0] * 5 and s.centre.tolist() == [0] * 5
        for p in s.players:
            assert p.score == 0
            assert not p.wall.any() and p.pattern.sum() == 0 and p.floor.sum() == 0
            assert not p.has_marker
        assert s.round == 1 and not s.game_over

    def test_census_places_cover_every_tile_location(self):
        b = round_end(me=dict(pattern={3: "RR"}, wall_rows=["#....", ".....", ".....", ".....", "....."],
                              floor="DD"),
                      opp=dict(pattern={5: "WWWW"}, floor="Y"), lid="BBY")
        census = tile_census(b)
        assert census["seat 0 pattern lines"].tolist() == [0, 0, 2, 0, 0]
        assert census["seat 0 wall"].tolist() == [1, 0, 0, 0, 0]      # (0, 0) is Blue
        assert census["seat 0 floor"].tolist() == [0, 0, 0, 2, 0]
        assert census["seat 1 pattern lines"].tolist() == [0, 0, 0, 0, 4]
        assert census["seat 1 floor"].tolist() == [0, 1, 0, 0, 0]
        assert census["lid"].tolist() == [2, 1, 0, 0, 0]
        assert census_totals(b).tolist() == [20] * 5


class TestRule02_Factories:
    @pytest.mark.parametrize("seed", range(10))
    def test_five_factories_of_exactly_four(self, seed):
        s = AzulState.decode(init_board(rng(seed)))
        assert s.factories.shape == (5, 5)
        assert s.factories.sum(axis=1).tolist() == [4] * 5
        assert s.bag.sum() == 80

    @pytest.mark.parametrize("seed", range(5))
    def test_every_round_refill_is_20_tiles_while_tiles_last(self, seed):
        for b, _, action, nxt in random_game(seed, policy="lines"):
            s = AzulState.decode(nxt)
            if action == NOOP and not s.game_over:
                available = s.factories.sum() + s.bag.sum() + s.lid.sum()
                if available >= 20:
                    assert s.factories.sum(axis=1).tolist() == [4] * 5
                else:
                    assert s.factories.sum() == available and s.bag.sum() + s.lid.sum() == 0


class TestRule03_FirstPlayer:
    def test_both_seats_start_some_games_and_seed_decides(self):
        starters = [current_seat(init_board(rng(seed))) for seed in range(40)]
        assert set(starters) == {0, 1}
        assert starters == [current_seat(init_board(rng(seed))) for seed in range(40)]

    @pytest.mark.parametrize("seed", range(6))
    def test_player_to_move_at_start_is_the_starter(self, seed):
        s = AzulState.decode(init_board(rng(seed)))
        assert s.players[0].is_starter and not s.players[1].is_starter
        assert s.marker_in_centre


# ================================================================================================
# Phase A: factory offer
# ================================================================================================
class TestRule04_TurnOrder:
    def test_marker_in_centre_and_starter_moves_first_at_round_start(self):
        b = round_end(me=dict(has_marker=True), opp=dict(), marker_in_centre=False)
        seat = current_seat(b)
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert s.marker_in_centre
        assert current_seat(nxt) == seat
        assert s.players[0].is_starter and not s.players[1].is_starter

    def test_turns_alternate_within_a_round(self):
        b = state(factories=["BBYR", "DDWW", "RRRR"], marker_in_centre=True, seat=1).encode()
        b1 = play(b, "1B2")
        assert current_seat(b1) == 0
        b2 = play(b1, "2DF")
        assert current_seat(b2) == 1
        b3 = play(b2, "CY1")      # centre take, offer still not empty
        assert current_seat(b3) == 0


class TestRule05_Take:
    def test_factory_take_takes_all_of_colour_and_rest_goes_to_centre(self):
        b = state(factories=["BBYR", "DDDW"], centre="D", marker_in_centre=True).encode()
        nxt = play(b, "1B2")
        s = AzulState.decode(nxt)
        assert s.factories[0].tolist() == [0] * 5
        assert s.centre.tolist() == counts("DYR").tolist()            # old D + Y + R
        assert s.factories[1].tolist() == counts("DDDW").tolist()     # other factories untouched
        assert s.by_seat(0).pattern[1].tolist() == counts("BB").tolist()
        assert s.marker_in_centre                                      # a factory take leaves it

    def test_centre_take_takes_all_of_one_colour_only(self):
        b = state(factories=["BBBB"], centre="RRRYD", marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "CR3"))
        assert s.centre.tolist() == counts("YD").tolist()
        assert s.by_seat(0).pattern[2].tolist() == counts("RRR").tolist()

    def test_no_pass_while_tiles_remain(self):
        b = state(factories=["BBYR"], marker_in_centre=True).encode()
        mask = get_valid_mask(b)
        assert not mask[NOOP]
        assert mask.sum() > 0

    def test_marker_alone_is_never_taken(self):
        # Centre holds only the marker: no centre move exists.
        b = state(factories=["BBYR"], centre="", marker_in_centre=True).encode()
        assert not any(code.startswith("C") for code in legal_codes(b))
        assert legal_codes(b) == {f"1{c}{d}" for c in "BYR" for d in "12345F"}

    def test_only_present_colours_from_present_sources(self):
        b = state(factories=["", "YYYY"], centre="D", marker_in_centre=False).encode()
        assert legal_codes(b) == {f"{s}{c}{d}" for s, c in (("2", "Y"), ("C", "D")) for d in "12345F"}


class TestRule06_Marker:
    def test_first_centre_take_gets_marker_on_floor_even_to_a_pattern_line(self):
        b = state(factories=["BBBB"], centre="RR", marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "CR2"))
        me = s.by_seat(0)
        assert me.has_marker and not s.marker_in_centre
        assert me.pattern[1].tolist() == counts("RR").tolist()
        assert me.floor.sum() == 0          # the tiles fit the line, the marker is not a tile
        assert me.floor_items() == 1        # ... but it takes a floor space

    def test_marker_takes_leftmost_free_space_after_existing_floor_tiles(self):
        b = state(me=player(floor="DD", is_starter=True), factories=["BBBB"], centre="R",
                  marker_in_centre=True).encode()
        me = AzulState.decode(play(b, "CRF")).by_seat(0)
        assert me.has_marker and me.floor.tolist() == counts("DDR").tolist()
        assert me.floor_items() == 4

    def test_second_centre_take_does_not_get_marker(self):
        b = state(factories=["BBBB"], centre="RRY", marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "CR2", "CY1"))
        assert s.by_seat(0).has_marker and not s.by_seat(1).has_marker
        assert s.by_seat(1).floor_items() == 0

    def test_factory_take_does_not_get_marker(self):
        b = state(factories=["BBBB", "YYYY"], centre="R", marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "1B1"))
        assert s.marker_in_centre and not s.by_seat(0).has_marker


class TestRule07_PatternLines:
    @pytest.mark.parametrize("line, n_taken, held, on_line, on_floor", [
        (1, 1, 0, 1, 0),
        (1, 4, 0, 1, 3),    # line 1 holds 1: 3 overflow
        (2, 3, 0, 2, 1),
        (3, 3, 2, 3, 2),    # 2 already there: 1 fits, 2 overflow
        (4, 2, 1, 3, 0),
        (5, 4, 0, 4, 0),
        (5, 4, 3, 5, 2),    # 3 already there: 2 fit, 2 overflow
    ])
    def test_fill_the_line_first_only_excess_to_floor(self, line, n_taken, held, on_line, on_floor):
        pattern = {line: "R" * held} if held else None
        b = state(me=player(pattern=pattern, is_starter=True),
                  factories=["R" * n_taken, "BBBB"], marker_in_centre=True).encode()
        me = AzulState.decode(play(b, f"1R{line}")).by_seat(0)
        assert me.pattern[line - 1].tolist() == counts("R" * on_line).tolist()
        assert me.floor.tolist() == counts("R" * on_floor).tolist()
        # one line only: every other line untouched
        for other in range(5):
            if other != line - 1:
                assert me.pattern[other].sum() == 0

    def test_a_too_small_line_is_legal(self):
        b = state(factories=["RRRR"], marker_in_centre=True).encode()
        assert {"1R1", "1R2", "1R3", "1R4", "1R5", "1RF"} <= legal_codes(b)

    def test_line_holding_another_colour_refuses(self):
        b = state(me=player(pattern={4: "Y"}, is_starter=True), factories=["RRYB"],
                  marker_in_centre=True).encode()
        codes = legal_codes(b)
        assert "1R4" not in codes and "1B4" not in codes and "1Y4" in codes

    @pytest.mark.parametrize("row", range(5))
    @pytest.mark.parametrize("colour", range(5))
    def test_colour_already_on_wall_row_refuses(self, row, colour):
        cells = [(row, column_of(row, colour))]
        b = state(me=player(wall_rows=_rows(wall_with(cells)), is_starter=True),
                  factories=["BYRD", "WWWW"], marker_in_centre=True).encode()
        mask = get_valid_mask(b)
        source = "1" if colour != W else "2"
        code = f"{source}{'BYRDW'[colour]}{row + 1}"
        assert not mask[string_to_action(code)]
        other_rows = {f"{source}{'BYRDW'[colour]}{r + 1}" for r in range(5) if r != row}
        assert other_rows <= legal_codes(b)

    def test_everything_to_floor_by_choice(self):
        b = state(factories=["RRBY"], marker_in_centre=True).encode()
        me = AzulState.decode(play(b, "1RF")).by_seat(0)
        assert me.floor.tolist() == counts("RR").tolist() and me.pattern.sum() == 0


def _rows(w: np.ndarray) -> list[str]:
    return ["".join("#" if x else "." for x in row) for row in w]


class TestRule08_FloorCapacity:
    def test_tiles_beyond_seven_go_to_lid(self):
        b = state(me=player(floor="DDDDD", is_starter=True), factories=["BBBB", "YYYY"],
                  marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "1BF"))
        assert s.by_seat(0).floor.tolist() == counts("DDDDDBB").tolist()
        assert s.lid.tolist() == counts("BB").tolist()
        assert census_totals(play(b, "1BF")).tolist() == [20] * 5

    def test_overflow_from_a_line_beyond_the_floor_goes_to_lid(self):
        b = state(me=player(floor="DDDDDD", is_starter=True), factories=["BBBB", "YYYY"],
                  marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "1B1"))    # 1 on the line, 3 excess: 1 on floor, 2 to lid
        me = s.by_seat(0)
        assert me.pattern[0].tolist() == counts("B").tolist()
        assert me.floor.tolist() == counts("DDDDDDB").tolist()
        assert s.lid.tolist() == counts("BB").tolist()

    def test_lid_tiles_cost_nothing(self):
        # 7 floor tiles + marker + more tiles in the lid: the penalty is the 7-space maximum, -14.
        b = round_end(me=dict(score=30, floor="DDDDDDD", has_marker=True), marker_in_centre=False,
                      lid="BBBB")
        assert seat_view(noop(b), current_seat(b)).score == 30 - 14


class TestRule09_NoDuplicateMoves:
    def test_full_line_is_not_a_destination(self):
        b = state(me=player(pattern={2: "BB"}, is_starter=True), factories=["BBYR"],
                  marker_in_centre=True).encode()
        assert legal_codes(b) == {
            "1B1", "1B3", "1B4", "1B5", "1BF",
            "1Y1", "1Y3", "1Y4", "1Y5", "1YF",       # line 2 holds Blue
            "1R1", "1R3", "1R4", "1R5", "1RF",
        }

    def test_only_takes_exist_while_a_take_is_possible(self):
        b = state(factories=["BBYR", "DDWW"], centre="Y", marker_in_centre=True).encode()
        mask = get_valid_mask(b)
        assert mask.shape == (az.ACTION_DIM,) and az.ACTION_DIM == 181
        assert not mask[NOOP]
        # 6 (source, colour) pairs (1B 1Y 1R 2D 2W CY), each to 5 lines + floor on an empty board
        assert mask.sum() == 6 * 6

    def test_all_lines_full_or_blocked_leaves_only_the_floor(self):
        b = state(me=player(pattern={1: "Y", 2: "YY", 3: "YYY", 4: "YYYY", 5: "YYYYY"},
                            is_starter=True),
                  factories=["RRRR"], marker_in_centre=True).encode()
        assert legal_codes(b) == {"1RF"}


class TestRule10_PhaseEnd:
    def test_noop_only_after_the_last_tile_is_taken(self):
        b = state(factories=["BB"], centre="", marker_in_centre=False,
                  me=player(is_starter=True), opp=player(has_marker=True)).encode()
        assert "NOOP" not in legal_codes(b)
        nxt = play(b, "1BF")
        assert legal_codes(nxt) == {"NOOP"}

    def test_centre_tiles_keep_the_phase_going(self):
        b = state(factories=["BBYR"], marker_in_centre=True).encode()
        nxt = play(b, "1B1")               # Y and R go to the centre
        assert "NOOP" not in legal_codes(nxt)
        assert legal_codes(nxt) == {f"C{c}{d}" for c in "YR" for d in "12345F"}


# ================================================================================================
# Phase B: wall-tiling
# ================================================================================================
class TestRule11_WallTilingOrder:
    def test_top_to_bottom_each_scored_against_wall_as_it_stands(self):
        # Existing tile at (1,1). Line 1 Blue -> (0,0); line 2 White -> (1,0).
        # Top to bottom: (0,0) alone = 1; (1,0): h run (1,0)-(1,1) = 2, v run (0,0)-(1,0) = 2 -> 4.
        # Total 5. (Bottom to top would give 2 + 2 = 4; placing both then scoring gives 2 + 4 = 6.)
        start = wall_with([(1, 1)])
        score, new_wall = wall_tiling(0, start, [(0, B), (1, W)], 0)
        assert score == 5
        assert new_wall.tolist() == wall_with([(1, 1), (0, 0), (1, 0)]).tolist()

    def test_order_of_the_completed_list_does_not_matter(self):
        start = wall_with([(1, 1)])
        assert wall_tiling(0, start, [(1, W), (0, B)], 0)[0] == 5

    def test_three_lines_chain_down_a_column(self):
        # Lines 1, 2, 3 put tiles in column 2: (0,2)=R, (1,2)=Y, (2,2)=B. Empty wall.
        # (0,2): 1; (1,2): v 2 -> 2; (2,2): v 3 -> 3. Total 6 (bulk scoring would give 3+3+3 = 9).
        score, _ = wall_tiling(7, wall(), [(2, B), (0, R), (1, Y)], 0)
        assert score == 7 + 6

    def test_rulebook_style_wall_tiling_round(self):
        # Wall before: row 0 "##...", row 1 "..#..". Complete lines: 1 Red -> (0,2); 3 Black -> (2,0);
        # 4 Blue -> (3,3). (0,2): h run (0,0..2) = 3 plus v run (0,2)-(1,2) = 2 -> 5.
        # (2,0): alone -> 1. (3,3): alone -> 1. 10 + 5 + 1 + 1 = 17.
        start = wall(["##...", "..#..", ".....", ".....", "....."])
        score, new_wall = wall_tiling(10, start, [(0, R), (2, D), (3, B)], 0)
        assert score == 17
        assert new_wall.tolist() == wall(["###..", "..#..", "#....", "...#.", "....."]).tolist()

    @pytest.mark.parametrize("row", range(5))
    @pytest.mark.parametrize("colour", range(5))
    def test_tile_goes_to_the_cell_of_its_colour(self, row, colour):
        _, new_wall = wall_tiling(0, wall(), [(row, colour)], 0)
        expected = np.zeros((5, 5), dtype=bool)
        expected[row, (colour + row) % 5] = True
        assert new_wall.tolist() == expected.tolist()
        assert az.WALL_COLOUR[row, (colour + row) % 5] == colour

    def test_wall_tiling_does_not_modify_its_input(self):
        start = wall_with([(1, 1)])
        before = start.copy()
        wall_tiling(0, start, [(0, B), (1, W)], 2)
        assert start.tolist() == before.tolist()

    def test_engine_round_end_places_scores_discards_and_keeps_incomplete_lines(self):
        b = round_end(me=dict(score=0, wall_rows=[".....", ".#...", ".....", ".....", "....."],
                              pattern={1: "B", 2: "WW", 3: "RR", 5: "DDDDD"}),
                      lid="")
        nxt = noop(b)
        me = seat_view(nxt, current_seat(b))
        # (0,0): 1; (1,0): h 2 + v 2 = 4; line 5 Black -> (4, (3+4)%5 = 2): alone 1. Total 6.
        assert me.score == 6
        assert me.wall[0, 0] and me.wall[1, 0] and me.wall[4, 2]
        assert me.pattern[0].sum() == 0 and me.pattern[1].sum() == 0 and me.pattern[4].sum() == 0
        assert me.pattern[2].tolist() == counts("RR").tolist()    # incomplete: stays
        lid = AzulState.decode(nxt).lid
        # discards: line 2 -> 1 White, line 5 -> 4 Black (line 1 discards nothing)
        # (the lid is then poured into the bag only if the bag runs empty: it does not here)
        assert lid.tolist() == counts("WDDDD").tolist()
        assert census_totals(nxt).tolist() == [20] * 5


class TestRule12_PlacementScoring:
    @pytest.mark.parametrize("row", range(5))
    @pytest.mark.parametrize("col", range(5))
    def test_isolated_tile_scores_one_anywhere(self, row, col):
        assert score_placement(wall(), row, col) == 1

    @pytest.mark.parametrize("rows, row, col, points, why", [
        (["#....", ".....", ".....", ".....", "....."], 0, 1, 2, "one left neighbour: h 2"),
        (["..#..", ".....", ".....", ".....", "....."], 1, 2, 2, "one neighbour above: v 2 (not v+1)"),
        ([".....", "..#..", ".....", ".....", "....."], 0, 2, 2, "one neighbour below: v 2"),
        (["##...", ".....", ".....", ".....", "....."], 0, 2, 3, "next to a row of 2: h 3 (rulebook)"),
        ([".....", ".....", "...##", ".....", "....."], 2, 2, 3, "row of 2 on the right: h 3"),
        (["#....", "#....", "#....", ".....", "....."], 3, 0, 4, "column of 3 above: v 4 (not 5)"),
        (["##.##", ".....", ".....", ".....", "....."], 0, 2, 5, "joins two runs: h 5"),
        (["####.", ".....", ".....", ".....", "....."], 0, 4, 5, "completes a row: h 5"),
        ([".....", "#....", "#....", "#....", "#...."], 0, 0, 5, "completes a column: v 5"),
        (["..#..", ".#.#.", "..#..", ".....", "....."], 1, 2, 6,
         "cross: h 3 + v 3 = 6 (rulebook example; not h+v-1 = 5)"),
        (["#....", "#....", ".....", ".....", "....."], 1, 1, 2, "left neighbour only; (0,0) is diagonal"),
        ([".#...", "#....", ".....", ".....", "....."], 1, 1, 4, "h 2 + v 2 = 4"),
        (["#.#..", ".....", "#.#..", ".....", "....."], 1, 1, 1, "diagonals only: 1"),
        (["##.#.", ".....", ".....", ".....", "....."], 0, 4, 2, "gap: only (0,3) counts, h 2"),
        (["##...", ".....", ".....", ".....", "....."], 0, 3, 1, "gap on both sides: isolated, 1"),
        (["..#..", ".....", "..#..", ".....", "....."], 4, 2, 1, "column beyond a gap: isolated"),
        (["..#..", ".....", "..#..", ".....", "....."], 3, 2, 2, "v run (2,2)-(3,2) = 2, (0,2) beyond gap"),
        (["#####", "#####", "##.##", "#####", "#####"], 2, 2, 10, "last cell of a full wall: 5 + 5"),
        (["#...#", "#...#", ".###.", "#...#", "#...#"], 2, 0, 9, "h 4 + v 5 = 9"),
        (["#####", "#####", "#####", "####.", "....."], 3, 4, 9, "h 5 + v 4 = 9"),
    ])
    def test_hand_worked_cases(self, rows, row, col, points, why):
        w = wall(rows)
        assert not w[row, col]
        assert score_placement(w, row, col) == points, why

    def test_rulebook_tile_next_to_a_row_then_under_a_column(self):
        # A tile that extends a horizontal run of 3 existing tiles (h 4) while having 2 tiles above
        # (v 3): 4 + 3 = 7.
        w = wall([".#...", ".#...", "#.##.", ".....", "....."])
        assert score_placement(w, 2, 1) == 7

    def test_accepts_int_walls_and_does_not_modify(self):
        w = wall(["##...", ".....", ".....", ".....", "....."]).astype(np.int64)
        before = w.copy()
        assert score_placement(w, 0, 2) == 3
        assert (w == before).all()


def reference_placement(w: np.ndarray, row: int, col: int) -> int:
    """Rule 12 written out independently: contiguous runs through the new tile."""
    def run(cells):
        n = 0
        for r, c in cells:
            if not (0 <= r < 5 and 0 <= c < 5 and w[r, c]):
                break
            n += 1
        return n
    h = 1 + run((row, col - k) for k in range(1, 5)) + run((row, col + k) for k in range(1, 5))
    v = 1 + run((row - k, col) for k in range(1, 5)) + run((row + k, col) for k in range(1, 5))
    if h == 1 and v == 1:
        return 1
    return (h if h > 1 else 0) + (v if v > 1 else 0)


walls_25 = st.integers(min_value=0, max_value=2**25 - 1).map(
    lambda bits: np.array([[(bits >> (5 * r + c)) & 1 for c in range(5)] for r in range(5)], dtype=bool))


class TestRule12_PlacementScoringRandomWalls:
    @settings(max_examples=400, deadline=None)
    @given(w=walls_25, row=st.integers(0, 4), col=st.integers(0, 4))
    def test_matches_an_independent_reading_of_the_rule(self, w, row, col):
        w = w.copy()
        w[row, col] = False
        assert score_placement(w, row, col) == reference_placement(w, row, col)

    @settings(max_examples=200, deadline=None)
    @given(w=walls_25, lines=st.dictionaries(st.integers(0, 4), st.integers(0, 4), max_size=5),
           score=st.integers(0, 60), n_floor=st.integers(0, 10))
    def test_wall_tiling_is_sequential_top_to_bottom_then_floor_then_clamp(self, w, lines, score, n_floor):
        completed = [(r, c) for r, c in lines.items() if not w[r, column_of(r, c)]]
        expected_wall = w.copy()
        total = score
        for r, c in sorted(completed):
            total += reference_placement(expected_wall, r, column_of(r, c))
            expected_wall[r, column_of(r, c)] = True
        total = max(total + [0, -1, -2, -4, -6, -8, -11, -14][min(n_floor, 7)], 0)
        got_score, got_wall = wall_tiling(score, w, list(reversed(completed)), n_floor)
        assert got_score == total
        assert got_wall.tolist() == expected_wall.tolist()

    @settings(max_examples=300, deadline=None)
    @given(w=walls_25)
    def test_end_bonus_matches_an_independent_count(self, w):
        rows = sum(w[r].all() for r in range(5))
        cols = sum(w[:, c].all() for c in range(5))
        colours = sum(all(w[r, column_of(r, k)] for r in range(5)) for k in range(5))
        assert end_game_bonus(w) == 2 * rows + 7 * cols + 10 * colours


class TestRule13_FloorAndClamp:
    @pytest.mark.parametrize("n, penalty", [
        (0, 0), (1, -1), (2, -2), (3, -4), (4, -6), (5, -8), (6, -11), (7, -14),
        (8, -14), (10, -14), (20, -14),
    ])
    def test_floor_values(self, n, penalty):
        # -1, -1, -2, -2, -2, -3, -3; nothing beyond 7
        assert floor_penalty(n) == penalty

    def test_clamp_at_zero(self):
        score, new_wall = wall_tiling(2, wall(), [], 3)     # 2 - 4 -> 0
        assert score == 0 and not new_wall.any()
        assert wall_tiling(14, wall(), [], 9)[0] == 0       # 14 - 14 -> 0
        assert wall_tiling(15, wall(), [], 9)[0] == 1

    def test_clamp_is_applied_after_the_floor_not_before_wall_points(self):
        # 0 + 1 (isolated tile) - 2 (two floor items) = -1 -> 0. (Floor first: 0 -> 0 + 1 = 1.)
        assert wall_tiling(0, wall(), [(0, B)], 2)[0] == 0
        # 3 + 1 - 8 = -4 -> 0. (Floor first would give 1.)
        assert wall_tiling(3, wall(), [(0, B)], 5)[0] == 0
        # 5 + 3 - 4 = 4 (no clamp needed)
        assert wall_tiling(5, wall(["##...", ".....", ".....", ".....", "....."]), [(0, R)], 3)[0] == 4

    def test_wall_points_and_floor_same_round(self):
        # 10 + (1 + 2) - 6 = 7: lines 1 Blue (0,0) then 2 White (1,0) under it; 4 floor items.
        assert wall_tiling(10, wall(), [(0, B), (1, W)], 4)[0] == 7

    def test_engine_marker_counts_like_a_tile(self):
        # me: marker + 3 floor tiles = 4 items (-6), line 1 Blue +1: 10 + 1 - 6 = 5.
        b = round_end(me=dict(score=10, pattern={1: "B"}, floor="RRD", has_marker=True),
                      opp=dict(score=20, floor="YYYYYYY"), marker_in_centre=False)
        seat = current_seat(b)
        nxt = noop(b)
        assert seat_view(nxt, seat).score == 5
        assert seat_view(nxt, 1 - seat).score == 20 - 14

    def test_engine_clamp_after_floor(self):
        # 3 + 1 - 8 (marker + 4 tiles = 5 items) = -4 -> 0
        b = round_end(me=dict(score=3, pattern={1: "B"}, floor="RRDD", has_marker=True),
                      marker_in_centre=False)
        nxt = noop(b)
        assert seat_view(nxt, current_seat(b)).score == 0
        assert all(p.score >= 0 for p in AzulState.decode(nxt).players)

    def test_rulebook_floor_example(self):
        # Three items on the floor lose 1 + 1 + 2 = 4 points.
        assert wall_tiling(12, wall(), [], 3)[0] == 8


class TestRule14_FloorToLidAndMarker:
    def test_floor_tiles_go_to_lid_marker_goes_back_to_centre(self):
        b = round_end(me=dict(score=10, floor="RRD", has_marker=True),
                      opp=dict(score=10, floor="W"), marker_in_centre=False, lid="B")
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert s.lid.tolist() == counts("BRRDW").tolist()        # no marker in the lid
        assert all(p.floor.sum() == 0 and not p.has_marker for p in s.players)
        assert s.marker_in_centre
        assert census_totals(nxt).tolist() == [20] * 5

    def test_marker_holder_starts_next_round(self):
        # seat 0 to move and takes the last tiles; seat 1 took the marker earlier in the round.
        b = state(me=player(is_starter=True), opp=player(floor="Y", has_marker=True),
                  factories=["BBB"], marker_in_centre=False, seat=0).encode()
        after_take = play(b, "1B3")
        assert current_seat(after_take) == 1      # the NOOP is "played" by the next starter
        nxt = noop(after_take)
        assert current_seat(nxt) == 1
        s = AzulState.decode(nxt)
        assert s.by_seat(1).is_starter and not s.by_seat(0).is_starter

    def test_marker_holder_starts_even_if_they_did_not_start_this_round(self):
        # seat 1 started this round, seat 0 took the marker; seat 1 takes the last tiles.
        b = state(me=player(is_starter=True), opp=player(has_marker=True), factories=["RR"],
                  marker_in_centre=False, seat=1).encode()
        after_take = play(b, "1R2")
        assert current_seat(after_take) == 0
        assert current_seat(noop(after_take)) == 0

    def test_marker_on_full_floor_loses_no_tile(self):
        b = state(me=player(floor="RRRRDDD", is_starter=True), factories=["BBBB"], centre="YY",
                  marker_in_centre=True).encode()
        nxt = play(b, "CYF")
        s = AzulState.decode(nxt)
        me = s.by_seat(0)
        assert me.has_marker
        assert me.floor.tolist() == counts("RRRRDDD").tolist()     # the 7 tiles are all still there
        assert s.lid.tolist() == counts("YY").tolist()              # only the excess went to the lid
        assert census_totals(nxt).tolist() == [20] * 5

    def test_marker_onto_full_floor_while_tiles_go_to_a_line(self):
        b = state(me=player(floor="RRRRDDD", is_starter=True), factories=["BBBB"], centre="YY",
                  marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "CY2"))
        me = s.by_seat(0)
        assert me.has_marker and me.pattern[1].tolist() == counts("YY").tolist()
        assert me.floor.tolist() == counts("RRRRDDD").tolist() and s.lid.sum() == 0

    def test_marker_on_sixth_tile_takes_the_last_space(self):
        # 6 floor tiles, then the marker fills space 7, so both Yellow overflow to the lid.
        b = state(me=player(floor="RRRRDD", is_starter=True), factories=["BBBB"], centre="YY",
                  marker_in_centre=True).encode()
        s = AzulState.decode(play(b, "CYF"))
        assert s.by_seat(0).floor.tolist() == counts("RRRRDD").tolist()
        assert s.lid.tolist() == counts("YY").tolist()
        assert s.by_seat(0).floor_items() == 7


class TestRule15_NobodyTookFromCentre:
    def test_round_starter_starts_again(self):
        # seat 1 started; every factory was single-coloured so the centre was never used.
        b = state(me=player(), opp=player(is_starter=True), factories=["DDDD"],
                  marker_in_centre=True, seat=0).encode()
        after_take = play(b, "1D4")
        assert current_seat(after_take) == 1
        nxt = noop(after_take)
        assert current_seat(nxt) == 1
        assert AzulState.decode(nxt).by_seat(1).is_starter

    def test_starter_who_takes_last_moves_again(self):
        b = state(me=player(is_starter=True), opp=player(), factories=["DDDD"],
                  marker_in_centre=True, seat=0).encode()
        after_take = play(b, "1D4")
        assert current_seat(after_take) == 0
        assert current_seat(noop(after_take)) == 0


# ================================================================================================
# Phase C: next round
# ================================================================================================
class TestRule16_Refill:
    def test_bag_with_enough_tiles_leaves_lid_alone(self):
        b = round_end(bag="B" * 10 + "Y" * 10 + "R" * 10, lid="DDWW")
        s0 = AzulState.decode(b)
        s = AzulState.decode(noop(b))
        assert s.factories.sum(axis=1).tolist() == [4] * 5
        assert s.lid.tolist() == counts("DDWW").tolist()
        assert (s.bag + s.factories.sum(axis=0)).tolist() == s0.bag.tolist()

    def test_bag_exactly_twenty_empties_bag_lid_untouched(self):
        b = round_end(bag="BBBBYYYYRRRRDDDDWWWW", lid="BY")
        s = AzulState.decode(noop(b))
        assert s.bag.sum() == 0
        assert s.factories.sum(axis=0).tolist() == [4] * 5
        assert s.lid.tolist() == counts("BY").tolist()

    @pytest.mark.parametrize("seed", range(5))
    def test_lid_poured_only_once_the_bag_is_empty(self, seed):
        # 3 Red in the bag, 40 other tiles in the lid: the 3 Red must all be drawn first.
        lid = "B" * 10 + "Y" * 10 + "D" * 10 + "W" * 10
        b = round_end(bag="RRR", lid=lid)
        s = AzulState.decode(noop(b, seed))
        assert s.factories.sum(axis=1).tolist() == [4] * 5
        assert s.factories.sum(axis=0)[R] == 3
        assert s.lid.sum() == 0                                  # all of it went into the bag
        assert (s.bag + s.factories.sum(axis=0)).tolist() == (counts("RRR") + counts(lid)).tolist()

    def test_lid_receives_this_rounds_discards_before_the_refill(self):
        # Bag empty; the only tiles left are those the wall-tiling sends to the lid.
        b = round_end(me=dict(pattern={5: "BBBBB"}, floor="YY", has_marker=True),
                      marker_in_centre=False, bag="", lid="")
        s = AzulState.decode(noop(b))
        # discards: 4 Blue from line 5 + 2 Yellow from the floor = 6 tiles, all drawn
        assert s.factories.sum() == 6
        assert s.factories.sum(axis=0).tolist() == counts("BBBBYY").tolist()
        assert s.bag.sum() == 0 and s.lid.sum() == 0
        assert (s.factories.sum(axis=1) <= 4).all()
        assert legal_codes(s.encode()) and "NOOP" not in legal_codes(s.encode())

    def test_partly_filled_factories_when_bag_and_lid_run_out(self):
        b = round_end(bag="BB", lid="YYRRD")
        s = AzulState.decode(noop(b))
        assert s.factories.sum() == 7
        assert s.factories.sum(axis=0).tolist() == counts("BBYYRRD").tolist()
        assert (s.factories.sum(axis=1) <= 4).all()
        assert s.bag.sum() == 0 and s.lid.sum() == 0

    def test_bag_counts_across_the_first_six_rounds(self):
        reached_round_6 = 0
        for seed in range(30):
            for b, _, action, nxt in random_game(seed, policy="floor"):
                s = AzulState.decode(nxt)
                if action == NOOP and not s.game_over:
                    if s.round <= 5:
                        assert s.bag.sum() == 100 - 20 * s.round   # nothing drawn from the lid yet
                    if s.round == 6:
                        reached_round_6 += 1
                        assert s.lid.sum() == 0                    # round 6 always draws from the lid
        assert reached_round_6 >= 10


class TestRule17_Randomness:
    def test_same_rng_seed_same_refill(self):
        b = round_end()
        assert np.array_equal(get_next_state(b, NOOP, rng(7)), get_next_state(b, NOOP, rng(7)))

    def test_refill_uses_the_callers_rng(self):
        b = round_end()
        deals = {get_next_state(b, NOOP, rng(seed)).tobytes() for seed in range(10)}
        assert len(deals) >= 9
        g = rng(3)
        first, second = get_next_state(b, NOOP, g), get_next_state(b, NOOP, g)
        assert not np.array_equal(first, second)    # the generator advanced: no re-seeding

    def test_state_stores_counts_not_an_order(self):
        # The bag is 5 counts; a board rebuilt from the structured view (counts only) deals exactly
        # like the original with the same generator, so no hidden order is stored anywhere.
        b = init_board(rng(0))
        s = AzulState.decode(b)
        assert s.bag.shape == (5,) and s.bag.sum() == 80
        assert (s.bag + s.factories.sum(axis=0)).tolist() == [20] * 5
        end = round_end()
        rebuilt = AzulState.decode(end).encode()
        assert np.array_equal(get_next_state(end, NOOP, rng(9)), get_next_state(rebuilt, NOOP, rng(9)))


# ================================================================================================
# End of game
# ================================================================================================
ROW0_ALMOST = ["####.", ".....", ".....", ".....", "....."]   # (0,4) White missing


class TestRule18_GameEnd:
    def test_not_over_before_the_wall_tiling(self):
        b = state(me=player(score=10, wall_rows=ROW0_ALMOST, pattern={1: "W"}, is_starter=True),
                  factories=["BBBB"], marker_in_centre=True).encode()
        assert get_reward(b) == (0, False)
        assert not AzulState.decode(b).game_over
        assert get_valid_mask(b).any()

    def test_completed_row_ends_after_the_round_floor_included(self):
        # (0,4): h 5 -> 5 points; floor marker + 1 tile = -2; bonus row +2. 10 + 5 - 2 + 2 = 15.
        b = round_end(me=dict(score=10, wall_rows=ROW0_ALMOST, pattern={1: "W"}, floor="R",
                              has_marker=True),
                      opp=dict(score=12, pattern={2: "BB"}), marker_in_centre=False)
        seat = current_seat(b)
        assert get_reward(b) == (0, False)
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert s.game_over
        assert s.by_seat(seat).score == 15
        # the opponent's round is finished too: line 2 Blue -> (1,1), isolated: 12 + 1 = 13
        assert s.by_seat(1 - seat).score == 13 and s.by_seat(1 - seat).wall[1, 1]
        assert get_reward(nxt) == (expected_reward(nxt, seat), True)
        assert not get_valid_mask(nxt).any()

    def test_opponent_completing_a_row_ends_it_for_both(self):
        b = round_end(me=dict(score=30), opp=dict(score=5, wall_rows=ROW0_ALMOST, pattern={1: "W"}))
        seat = current_seat(b)
        nxt = noop(b)
        assert AzulState.decode(nxt).game_over
        # opponent: 5 + 5 + 2 = 12 < 30
        assert AzulState.decode(nxt).by_seat(1 - seat).score == 12
        assert get_reward(nxt) == (expected_reward(nxt, seat), True)

    def test_a_complete_column_does_not_end_the_game(self):
        b = round_end(me=dict(score=0, wall_rows=[".....", "#....", "#....", "#....", "#...."],
                              pattern={1: "B"}))
        seat = current_seat(b)
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert not s.game_over and s.round == 2
        assert s.by_seat(seat).score == 5          # v 5, and no +7 bonus yet
        assert s.factories.sum() == 20
        assert get_reward(nxt) == (0, False)
        assert get_valid_mask(nxt).any()

    def test_five_of_a_colour_does_not_end_the_game(self):
        diag = ["#....", ".#...", "..#..", "...#.", "....."]    # Blue at (r, r) for r < 4
        b = round_end(me=dict(score=0, wall_rows=diag, pattern={5: "BBBBB"}))
        s = AzulState.decode(noop(b))
        assert not s.game_over
        # (4,4): (3,4) empty, (4,3) empty -> isolated: 1
        assert s.by_seat(current_seat(b)).score == 1

    def test_game_not_over_without_a_row_and_goes_on(self):
        b = round_end(me=dict(pattern={1: "B", 2: "YY"}))
        s = AzulState.decode(noop(b))
        assert not s.game_over and s.round == 2


class TestRule19_EndBonus:
    @pytest.mark.parametrize("rows, bonus, why", [
        ([".....", ".....", ".....", ".....", "....."], 0, "empty"),
        (["#####", ".....", ".....", ".....", "....."], 2, "one row"),
        (["####.", ".....", ".....", ".....", "....."], 0, "row of 4"),
        (["#....", "#....", "#....", "#....", "#...."], 7, "one column"),
        (["#....", ".#...", "..#..", "...#.", "....#"], 10, "all five Blue"),
        (["#####", "#....", "#....", "#....", "#...."], 9, "row 0 + column 0"),
        (["#####", "#####", ".....", ".....", "....."], 4, "two rows"),
        (["#####", "##...", "#.#..", "#..#.", "#...#"], 19, "row + column + Blue"),
        (["#####", "#####", "#####", "#####", "#####"], 95, "full wall: 10 + 35 + 50"),
        (["####.", "####.", "####.", "####.", "####."], 7 * 4, "four columns"),
        (["....#", "#....", ".#...", "..#..", "...#."], 10, "all five White"),
    ])
    def test_bonus(self, rows, bonus, why):
        assert end_game_bonus(wall(rows)) == bonus, why

    def test_rulebook_end_example(self):
        # 2 complete rows (2 x 2), 1 complete column (7), 1 colour with all 5 tiles (10): 21.
        rows = ["#####", "#####", "#.#..", "#..#.", "#...#"]   # col 0 full, Blue diagonal full
        assert end_game_bonus(wall(rows)) == 21

    def test_bonus_added_exactly_once_at_game_end(self):
        # (0,0) completes row 0, column 0 and Blue at once: h 5 + v 5 = 10; bonus 2 + 7 + 10 = 19.
        rows = [".####", "##...", "#.#..", "#..#.", "#...#"]
        b = round_end(me=dict(score=20, wall_rows=rows, pattern={1: "B"}), opp=dict(score=40))
        seat = current_seat(b)
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert s.game_over
        assert s.by_seat(seat).score == 20 + 10 + 19
        assert s.by_seat(1 - seat).score == 40
        assert get_reward(nxt) == (expected_reward(nxt, seat), True)
        # no second NOOP, no further moves: the bonus cannot be added again
        assert not get_valid_mask(nxt).any()
        with pytest.raises(ValueError):
            get_next_state(nxt, NOOP, rng())

    def test_opponent_bonus_counted_too(self):
        # The game ends on my row; the opponent completes column 4 in the same round (+7 at the end).
        b = round_end(me=dict(score=0, wall_rows=ROW0_ALMOST, pattern={1: "W"}),
                      opp=dict(score=3, wall_rows=["....#", "....#", "....#", "....#", "....."],
                               pattern={5: "BBBBB"}))
        seat = current_seat(b)
        nxt = noop(b)
        s = AzulState.decode(nxt)
        # me: 0 + 5 (h 5) + 2 (row) = 7. opp: line 5 Blue -> (4, 4): v 5 -> 3 + 5 = 8, + 7 (column) = 15.
        assert s.by_seat(seat).score == 7
        assert s.by_seat(1 - seat).score == 15
        assert get_reward(nxt) == (expected_reward(nxt, 1 - seat), True)


class TestRule20_Winner:
    @pytest.mark.parametrize("scores, rows, expected", [
        ((10, 5), (0, 0), 0),
        ((5, 10), (3, 0), 1),       # points first: rows only break ties
        ((21, 20), (0, 3), 0),
        ((20, 20), (1, 0), 0),
        ((20, 20), (0, 2), 1),
        ((20, 20), (1, 1), None),   # shared, not "first player wins"
        ((0, 0), (0, 0), None),
    ])
    def test_winner(self, scores, rows, expected):
        assert winner(scores, rows) == expected

    def test_engine_tie_on_points_goes_to_more_rows(self):
        # me: 10 + 5 + 2 = 17 with 1 row; opp: 17 with 0 rows -> me wins.
        b = round_end(me=dict(score=10, wall_rows=ROW0_ALMOST, pattern={1: "W"}), opp=dict(score=17))
        seat = current_seat(b)
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert s.by_seat(0).score == s.by_seat(1).score == 17
        assert get_reward(nxt) == (expected_reward(nxt, seat), True)
        assert get_reward(az.flip_board(nxt)) == (-expected_reward(nxt, seat), True)

    def test_engine_shared_victory(self):
        both = dict(score=10, wall_rows=ROW0_ALMOST, pattern={1: "W"})
        b = round_end(me=dict(both), opp=dict(both))
        nxt = noop(b)
        s = AzulState.decode(nxt)
        assert s.players[0].score == s.players[1].score == 17
        assert get_reward(nxt) == (0, True)
        assert get_reward(az.flip_board(nxt)) == (0, True)

    def test_engine_more_points_wins_despite_fewer_rows(self):
        b = round_end(me=dict(score=10, wall_rows=ROW0_ALMOST, pattern={1: "W"}), opp=dict(score=18))
        seat = current_seat(b)
        nxt = noop(b)
        assert get_reward(nxt) == (expected_reward(nxt, 1 - seat), True)

    def test_reward_on_hand_built_final_positions(self):
        full_row = ["#####", ".....", ".....", ".....", "....."]
        for my_score, opp_score, my_rows, opp_rows, reward in [
            (30, 20, 0, 1, 1), (20, 30, 1, 0, -1), (25, 25, 1, 0, 1), (25, 25, 0, 1, -1),
            (25, 25, 1, 1, 0),
        ]:
            b = state(me=player(score=my_score, wall_rows=full_row if my_rows else ("....." ,) * 5),
                      opp=player(score=opp_score, wall_rows=full_row if opp_rows else (".....",) * 5),
                      game_over=True).encode()
            assert get_reward(b) == (reward, True)
            assert get_reward(az.flip_board(b)) == (-reward, True)


class TestRule21_RoundCap:
    def test_cap_is_documented_and_well_above_random_play(self):
        assert az.MAX_ROUNDS >= 20

    def test_noop_at_the_cap_ends_the_game(self):
        assert AzulState.decode(noop(round_end(round=az.MAX_ROUNDS))).game_over
        assert not AzulState.decode(noop(round_end(round=az.MAX_ROUNDS - 1))).game_over

    def test_degenerate_all_floor_play_terminates(self):
        steps, final = 0, None
        for _, _, _, nxt in random_game(0, policy="floor"):
            steps += 1
            final = nxt
            assert steps < 10_000
        s = AzulState.decode(final)
        assert s.game_over and s.round <= az.MAX_ROUNDS
        assert census_totals(final).tolist() == [20] * 5


# ================================================================================================
# Wall pattern
# ================================================================================================
class TestWallPattern:
    def test_table(self):
        table = ["BYRDW", "WBYRD", "DWBYR", "RDWBY", "YRDWB"]
        for r in range(5):
            assert "".join("BYRDW"[az.WALL_COLOUR[r, c]] for c in range(5)) == table[r]
            for k in range(5):
                assert az.wall_column(r, k) == (k + r) % 5
                assert colour_at(r, az.wall_column(r, k)) == k


# ================================================================================================
# Mistakes seen in public engines (AZUL_RULES.md, last section), one test each
# ================================================================================================
class TestPublicEngineMistakes:
    def test_overflow_fills_the_line_first(self):
        b = state(factories=["RRRR", "BBBB"], marker_in_centre=True).encode()
        assert "1R2" in legal_codes(b)                     # a too-small line is legal
        me = AzulState.decode(play(b, "1R2")).by_seat(0)
        assert me.pattern[1][R] == 2 and me.floor[R] == 2  # not all 4 dumped on the floor

    def test_no_h_plus_v_minus_one_no_v_plus_one_no_diagonals(self):
        assert score_placement(wall(["..#..", ".#.#.", "..#..", ".....", "....."]), 1, 2) == 6
        assert score_placement(wall(["#....", "#....", ".....", ".....", "....."]), 2, 0) == 3
        assert score_placement(wall(["#.#..", ".....", "#.#..", ".....", "....."]), 1, 1) == 1

    def test_top_to_bottom_order_changes_totals(self):
        assert wall_tiling(0, wall_with([(1, 1)]), [(1, W), (0, B)], 0)[0] == 5   # not 4, not 6

    def test_no_clamp_or_floor_first(self):
        assert wall_tiling(0, wall(), [(0, B)], 2)[0] == 0       # not -1, not 1

    def test_marker_is_not_a_tile_and_full_floor_loses_no_tile(self):
        b = state(me=player(floor="RRRRDDD", is_starter=True), factories=["BBBB"], centre="YY",
                  marker_in_centre=True).encode()
        nxt = play(b, "CY1")
        s = AzulState.decode(nxt)
        assert s.by_seat(0).floor.sum() == 7 and s.by_seat(0).has_marker
        assert s.by_seat(0).pattern.sum() == 1           # one Yellow, no marker in a line
        assert census_totals(nxt).tolist() == [20] * 5
        end = round_end(me=dict(floor="RR", has_marker=True), marker_in_centre=False, lid="")
        after = AzulState.decode(noop(end))
        assert after.lid.tolist() == counts("RR").tolist()    # 2 floor tiles, no marker
        assert after.marker_in_centre

    def test_lid_refills_bag_only_when_bag_is_empty(self):
        b = round_end(bag="B" * 25, lid="RRRR")
        s = AzulState.decode(noop(b))
        assert s.lid.tolist() == counts("RRRR").tolist() and s.factories.sum(axis=0)[R] == 0

    def test_game_ends_on_rows_only_and_never_mid_round(self):
        col = round_end(me=dict(wall_rows=[".....", "#....", "#....", "#....", "#...."],
                                pattern={1: "B"}))
        assert not AzulState.decode(noop(col)).game_over
        mid = state(me=player(wall_rows=ROW0_ALMOST, pattern={1: "W"}, is_starter=True),
                    factories=["BBBB", "YYYY"], marker_in_centre=True).encode()
        after = play(mid, "1B2")
        assert not AzulState.decode(after).game_over and get_reward(after) == (0, False)

    def test_bonuses_once(self):
        b = round_end(me=dict(score=0, wall_rows=ROW0_ALMOST, pattern={1: "W"}))
        assert seat_view(noop(b), current_seat(b)).score == 5 + 2

    def test_tie_break_by_rows_not_first_player(self):
        assert winner((20, 20), (0, 1)) == 1
        assert winner((20, 20), (1, 1)) is None

    def test_different_seeds_different_deals_same_seed_same_deal(self):
        deals = {init_board(rng(seed)).tobytes() for seed in range(20)}
        assert len(deals) >= 15
        assert np.array_equal(init_board(rng(5)), init_board(rng(5)))

    def test_full_line_not_offered(self):
        b = state(me=player(pattern={1: "R"}, is_starter=True), factories=["RRRR"],
                  marker_in_centre=True).encode()
        assert "1R1" not in legal_codes(b) and "1RF" in legal_codes(b)

    def test_default_rng_is_not_a_constant_seed(self):
        # init_board() without an rng must not always deal the same game (2 equal deals of 20
        # random tiles in 6 tries would be astronomically unlikely).
        assert len({init_board().tobytes() for _ in range(6)}) >= 2

    def test_seat_zero_does_not_always_start(self):
        assert {current_seat(init_board(rng(seed))) for seed in range(20)} == {0, 1}
