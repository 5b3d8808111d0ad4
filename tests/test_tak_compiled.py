"""Tak's compiled rules (``azcourse.tak.compiled``) against the reference (``azcourse.tak.game``).

Random games on every size (half of them biased to stack moves, so that tall stacks, long carries and
flattened walls happen; some with komi and a short move cap, so that every kind of end happens) are
played on both, ply by ply: the legal actions, the next states, roads, the end and why, and the
encodings must be the reference's. Perft counts (the leaf positions 1 to 3 plies below a position) from
the start and from random mid-game positions must be the reference's too.
"""
from __future__ import annotations

import numpy as np
import pytest

from azcourse.tak import compiled
from azcourse.tak.game import END_REASONS, WALL, Tak, TakState

ALL_ENDS = {"road", "full board", "last piece", "move cap"}
# (game, number of games, what those games must include: end reasons, and "flattened" (a capstone on a wall))
GAMES = [(Tak(3), 100, {"road", "full board", "move cap"}), (Tak(3, komi=0.5, move_cap=24), 40, {"road", "move cap"}),
         (Tak(4), 60, ALL_ENDS), (Tak(4, komi=2, move_cap=40), 30, {"road", "full board", "move cap"}),
         (Tak(5), 30, ALL_ENDS | {"flattened"}), (Tak(5, komi=1.5, move_cap=80), 20, {"road", "move cap", "flattened"}),
         (Tak(6), 12, {"road", "last piece", "move cap", "flattened"})]


def random_action(game, actions, rng, stack_moves):
    """A uniformly random action; with ``stack_moves``, a stack move 80% of the time when there is one."""
    movers = [a for a in actions if a >= game.placements]
    if stack_moves and movers and rng.random() < 0.8:
        return movers[int(rng.integers(len(movers)))]
    return actions[int(rng.integers(len(actions)))]


def play_both(game, rng, stack_moves, seen) -> None:
    """One random game on the reference and on the compiled rules, compared at every ply; adds to ``seen``
    the end reason and whether a capstone flattened a wall."""
    r = compiled.rules(game)
    out = np.zeros(game.action_space_size, np.int64)
    x = np.zeros(int(np.prod(game.encoding_shape)), np.float32)
    state = game.initial_state()
    s = compiled.initial_array(game)
    while True:
        k = compiled.legal_actions(r, s, out)
        assert out[:k].tolist() == sorted(game.legal_actions(state)) == np.flatnonzero(game.legal_mask(state)).tolist()
        compiled.encode(r, s, x)
        np.testing.assert_array_equal(x, game.encode(state).reshape(-1))
        assert [compiled.has_road(r, s, c) for c in (0, 1)] == [game.has_road(state, c) for c in (0, 1)]
        if game.is_terminal(state):
            seen.add(END_REASONS[state.reason])
            return
        action = random_action(game, out[:k].tolist(), rng, stack_moves)
        if action >= game.placements:
            square, direction, drops = game.move_of(action)
            target = state.board[game.path(square, direction)[len(drops) - 1]]
            if target and target[-1] >> 1 == WALL:
                seen.add("flattened")
        state = game.next_state(state, action)
        compiled.play(r, s, action)
        assert compiled.tak_state(game, s) == state
        np.testing.assert_array_equal(s, compiled.state_array(game, state))


@pytest.mark.parametrize("game, games, met", GAMES,
                         ids=[f"{g.name} komi {g.komi:g} cap {g.move_cap}" for g, _, _ in GAMES])
def test_random_games_are_the_references(game, games, met):
    """Every ply: legal actions (increasing), roads, the encoding; after it the same state, the end included.
    The games meet the ends (and flattenings) that ``met`` names, so the comparison saw them."""
    rng, seen = np.random.default_rng(game.size * 100 + games), set()
    for i in range(games):
        play_both(game, rng, stack_moves=i % 2 == 1, seen=seen)
    assert met <= seen, seen


def reference_perft(game, state, depth):
    if depth == 0 or game.is_terminal(state):
        return 1
    return sum(reference_perft(game, game.next_state(state, a), depth - 1) for a in game.legal_actions(state))


@pytest.mark.parametrize("size, counts", [(3, [9, 72, 1200]), (4, [16, 240, 7440]), (5, [25, 600, 43320])])
def test_perft_from_the_start(size, counts):
    """The counts of ``tests/test_tak_rules.py`` (checked there against an independent implementation) on
    3x3 and 4x4, and the reference's on 5x5."""
    game = Tak(size)
    r, s = compiled.rules(game), compiled.initial_array(game)
    assert [compiled.perft(r, s, d) for d in (1, 2, 3)] == counts
    assert [reference_perft(game, game.initial_state(), d) for d in (1, 2, 3)] == counts
    np.testing.assert_array_equal(s, compiled.initial_array(game))  # perft leaves its position as it was


@pytest.mark.parametrize("size, depth, plies", [(3, 3, (6, 10, 14)), (4, 3, (8, 14, 20)), (5, 3, (10, 18)),
                                                (6, 2, (10, 18, 26))])
def test_perft_from_mid_game_positions(size, depth, plies):
    """Positions of stack-move heavy random games after ``plies`` plies (a game that ends sooner is replaced)."""
    game, rng = Tak(size), np.random.default_rng(size)
    r, checked = compiled.rules(game), 0
    while checked < len(plies):
        state, checked = game.initial_state(), 0
        for ply in range(plies[-1] + 1):
            if game.is_terminal(state):
                break
            if ply in plies:
                expected = [reference_perft(game, state, d) for d in range(1, depth + 1)]
                s = compiled.state_array(game, state)
                assert [compiled.perft(r, s, d) for d in range(1, depth + 1)] == expected
                checked += 1
            state = game.next_state(state, random_action(game, game.legal_actions(state), rng, True))


def test_the_dragon_clause_gives_the_mover_the_win():
    """White moves b3's top flat down: row 2 becomes White's road and the uncovered Black flat on b3 completes
    Black's row 3; the mover wins (random games rarely meet this)."""
    game = Tak(3)
    board = [()] * 9
    board[3], board[5], board[6], board[7], board[8] = (0,), (0,), (1,), (1, 0), (1,)  # a2 c2 / a3 b3 c3
    state = TakState(tuple(board), (7, 0, 7, 0), 6, -1, 0)
    action = game.parse_action(state, "b3-")
    expected = game.next_state(state, action)
    assert game.has_road(expected, 0) and game.has_road(expected, 1) and expected.winner == 0
    assert compiled.tak_state(game, compiled.next_state(compiled.rules(game), compiled.state_array(game, state),
                                                        action)) == expected


def test_the_array_round_trips_and_a_wrong_game_is_refused():
    game = Tak(5)
    state = game.initial_state()
    rng = np.random.default_rng(0)
    for _ in range(30):
        state = game.next_state(state, random_action(game, game.legal_actions(state), rng, True))
    s = compiled.state_array(game, state)
    assert s.dtype == np.int64 and s.shape == (compiled.state_size(5),) == (82,)
    assert compiled.tak_state(game, s) == state
    after = compiled.next_state(compiled.rules(game), s, game.legal_actions(state)[-1])
    assert compiled.tak_state(game, s) == state and not np.array_equal(after, s)  # next_state copies
    with pytest.raises(TypeError, match="need a Tak game, got Othello"):
        from azcourse.othello.game import Othello
        compiled.rules(Othello(6))
