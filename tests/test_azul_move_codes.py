"""Move codes: parsing, the 181-action layout, and bad input.

Every malformed code and every illegal code must be refused by ``take_action_from_string`` with a
sentence naming the specific problem, returning the input board itself, unchanged (issue 2, "Checks
it must pass"). Messages are checked for the words that identify the problem (which part of the code,
which colour, which line), not for their exact wording.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import Azul_Simulator as az
from Azul_Simulator import (NOOP, Action_Indices, AzulState, action_to_string, get_next_state,
                            get_valid_mask, string_to_action, take_action_from_string)
from azul_builders import counts, legal_codes, player, random_game, state

SOURCES, COLOURS, DESTINATIONS = "C12345", "BYRDW", "12345F"
ALL_TAKE_CODES = [s + c + d for s in SOURCES for c in COLOURS for d in DESTINATIONS]


def refused(board: np.ndarray, text) -> str:
    """Play ``text``; assert it is refused and the board is untouched; return the message."""
    snapshot = board.copy()
    new_board, error = take_action_from_string(board, text, np.random.default_rng(0))
    assert isinstance(error, str) and len(error) > 10, (text, error)
    assert new_board is board                     # the input board itself is returned
    assert np.array_equal(board, snapshot) and board.dtype == snapshot.dtype   # and not modified
    return error


@pytest.fixture
def position() -> np.ndarray:
    """Mid-round position. Player to move (seat 0): pattern line 2 full of Red, line 3 holds one
    Yellow, wall row 4 already has Blue (cell (3, 3)). Factory 1 = BBYR, factory 2 = DDWW,
    factory 3 empty, centre = D plus the marker."""
    me = player(pattern={2: "RR", 3: "Y"},
                wall_rows=[".....", ".....", ".....", "...#.", "....."], is_starter=True)
    return state(me=me, factories=["BBYR", "DDWW"], centre="D", marker_in_centre=True).encode()


# ------------------------------------------------------------------------------------------------
# Layout and round trips
# ------------------------------------------------------------------------------------------------
class TestCodes:
    def test_181_actions(self):
        assert az.ACTION_DIM == 181 and NOOP == 180 and len(Action_Indices) == 181
        assert sorted(a.value for a in Action_Indices) == list(range(181))

    @pytest.mark.parametrize("action", range(181))
    def test_round_trip_every_action(self, action):
        code = action_to_string(action)
        assert string_to_action(code) == action
        assert Action_Indices[code].value == action

    def test_codes_are_the_documented_three_letters(self):
        assert sorted(action_to_string(a) for a in range(180)) == sorted(ALL_TAKE_CODES)
        assert action_to_string(NOOP) == "NOOP"

    @pytest.mark.parametrize("code, index", [
        ("5B2", (5 * 5 + 0) * 6 + 1), ("CWF", (0 * 5 + 4) * 6 + 5), ("CB1", 0), ("1YF", (5 + 1) * 6 + 5),
        ("3R4", (3 * 5 + 2) * 6 + 3), ("5WF", 179),
    ])
    def test_documented_index_layout(self, code, index):
        # index = (source * 5 + colour) * 6 + destination (module docstring)
        assert Action_Indices[code] == index and string_to_action(code) == index
        assert action_to_string(index) == code

    def test_enum_access(self):
        assert Action_Indices["5B2"] == Action_Indices.__members__["5B2"]
        assert Action_Indices.CWF.value == string_to_action("CWF")
        assert Action_Indices.NOOP == NOOP

    @pytest.mark.parametrize("text", ["5b2", " 5B2", "5B2 ", "\t5b2\n", "  5b2  "])
    def test_case_and_surrounding_spaces_ignored(self, text):
        assert string_to_action(text) == string_to_action("5B2")

    @pytest.mark.parametrize("text", ["cwf", "CwF", "cWf", "Cwf  "])
    def test_case_ignored_for_letters(self, text):
        assert string_to_action(text) == Action_Indices.CWF

    @pytest.mark.parametrize("action", [-1, 181, 1000])
    def test_out_of_range_index(self, action):
        with pytest.raises(ValueError):
            action_to_string(action)

    def test_codes_mean_what_they_say(self):
        # "5B2": all Blue from factory 5 into pattern line 2 (the rest of factory 5 to the centre).
        b = state(factories=["", "", "", "", "BBBY"], marker_in_centre=True).encode()
        nxt, error = take_action_from_string(b, "5B2")
        assert error is None
        s = AzulState.decode(nxt)
        me = s.by_seat(0)
        assert me.pattern[1].tolist() == counts("BB").tolist() and me.floor.tolist() == counts("B").tolist()
        assert s.factories.sum() == 0 and s.centre.tolist() == counts("Y").tolist()
        # "CYF": all Yellow from the centre onto the floor (with the marker: first centre take).
        after = AzulState.decode(take_action_from_string(nxt, "CYF")[0]).by_seat(1)
        assert after.floor.tolist() == counts("Y").tolist() and after.has_marker

    def test_legal_code_gives_the_same_board_as_get_next_state(self, position):
        for code in sorted(legal_codes(position)):
            nxt, error = take_action_from_string(position, code)
            assert error is None
            assert np.array_equal(nxt, get_next_state(position, string_to_action(code)))


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=6))
def test_any_text_parses_to_its_code_or_raises(text):
    try:
        action = string_to_action(text)
    except ValueError as exc:
        assert str(exc)
        return
    assert 0 <= action <= NOOP
    assert action_to_string(action) == text.strip().upper()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL_TAKE_CODES), st.text(" \t\n", max_size=3), st.text(" \t\n", max_size=3),
       st.lists(st.booleans(), min_size=3, max_size=3))
def test_case_and_padding_never_change_the_action(code, left, right, lower):
    text = left + "".join(ch.lower() if low else ch for ch, low in zip(code, lower)) + right
    assert string_to_action(text) == string_to_action(code)


# ------------------------------------------------------------------------------------------------
# Malformed codes
# ------------------------------------------------------------------------------------------------
class TestMalformed:
    @pytest.mark.parametrize("text", ["5B", "5B22", "5", "B2", "55B2", "CWFF", "5 B 2", "NOOP1"])
    def test_wrong_length(self, position, text):
        msg = refused(position, text)
        assert "3" in msg and "character" in msg.lower()
        with pytest.raises(ValueError):
            string_to_action(text)

    @pytest.mark.parametrize("text", ["", "   ", "\n"])
    def test_empty(self, position, text):
        msg = refused(position, text)
        assert "3" in msg and "character" in msg.lower()
        with pytest.raises(ValueError):
            string_to_action(text)

    @pytest.mark.parametrize("text, bad", [("6B2", "6"), ("0B2", "0"), ("XB2", "X"), ("FB2", "F"),
                                           ("bB2", "B")])
    def test_unknown_source(self, position, text, bad):
        msg = refused(position, text)
        assert "source" in msg.lower() and bad in msg
        with pytest.raises(ValueError, match="(?i)source"):
            string_to_action(text)

    @pytest.mark.parametrize("text, bad", [("5G2", "G"), ("5K2", "K"), ("5X2", "X"), ("512", "1"),
                                           ("5 2", " ")])
    def test_unknown_colour(self, position, text, bad):
        msg = refused(position, text)
        assert "colo" in msg.lower()
        if bad.strip():
            assert bad in msg
        with pytest.raises(ValueError, match="(?i)colou?r"):
            string_to_action(text)

    @pytest.mark.parametrize("text, bad", [("5B6", "6"), ("5B0", "0"), ("5BC", "C"), ("5BG", "G")])
    def test_unknown_destination(self, position, text, bad):
        msg = refused(position, text)
        assert "destination" in msg.lower() and bad in msg
        with pytest.raises(ValueError, match="(?i)destination"):
            string_to_action(text)

    @pytest.mark.parametrize("value", [5, 151, None, b"5B2", ["5", "B", "2"], 5.0])
    def test_non_string(self, position, value):
        msg = refused(position, value)
        assert "string" in msg.lower()
        with pytest.raises((ValueError, TypeError)):
            string_to_action(value)

    def test_each_malformed_kind_has_its_own_message(self, position):
        messages = {refused(position, t) for t in ["5B", "6B2", "5G2", "5B6", 5]}
        assert len(messages) == 5


# ------------------------------------------------------------------------------------------------
# Illegal codes (well formed, not playable here)
# ------------------------------------------------------------------------------------------------
class TestIllegal:
    @pytest.mark.parametrize("text, words", [
        ("3B1", ["3", "Blue"]),          # factory 3 is empty
        ("1DF", ["1", "Black"]),         # factory 1 has no Black
        ("CW1", ["centre", "White"]),    # the centre has no White
        ("2Y5", ["2", "Yellow"]),
    ])
    def test_colour_absent_at_source(self, position, text, words):
        msg = refused(position, text)
        for w in words:
            assert w.lower() in msg.lower(), (msg, w)
        assert "no " in msg.lower() or "not" in msg.lower()

    def test_marker_alone_in_centre_cannot_be_taken(self):
        b = state(factories=["BBYR"], marker_in_centre=True).encode()
        msg = refused(b, "CB1")
        assert "centre" in msg.lower() and "blue" in msg.lower()

    def test_line_holds_another_colour(self, position):
        msg = refused(position, "1B3")            # line 3 holds Yellow
        assert "3" in msg and "yellow" in msg.lower()

    def test_colour_already_on_that_wall_row(self, position):
        msg = refused(position, "1B4")            # wall row 4 has Blue
        assert "wall" in msg.lower() and "4" in msg and "blue" in msg.lower()

    def test_line_full(self, position):
        msg = refused(position, "1R2")            # line 2 is full of Red
        assert "full" in msg.lower() and "2" in msg

    def test_game_over(self):
        b = state(me=player(score=20, wall_rows=["#####", ".....", ".....", ".....", "....."]),
                  factories=["BBYR"], game_over=True).encode()
        for text in ["1B1", "1BF"]:
            assert "over" in refused(b, text).lower()

    def test_take_while_noop_pending(self):
        b = state(me=player(is_starter=True), marker_in_centre=True).encode()
        assert legal_codes(b) == {"NOOP"}
        for text in ["1B1", "CBF", "5WF"]:
            msg = refused(b, text)
            assert "noop" in msg.lower() or "refill" in msg.lower() or "round" in msg.lower()

    def test_noop_code_before_the_offer_is_exhausted(self, position):
        msg = refused(position, "NOOP")
        assert "noop" in msg.lower() or "round" in msg.lower()
        assert refused(position, " noop ") == msg

    def test_noop_code_after_game_over(self):
        b = state(game_over=True).encode()
        assert "over" in refused(b, "NOOP").lower()

    def test_noop_code_when_pending_is_the_refill(self):
        b = state(me=player(is_starter=True), marker_in_centre=True).encode()
        nxt, error = take_action_from_string(b, " noop ", np.random.default_rng(4))
        assert error is None
        assert np.array_equal(nxt, get_next_state(b, NOOP, np.random.default_rng(4)))

    def test_each_illegal_kind_has_its_own_message(self, position):
        over = state(factories=["BBYR"], game_over=True).encode()
        pending = state(me=player(is_starter=True), marker_in_centre=True).encode()
        messages = [refused(position, "3B1"), refused(position, "1B3"), refused(position, "1B4"),
                    refused(position, "1R2"), refused(over, "1B1"), refused(pending, "1B1")]
        assert len(set(messages)) == 6

    def test_legal_moves_in_the_same_position_are_accepted(self, position):
        for text in ["1B1", "1B5", "1BF", "1Y3", "2D4", "CDF", "1R1"]:
            nxt, error = take_action_from_string(position, text)
            assert error is None, (text, error)
            assert not np.array_equal(nxt, position)


def test_string_play_agrees_with_the_mask_on_random_positions():
    """On states of random games, a take code is accepted exactly when the mask allows it; refused
    codes leave the board untouched and come with a message."""
    pick = np.random.default_rng(1)
    checked = 0
    for seed in range(40):
        steps = list(random_game(seed))
        for b, mask, _, _ in steps[:: max(1, len(steps) // 6)]:
            for a in pick.choice(180, size=60, replace=False):
                code = action_to_string(int(a))
                snapshot = b.copy()
                nxt, error = take_action_from_string(b, code.lower())
                assert np.array_equal(b, snapshot)
                if mask[a]:
                    assert error is None and np.array_equal(nxt, get_next_state(b, int(a)))
                else:
                    assert nxt is b and isinstance(error, str) and error
                checked += 1
    assert checked > 10_000


def test_noop_code_without_rng_is_refused_not_raised():
    """The refill draws tiles; without a Generator the code is refused with a reason, state intact."""
    board = next(b for b, mask, _, _ in random_game(4) if mask[NOOP])
    before = board.copy()
    new_board, error = take_action_from_string(board, "NOOP", None)
    assert new_board is board and (board == before).all()
    assert error == "NOOP refills the factories at random: pass a numpy Generator as rng."
