"""Othello rules: the start, flips in every direction, edges and corners, the explicit pass, the end
(full board, wipe-out, blocked positions, draws), move counts (perft) against the published 8x8
figures and against a deliberately simple implementation written here, the eight symmetries, move
text and its refusals, the pictures, the opponents and ``play.py othello``."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.agents import make_agent
from azcourse.core.arena import play_game, random_opening
from azcourse.core.protocol import IllegalAction
from azcourse.core.terminal import TerminalMatch
from azcourse.othello.agents import OPPONENTS, GreedyAgent, make_opponent
from azcourse.othello.display import plot_othello
from azcourse.othello.game import PLAYER_NAMES, Othello
from azcourse.othello.symmetry import symmetries, transform_planes, transform_policy

ROOT = Path(__file__).resolve().parents[1]
SIZES = (4, 6, 8)
EIGHT_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def position(rows, player=0):
    """A state from a diagram: one string per row, ``X`` black, ``O`` white, ``.`` empty."""
    game = Othello(len(rows))
    board = [[".XO".index(ch) for ch in row.replace(" ", "")] for row in rows]
    return game, game.from_board(board, player)


def diagram(game, state):
    return [" ".join(".XO"[v] for v in row) for row in game.board(state)]


def square(text):
    """``(row, col)`` of a square named like ``c4``."""
    return int(text[1:]) - 1, ord(text[0]) - ord("a")


def action(game, text):
    row, col = square(text)
    return row * game.size + col


def legal_texts(game, state):
    return [game.action_to_text(state, a) for a in np.flatnonzero(game.legal_mask(state))]


# -- an independent, deliberately simple implementation: a 2D list and eight loops -------------------
class Naive:
    """Othello on a list of lists (0 empty, 1 black, 2 white), checking every square and direction by
    walking; the pass is the action n * n. Written from the rules, sharing nothing with the game."""

    def __init__(self, n, board=None):
        self.n = n
        self.player = 1  # 1 black, 2 white
        if board is not None:
            self.board = [[int(v) for v in row] for row in board]
            return
        self.board = [[0] * n for _ in range(n)]
        m = n // 2
        self.board[m - 1][m - 1] = self.board[m][m] = 2
        self.board[m - 1][m] = self.board[m][m - 1] = 1

    def copy(self):
        other = Naive.__new__(Naive)
        other.n, other.player, other.board = self.n, self.player, [row[:] for row in self.board]
        return other

    def flips(self, r, c, colour):
        if self.board[r][c] != 0:
            return []
        enemy = 3 - colour
        found = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == dc == 0:
                    continue
                line = []
                rr, cc = r + dr, c + dc
                while 0 <= rr < self.n and 0 <= cc < self.n and self.board[rr][cc] == enemy:
                    line.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                if line and 0 <= rr < self.n and 0 <= cc < self.n and self.board[rr][cc] == colour:
                    found += line
        return found

    def placing(self, colour):
        return [r * self.n + c for r in range(self.n) for c in range(self.n) if self.flips(r, c, colour)]

    def over(self):
        return not self.placing(1) and not self.placing(2)

    def legal(self):
        if self.over():
            return []
        return self.placing(self.player) or [self.n * self.n]

    def play(self, move):
        nxt = self.copy()
        if move != self.n * self.n:
            r, c = divmod(move, self.n)
            for rr, cc in self.flips(r, c, self.player) + [(r, c)]:
                nxt.board[rr][cc] = self.player
        nxt.player = 3 - self.player
        return nxt

    def winner(self):
        black = sum(row.count(1) for row in self.board)
        white = sum(row.count(2) for row in self.board)
        return 0 if black > white else 1 if white > black else None


def perft(game, state, depth):
    """Positions reached after exactly ``depth`` actions (a pass counts as one); a finished game has
    no continuation, so it adds nothing before the last level."""
    if depth == 0:
        return 1
    if game.is_terminal(state):
        return 0
    return sum(perft(game, game.next_state(state, int(a)), depth - 1) for a in np.flatnonzero(game.legal_mask(state)))


def naive_perft(naive, depth):
    if depth == 0:
        return 1
    return sum(naive_perft(naive.play(move), depth - 1) for move in naive.legal())


# -- sizes and the start ---------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_every_even_size_from_4_to_8_has_a_square_per_action_and_a_pass(size):
    game = Othello(size)
    state = game.initial_state()
    assert game.name == f"othello{size}" and game.action_space_size == size * size + 1
    assert game.pass_action == size * size and game.encoding_shape == (3, size, size)
    m = size // 2
    expected = np.zeros((size, size), dtype=np.int8)
    expected[m - 1, m - 1] = expected[m, m] = 2  # white on the main diagonal of the centre
    expected[m - 1, m] = expected[m, m - 1] = 1
    assert np.array_equal(game.board(state), expected)
    assert game.to_move(state) == 0 and game.scores(state) == (2, 2)
    assert game.legal_mask(state).sum() == 4 and not game.legal_mask(state)[game.pass_action]


@pytest.mark.parametrize("size", [2, 3, 5, 7, 10, 0, -6, 6.0, "6"])
def test_other_sizes_are_refused(size):
    with pytest.raises(ValueError, match="4, 6 or 8"):
        Othello(size)


def test_the_8x8_start_is_the_standard_one():
    game = Othello(8)
    state = game.initial_state()
    board = game.board(state)
    assert [board[square(s)] for s in ("d4", "e5", "d5", "e4")] == [2, 2, 1, 1]  # white d4 e5, black d5 e4
    assert legal_texts(game, state) == ["d3", "c4", "f5", "e6"]
    assert PLAYER_NAMES[game.to_move(state)].startswith("Black")


# -- flips ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", EIGHT_DIRECTIONS)
def test_a_line_is_flipped_in_each_of_the_eight_directions(direction):
    """From d4 on an empty 8x8 board: two white discs then a black one in ``direction`` are flipped;
    in the opposite direction two white discs run out to an empty square and stay white."""
    game = Othello(8)
    dr, dc = direction
    board = np.zeros((8, 8), dtype=np.int8)
    board[3 + dr, 3 + dc] = board[3 + 2 * dr, 3 + 2 * dc] = 2
    board[3 + 3 * dr, 3 + 3 * dc] = 1
    board[3 - dr, 3 - dc] = board[3 - 2 * dr, 3 - 2 * dc] = 2  # no black disc beyond: no flip
    state = game.from_board(board, 0)
    assert legal_texts(game, state) == ["d4"]
    after = game.board(game.next_state(state, 3 * 8 + 3))
    expected = board.copy()
    expected[3, 3] = expected[3 + dr, 3 + dc] = expected[3 + 2 * dr, 3 + 2 * dc] = 1
    assert np.array_equal(after, expected)


def test_one_move_flips_in_all_eight_directions_at_once():
    game, state = position(["X . . X . . X .",
                            ". O . O . O . .",
                            ". . O O O . . .",
                            "X O O . O O X .",
                            ". . O O O . . .",
                            ". O . O . O . .",
                            "X . . X . . X .",
                            ". . . . . . . ."])
    after = game.next_state(state, action(game, "d4"))
    assert diagram(game, after) == ["X . . X . . X .",
                                    ". X . X . X . .",
                                    ". . X X X . . .",
                                    "X X X X X X X .",
                                    ". . X X X . . .",
                                    ". X . X . X . .",
                                    "X . . X . . X .",
                                    ". . . . . . . ."]
    assert game.scores(after) == (25, 0) and game.is_terminal(after)  # white is gone: the game ends


def test_a_corner_move_flips_along_its_row_column_and_diagonal_and_only_lines_that_are_closed():
    game, state = position([". O O X . .",
                            "O O . . . .",
                            "O . O . . .",
                            "X . . X . .",
                            ". . . . . .",
                            ". . . . . O"], player=0)
    after = game.next_state(state, action(game, "a1"))
    assert diagram(game, after) == ["X X X X . .",
                                    "X X . . . .",
                                    "X . X . . .",
                                    "X . . X . .",
                                    ". . . . . .",
                                    ". . . . . O"]


def test_edge_lines_flip_along_the_edge():
    game, state = position([". . . .",
                            "O . . .",
                            "O . . .",
                            "X . . ."])
    assert legal_texts(game, state) == ["a1"]
    assert diagram(game, game.next_state(state, 0))[:3] == ["X . . .", "X . . .", "X . . ."]


WRAP_BAITS = {  # (white square, black square, the bait): on the flat board the bait, the white disc and
    # the black disc follow each other with one step, but the black disc lies across the edge
    "east": (lambda n: (0, n - 1), lambda n: (1, 0), lambda n: (0, n - 2)),
    "west": (lambda n: (1, 0), lambda n: (0, n - 1), lambda n: (1, 1)),
    "down-right": (lambda n: (1, n - 1), lambda n: (3, 0), lambda n: (0, n - 2)),
    "up-left": (lambda n: (2, 0), lambda n: (0, n - 1), lambda n: (3, 1)),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("wrap", WRAP_BAITS)
def test_lines_do_not_wrap_around_the_board_edges(size, wrap):
    """Square ``(r, n-1)`` is followed by ``(r+1, 0)`` on the flat board; a line that would run over
    the edge is no line, so the bait is no move and the game is over (nobody can close a line)."""
    game = Othello(size)
    white, black, bait = (where(size) for where in WRAP_BAITS[wrap])
    board = np.zeros((size, size), dtype=np.int8)
    board[white], board[black] = 2, 1
    state = game.from_board(board, 0)
    assert not game.legal_mask(state)[bait[0] * size + bait[1]]
    assert game.is_terminal(state) and Naive(size, board).over()


# -- the pass and the end ------------------------------------------------------------------------
def test_a_player_without_a_placing_move_must_pass_and_then_the_other_player_moves():
    game, state = position(["X X X X",
                            "X X X X",
                            "X X X .",
                            ". O O X"], player=1)  # white: a4 and d3 outflank nothing
    assert not game.is_terminal(state) and game.to_move(state) == 1
    assert np.flatnonzero(game.legal_mask(state)).tolist() == [game.pass_action]
    assert game.parse_action(state, " PASS ") == game.pass_action
    with pytest.raises(IllegalAction, match="d3 flips nothing: .*you have no move, so type pass"):
        game.parse_action(state, "d3")
    assert "must pass" in game.render(state) and game.encode(state)[2].sum() == 0
    passed = game.next_state(state, game.pass_action)
    assert game.to_move(passed) == 0 and np.array_equal(game.board(passed), game.board(state))
    assert legal_texts(game, passed) == ["a4"]  # black moves next, and passing is no longer legal
    with pytest.raises(ValueError, match="pass while a placing move exists"):
        game.next_state(passed, game.pass_action)
    with pytest.raises(IllegalAction, match="cannot pass while you have a move: legal moves are a4"):
        game.parse_action(passed, "pass")
    final = game.next_state(passed, action(game, "a4"))
    assert game.is_terminal(final) and game.scores(final) == (15, 0)


def test_when_neither_player_can_move_the_game_ends_with_empty_squares_left():
    """No double pass: a position where neither side has a placing move is over at once, with no
    legal action (not even the pass), and the side with more discs wins."""
    game, state = position([". X X X",
                            "X X X X",
                            "X X X X",
                            "X X O X"], player=1)
    assert game.is_terminal(state) and not game.legal_mask(state).any()
    assert game.scores(state) == (14, 1) and game.returns(state).tolist() == [1.0, -1.0]
    with pytest.raises(ValueError, match="game is over"):
        game.next_state(state, game.pass_action)
    with pytest.raises(IllegalAction, match="The game is over"):
        game.parse_action(state, "pass")
    assert "Game over: Black (X, player 1) wins." in game.render(state)


def test_a_wipe_out_ends_the_game_early():
    game, state = position([". . . . . .",
                            ". . . . . .",
                            ". . X O . .",
                            ". . . . . .",
                            ". . . . . .",
                            ". . . . . ."])
    after = game.next_state(state, action(game, "e3"))
    assert game.is_terminal(after) and game.scores(after) == (3, 0)
    assert game.returns(after).tolist() == [1.0, -1.0] and not game.legal_mask(after).any()


def test_the_move_that_fills_the_board_ends_it_in_a_draw_or_a_win():
    game, state = position([". O X O",
                            "X X O O",
                            "O O X X",
                            "O O X O"])
    draw = game.next_state(state, action(game, "a1"))
    assert diagram(game, draw)[0] == "X X X O"
    assert game.is_terminal(draw) and game.scores(draw) == (8, 8) and game.returns(draw).tolist() == [0.0, 0.0]
    assert "Game over: a draw." in game.render(draw)
    game, state = position([". O X O",
                            "X X O O",
                            "O O X X",
                            "O O X O"], player=1)
    won = game.next_state(state, action(game, "a1"))  # white flips a2 down the column, b2 and c3 diagonally
    assert diagram(game, won) == ["O O X O", "O O O O", "O O O X", "O O X O"]
    assert game.is_terminal(won) and game.scores(won) == (3, 13)
    assert game.returns(won).tolist() == [-1.0, 1.0]


# -- move counts --------------------------------------------------------------------------------
PUBLISHED_8X8_PERFT = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1396, 6: 8200, 7: 55092}


def test_8x8_perft_matches_the_published_counts():
    game = Othello(8)
    assert {d: perft(game, game.initial_state(), d) for d in PUBLISHED_8X8_PERFT} == PUBLISHED_8X8_PERFT


def test_the_naive_implementation_also_gives_the_published_8x8_counts():
    assert [naive_perft(Naive(8), d) for d in range(1, 5)] == [4, 12, 56, 244]


def test_6x6_and_4x4_perft_agree_with_the_naive_implementation():
    for size, depth in ((6, 6), (4, 9)):
        game = Othello(size)
        ours = [perft(game, game.initial_state(), d) for d in range(1, depth + 1)]
        assert ours == [naive_perft(Naive(size), d) for d in range(1, depth + 1)], size
    assert ours[0] == 4 and ours[-1] > 0


@pytest.mark.parametrize("size, games", [(4, 200), (6, 200), (8, 60)])
def test_random_games_agree_with_the_naive_implementation_move_by_move(size, games):
    """The same legal moves (the pass included), the same flips and the same end and winner."""
    game = Othello(size)
    rng = np.random.default_rng(size)
    passes = early_ends = 0
    for _ in range(games):
        state, naive = game.initial_state(), Naive(size)
        while True:
            assert np.flatnonzero(game.legal_mask(state)).tolist() == naive.legal()
            assert game.to_move(state) == naive.player - 1
            assert game.board(state).tolist() == naive.board
            if game.is_terminal(state):
                break
            move = int(rng.choice(naive.legal()))
            passes += move == game.pass_action
            state, naive = game.next_state(state, move), naive.play(move)
        winner = naive.winner()
        expected = [0.0, 0.0] if winner is None else [1.0 if p == winner else -1.0 for p in (0, 1)]
        assert game.returns(state).tolist() == expected
        early_ends += 0 in game.board(state)
    assert passes > 0 and early_ends > 0  # both rare paths were exercised


# -- encoding and symmetries --------------------------------------------------------------------
def test_encoding_is_the_movers_discs_the_opponents_and_the_legal_moves():
    game = Othello(6)
    state = game.next_state(game.initial_state(), action(game, "c2"))
    x = game.encode(state)
    assert x.shape == (3, 6, 6) and x.dtype == np.float32
    board = game.board(state)
    assert np.array_equal(x[0], board == 2) and np.array_equal(x[1], board == 1)  # white moves
    assert np.array_equal(x[2].reshape(-1), game.legal_mask(state)[:-1])


def transformed_square(n, g, r, c):
    """Where symmetry ``g`` sends ``(r, c)``, written out from the rotation and the mirror by hand."""
    for _ in range(g // 2):
        r, c = n - 1 - c, r  # a quarter turn counter-clockwise
    return (r, n - 1 - c) if g % 2 else (r, c)


def transformed_state(game, state, g):
    n = game.size
    board = game.board(state)
    moved = np.zeros_like(board)
    for r in range(n):
        for c in range(n):
            moved[transformed_square(n, g, r, c)] = board[r, c]
    return game.from_board(moved, game.to_move(state))


@pytest.mark.parametrize("size", SIZES)
def test_the_eight_symmetries_move_the_encoding_and_the_policy_together(size):
    game = Othello(size)
    n = size
    rng = np.random.default_rng(size)
    state, checked = game.initial_state(), 0
    while not game.is_terminal(state):
        x = game.encode(state)
        policy = rng.random(game.action_space_size)
        pairs = symmetries(x, policy)
        assert len(pairs) == 8
        for g, (gx, gp) in enumerate(pairs):
            other = transformed_state(game, state, g)
            assert gx.dtype == np.float32 and np.array_equal(gx, game.encode(other))
            assert gp[-1] == policy[-1]  # the pass stays
            for a in range(n * n):
                r, c = transformed_square(n, g, *divmod(a, n))
                assert gp[r * n + c] == policy[a]
            # the rules commute with the symmetry: legal moves and their results move together
            for a in np.flatnonzero(game.legal_mask(state)[:-1]):
                r, c = transformed_square(n, g, *divmod(int(a), n))
                assert game.state_key(game.next_state(other, r * n + c)) == \
                    game.state_key(transformed_state(game, game.next_state(state, int(a)), g))
        checked += 1
        state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    assert checked > 5


def test_symmetries_are_distinct_keep_the_start_in_four_cases_and_take_batches():
    game = Othello(6)
    start = game.encode(game.initial_state())
    kept = [g for g in range(8) if np.array_equal(transform_planes(start, g), start)]
    assert kept == [0, 3, 4, 7]
    marker = np.arange(37.0)
    images = {tuple(transform_policy(marker, g)) for g in range(8)}
    assert len(images) == 8
    batch = np.stack([start, 1 - start])
    policies = np.stack([marker, -marker])
    for g in range(8):
        assert np.array_equal(transform_planes(batch, g)[1], transform_planes(1 - start, g))
        assert np.array_equal(transform_policy(policies, g)[1], -transform_policy(marker, g))
    copy = transform_planes(start, 0)
    copy[0, 0, 0] = 5
    assert start[0, 0, 0] == 0  # a new array, not a view
    with pytest.raises(ValueError, match="n \\* n \\+ 1"):
        transform_policy(np.ones(36), 1)
    with pytest.raises(ValueError, match="need a policy of 37"):
        symmetries(start, np.ones(17))
    with pytest.raises(ValueError, match="numbered 0 to 7"):
        transform_planes(start, 8)


# -- move text --------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_every_action_round_trips_through_its_text(size):
    game = Othello(size)
    state = game.initial_state()
    for a in np.flatnonzero(game.legal_mask(state)):
        text = game.action_to_text(state, int(a))
        assert game.parse_action(state, text) == a
        assert game.parse_action(state, f"  {text.upper()[0]} {text[1:]} ") == a
    assert game.action_to_text(state, game.pass_action) == "pass"
    assert game.action_to_text(state, 0) == "a1" and game.action_to_text(state, size * size - 1) == \
        f"{'abcdefgh'[size - 1]}{size}"
    assert game.action_to_text(state, size + 2) == "c2"  # column letter, then the row
    with pytest.raises(ValueError):
        game.action_to_text(state, size * size + 1)


@pytest.mark.parametrize("text, reason", [
    ("zz", "'zz' is not a move: type a column letter and a row number such as c4 (columns a to f, rows 1 to 6), "
           "or pass."),
    ("", "'' is not a move"),
    ("4c", "'4c' is not a move"),
    ("g1", "Column g is off the board: columns run from a to f."),
    ("a7", "Row 7 is off the board: rows run from 1 to 6."),
    ("a0", "Row 0 is off the board"),
    ("c3", "c3 is taken by a white disc (O)."),
    ("d3", "d3 is taken by a black disc (X)."),
    ("a1", "a1 flips nothing: a move must outflank at least one white disc in a line; legal moves are c2, b3, "
           "e4, d5."),
    ("pass", "You cannot pass while you have a move: legal moves are c2, b3, e4, d5."),
    ("x" * 17, "That is too long for a move (17 characters)"),
])
def test_bad_move_text_is_refused_with_the_reason_and_the_position_is_unchanged(text, reason):
    game = Othello(6)
    state = game.initial_state()
    key = game.state_key(state)
    with pytest.raises(IllegalAction) as refused:
        game.parse_action(state, text)
    assert str(refused.value).startswith(reason)
    assert game.state_key(state) == key and game.legal_mask(state).sum() == 4


def test_parsing_refuses_any_text_with_illegal_action_only():
    """Huge numbers, unicode digits and letters, control characters, non-text: always an
    ``IllegalAction`` (never a ``ValueError`` from ``int`` or anything else), and quickly."""
    game = Othello(8)
    state = game.initial_state()
    strange = ["1" * 5000, "c" + "9" * 5000, "c٣", "ｃ４", "ç4", "c4\x00", "\x1b[2Jc4", "c\u200b4", "🂡", "c-4",
               "c+4", "c04x", "c 1 0", "c4c4", "\udcff", "a" * 10**6, None, 4, b"c4", "c4\n" * 9]
    for text in strange:
        with pytest.raises(IllegalAction):
            game.parse_action(state, text)
    rng = np.random.default_rng(0)
    alphabet = list("abcdefghijpsASP0123456789 \t\n-,.") + ["٣", "ß", "\x00", "é", "中"]
    accepted = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet, size=int(rng.integers(0, 8))))
        try:
            a = game.parse_action(state, text)
        except IllegalAction:
            continue
        assert game.legal_mask(state)[a]
        accepted += 1
    assert accepted > 0


def test_render_shows_coordinates_discs_counts_the_mover_and_the_legal_moves():
    game = Othello(6)
    assert game.render(game.initial_state()).splitlines() == [
        "   a b c d e f",
        " 1 . . . . . .",
        " 2 . . * . . .",
        " 3 . * O X . .",
        " 4 . . X O * .",
        " 5 . . . * . .",
        " 6 . . . . . .",
        "Discs: X 2, O 2. Black (X, player 1) to move. * marks the legal moves.",
    ]


# -- the figure -------------------------------------------------------------------------------------
def test_the_figure_draws_every_disc_the_legal_moves_and_the_last_move_headless():
    import matplotlib
    from matplotlib.patches import Circle

    game = Othello(6)
    state = game.next_state(game.initial_state(), action(game, "c2"))
    ax = plot_othello(game, state, last_action=action(game, "c2"))
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    discs = [p for p in circles if p.get_fill() and p.get_radius() == 0.4]
    dots = [p for p in circles if p.get_radius() == 0.1]
    rings = [p for p in circles if not p.get_fill()]
    assert len(discs) == 5 and len(dots) == game.legal_mask(state)[:-1].sum() and len(rings) == 1
    assert rings[0].center == (2, -1)  # c2: column 2, row 1 (0-based), drawn at (c, -r)
    assert ax.get_title() == game.status(state) == "Discs: X 4, O 1. White (O, player 2) to move."
    assert {t.get_text() for t in ax.texts} == set("abcdef") | set("123456")
    ax = plot_othello(game, state, show_legal=False, last_action=game.pass_action, title="after c2")
    assert sum(isinstance(p, Circle) for p in ax.patches) == 5 and ax.get_title() == "after c2"
    matplotlib.pyplot.close("all")


# -- opponents, the arena and the terminal ---------------------------------------------------------
def test_greedy_takes_the_most_discs_with_ties_to_the_lowest_index_and_passes_when_it_must():
    game = Othello(8)
    greedy = GreedyAgent(game)
    assert greedy.choose(game.initial_state()) == action(game, "d3")  # four moves flip one disc each
    game, state = position([". O O X . .",
                            "O . . . . .",
                            "X . . . . .",
                            ". . . . . .",
                            ". . . O O X",
                            ". . . . . ."])
    assert legal_texts(game, state) == ["a1", "c5"]
    assert greedy_choice(game, state) == "a1"  # a1 flips three discs, c5 two
    game, state = position(["X X X X", "X X X X", "X X X .", ". O O X"], player=1)
    assert greedy_choice(game, state) == "pass"


def greedy_choice(game, state):
    return game.action_to_text(state, GreedyAgent(game).choose(state))


def test_opponents_by_name_and_scores_in_the_arena():
    game = Othello(6)
    assert tuple(OPPONENTS) == ("random", "greedy", "uct", "classical", "value", "policy", "monte-carlo", "alphazero")
    with pytest.raises(ValueError, match="unknown Othello opponent 'alphatak'; choose from random, greedy, uct, classical, value"):
        make_opponent("alphatak", game, np.random.default_rng(0))
    agents = [make_opponent("greedy", game, np.random.default_rng(0)), make_opponent("random", game,
                                                                                     np.random.default_rng(1))]
    record, final = play_game(game, agents, np.random.default_rng(0))
    assert record.scores == game.scores(final) and sum(record.scores) <= 36
    assert record.winner == (None if record.scores[0] == record.scores[1] else int(record.scores[1] > record.scores[0]))


def test_uct_beats_random_on_4x4():
    game = Othello(4)
    wins = 0
    for seed in range(6):
        uct = make_opponent("uct", game, np.random.default_rng(seed), simulations=200)
        rand = make_agent("random", game, np.random.default_rng(100 + seed))
        seats = [uct, rand] if seed % 2 == 0 else [rand, uct]
        record, _ = play_game(game, seats)
        wins += record.winner == seats.index(uct)
    assert wins >= 5


class RandomPerson(TerminalMatch):
    """A terminal match whose person types a random legal move of the position it is asked in."""

    def __init__(self, game, agent, human, rng, typed, lines):
        super().__init__(game, agent, human, "help", PLAYER_NAMES, rng, read=self.type_move, write=lines.append)
        self.typed, self.position = typed, None

    def ask(self, state):
        self.position = state
        return super().ask(state)

    def type_move(self, prompt):
        legal = np.flatnonzero(self.game.legal_mask(self.position))
        self.typed.append(self.game.action_to_text(self.position, int(self.rng.choice(legal))))
        return self.typed[-1]


def test_whole_terminal_games_with_passes_end_with_the_result():
    """Random 4x4 games typed into the terminal loop (passes included) reach the end and say who won."""
    game = Othello(4)
    seen_pass = False
    for seed in range(12):
        rng = np.random.default_rng(seed)
        typed, lines = [], []
        match = RandomPerson(game, make_opponent("greedy", game, rng), seed % 2, rng, typed, lines)
        assert match.run() == 0
        assert lines[-1] in ("You win!", "greedy wins.", "Draw.") and "Game over" in lines[-2]
        assert typed and not any(line.startswith("Refused") for line in lines)
        seen_pass |= "pass" in typed or "greedy plays pass." in lines
    assert seen_pass


def run_cli(stdin, *args):
    return subprocess.run([sys.executable, str(ROOT / "play.py"), "othello", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_play_othello_refuses_bad_moves_shows_the_board_and_quits():
    proc = run_cli("c2\nc2\nf6\nboard\nquit\n", "--size", "6", "--opponent", "greedy", "--seed", "3")
    out = proc.stdout
    assert proc.returncode == 0 and proc.stderr == ""
    assert "You play c2." in out and out.count("greedy plays ") == 1
    refusals = [line for line in out.splitlines() if line.startswith("Refused")]
    assert refusals[0] == "Refused: c2 is taken by a black disc (X)."
    assert refusals[1].startswith("Refused: f6 flips nothing: a move must outflank at least one white disc")
    before = out.split("Your move: c2\nRefused", 1)[0].rsplit("greedy plays ", 1)[1].split("\n", 1)[1]
    after = out.split("Your move: board\n", 1)[1].split("Your move: quit", 1)[0]
    assert after == before and after.splitlines()[-1].startswith("Discs: X 3, O 3.")
    assert out.rstrip().endswith("You left the game.")


def test_play_othello_options():
    proc = run_cli("", "--size", "5")
    assert proc.returncode == 2 and "must be 4, 6 or 8, got 5" in proc.stderr
    proc = run_cli("", "--help")
    assert proc.returncode == 0 and "--opponent {random,greedy,uct,classical,value,policy,monte-carlo,alphazero}" in proc.stdout
    proc = run_cli("", "--size", "4", "--second", "--opponent", "uct", "--simulations", "20", "--seed", "1")
    assert proc.returncode == 0 and proc.stdout.splitlines()[0].startswith("You play White (O, player 2) against uct.")
    assert "uct plays " in proc.stdout and "End of input." in proc.stdout



class FloatStream:
    """A stand-in generator whose ``random()`` returns, one by one, the floats ``floats``: given the
    block that ``Othello.random_playout`` draws at once, a move-by-move rollout sees the same draws."""

    def __init__(self, floats):
        self.floats = iter(floats.tolist())

    def random(self):
        return next(self.floats)


@pytest.mark.parametrize("size", SIZES)
def test_random_playout_plays_the_moves_of_random_play_move_by_move(size):
    """The bitboard rollout draws ``2e + 1`` floats at once (``e`` empty squares) and plays the
    ``int(u * k)``-th legal square at each decision; ``random_policy`` move by move through the protocol,
    fed the same floats, must reach the same result, seed by seed: the same distribution, exactly.
    Positions: random openings of every length, either player to move, finished ones and passes included."""
    from azcourse.core.evaluators import RolloutEvaluator, random_policy

    game = Othello(size)
    stepwise = RolloutEvaluator(random_policy, playout=False)
    rng = np.random.default_rng(300 + size)
    results = set()
    for trial in range(30):
        state = random_opening(game, rng, int(rng.integers(size * size)))
        empty = size * size - sum(game.scores(state))
        for seed in range(6):
            fast = game.random_playout(state, np.random.default_rng([trial, seed]))
            floats = np.random.default_rng([trial, seed]).random(2 * empty + 1)
            _, slow = stepwise(game, state, FloatStream(floats))
            assert fast.dtype == np.float64 and fast.shape == (2,)
            assert list(fast) == list(slow), (trial, seed, diagram(game, state))
            results.add(tuple(fast))
    assert {(1.0, -1.0), (-1.0, 1.0)} <= results


def test_random_playout_needs_no_more_draws_than_the_bound():
    """A game from the start never runs out of its ``2e + 1`` floats: every playout ends at a finished
    game (the stand-in raises StopIteration otherwise)."""
    from azcourse.core.evaluators import RolloutEvaluator, random_policy

    game, stepwise = Othello(8), RolloutEvaluator(random_policy, playout=False)
    for seed in range(40):
        floats = np.random.default_rng(seed).random(2 * 60 + 1)
        _, result = stepwise(game, game.initial_state(), FloatStream(floats))
        assert list(game.random_playout(game.initial_state(), np.random.default_rng(seed))) == list(result)
