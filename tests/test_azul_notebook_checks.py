"""The hidden-test helpers of the Azul notebook pass the reference and catch wrong answers."""
import numpy as np
import pytest

import Azul_Simulator as az
from autograder import reference
from autograder.assignments.azul3_play import checks as azul_checks


@pytest.fixture(scope="module")
def ref():
    return reference.reference_namespace("azul3_play", "azul3_play")


def test_reference_passes_every_check(ref):
    azul_checks.check_decode_move(ref["decode_move"])
    azul_checks.check_legal_takes(ref["legal_takes"])
    azul_checks.check_masked_policy(ref["masked_policy"])
    azul_checks.check_arena(ref["arena"])


def test_reference_matches_engine():
    """The notebook's reference agrees with the engine it teaches (decode and legal moves)."""
    ns = reference.reference_namespace("azul3_play", "azul3_play")
    for action in range(az.N_TAKES):
        assert ns["decode_move"](az.action_to_string(action)) == action
    for board in azul_checks.take_positions()[:200]:
        board = np.array(board, dtype=np.int16)
        assert np.array_equal(ns["legal_takes"](az.AzulState.decode(board)), az.get_valid_mask(board)[:az.N_TAKES])


def test_decode_move_without_strip_fails(ref):
    def no_strip(code):
        return ref["decode_move"](code.upper()) if isinstance(code, str) and code == code.strip() else 1 / 0

    with pytest.raises(AssertionError, match=r"decode_move gives a wrong result on \d+ of \d+ test cases"):
        azul_checks.check_decode_move(no_strip)


def test_decode_move_accepting_bad_codes_fails(ref):
    def lenient(code):
        try:
            return ref["decode_move"](code)
        except ValueError:
            return 0

    with pytest.raises(AssertionError, match="expected: 'raises ValueError'"):
        azul_checks.check_decode_move(lenient)


def test_legal_takes_that_allows_full_lines_names_the_moves(ref):
    def full_lines_allowed(state):
        mask = ref["legal_takes"](state).reshape(6, 5, 6)
        me = state.players[0]
        for row in range(5):
            if me.pattern[row].sum() == row + 1:
                colour = int(np.argmax(me.pattern[row]))
                mask[:, colour, row] |= np.vstack([state.centre, state.factories])[:, colour] > 0
        return mask.reshape(-1)

    with pytest.raises(AssertionError, match="illegal but in your mask: [C1-5]"):
        azul_checks.check_legal_takes(full_lines_allowed)


def test_legal_takes_ignoring_the_wall_fails(ref):
    def no_wall(state):
        blank = az.AzulState.decode(state.encode())
        blank.players[0].wall[:] = False
        return ref["legal_takes"](blank)

    with pytest.raises(AssertionError, match="legal_takes gives a wrong result"):
        azul_checks.check_legal_takes(no_wall)


def test_masked_policy_that_overflows_fails():
    def naive(logits, mask):
        p = np.exp(np.asarray(logits, dtype=np.float64)) * mask
        return p / p.sum()

    with pytest.raises(AssertionError, match="masked_policy gives a wrong result"):
        azul_checks.check_masked_policy(naive)


def test_masked_policy_leaking_to_illegal_moves_fails(ref):
    def leaky(logits, mask):
        p = ref["masked_policy"](logits, mask) + 1e-3
        return p / p.sum()

    with pytest.raises(AssertionError, match="masked_policy"):
        azul_checks.check_masked_policy(leaky)


def test_a_wrong_policy_is_shown_at_its_first_differing_legal_move(ref):
    def unnormalised(logits, mask):
        z = np.exp(logits - logits.max())
        return np.where(mask, z / z.sum(), 0.0)

    with pytest.raises(AssertionError, match=r"(?s)first legal move that differs: action \d+ \(\w+\).*sum to"):
        azul_checks.check_masked_policy(unnormalised)


def test_arena_without_seat_alternation_fails(ref):
    def fixed_seats(agent_a, agent_b, num_games, seed):
        def a_always_seat_0(board, rng):
            return (agent_a if az.current_seat(board) == 0 else agent_b)(board, rng)
        return ref["arena"](a_always_seat_0, a_always_seat_0, num_games, seed) | {}

    with pytest.raises(AssertionError, match=r"following the protocol, the games are:\n    game 0: agent_a in seat 0"):
        azul_checks.check_arena(fixed_seats)


def test_arena_reporting_the_last_movers_view_fails(ref):
    def wrong_view(agent_a, agent_b, num_games, seed):
        result = ref["arena"](agent_a, agent_b, num_games, seed)
        return {**result, "wins": result["losses"], "losses": result["wins"]}

    with pytest.raises(AssertionError, match="arena gives a wrong result"):
        azul_checks.check_arena(wrong_view)


def test_decode_move_raising_a_value_error_subclass_passes(ref):
    class MoveCodeError(ValueError):
        pass

    def own_error(code):
        try:
            return ref["decode_move"](code)
        except ValueError as exc:
            raise MoveCodeError(str(exc)) from None

    azul_checks.check_decode_move(own_error)


def test_masked_policy_with_nan_on_illegal_moves_fails(ref):
    def exp_times_mask(logits, mask):
        logits = np.asarray(logits, dtype=np.float64)
        p = np.exp(logits - logits[mask].max()) * mask  # inf * 0 = nan where an illegal logit is huge
        return p / p[mask].sum()

    with pytest.raises(AssertionError, match="illegal moves must get exactly 0"):
        azul_checks.check_masked_policy(exp_times_mask)


def test_arena_judging_by_score_alone_fails(ref):
    """Equal scores are not always a draw: complete rows break the tie (one hidden case has it)."""
    def by_score(agent_a, agent_b, num_games, seed):
        wins = draws = 0
        diffs = []
        for i in range(num_games):
            rng = np.random.default_rng([seed, i])
            seat_a, board = i % 2, az.init_board(rng)
            while not az.get_reward(board)[1]:
                if az.get_valid_mask(board)[az.NOOP]:
                    action = az.NOOP
                else:
                    action = (agent_a if az.current_seat(board) == seat_a else agent_b)(board, rng)
                board = az.get_next_state(board, action, rng)
            state = az.AzulState.decode(board)
            diffs.append(state.by_seat(seat_a).score - state.by_seat(1 - seat_a).score)
            wins += diffs[-1] > 0
            draws += diffs[-1] == 0
        return {"wins": wins / num_games, "draws": draws / num_games,
                "losses": 1 - (wins + draws) / num_games, "mean_score_diff": float(np.mean(diffs))}

    with pytest.raises(AssertionError, match=r"arena gives a wrong result on 1 of 6 test cases"):
        azul_checks.check_arena(by_score)
