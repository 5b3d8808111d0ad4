"""Hex rules: board sizes, the six-neighbour rule, wins by connectivity, no draws, the state format,
move text and the pictures."""
import math

import numpy as np
import pytest

from azcourse.hex.game import Hex, HexState, neighbours
from azcourse.hex.display import HexDisplay, cell_centre, plot_hex
from azcourse.hex.game import diamond_text
from azcourse.core.evaluators import RolloutEvaluator, random_policy
from azcourse.core.protocol import IllegalAction

SIZES = range(3, 9)


def board(size, stones, player=0):
    """A state from {(row, col): 1 or 2} (1 = player 1 = protocol player 0)."""
    game = Hex(size)
    values = [0] * size * size
    for (r, c), v in stones.items():
        values[r * size + c] = v
    return game, game.from_seed_tuple([player + 1, *values])


# -- sizes -------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_every_size_from_3_to_8_has_n_squared_actions(size):
    game = Hex(size)
    state = game.initial_state()
    assert game.action_space_size == size * size
    assert game.legal_mask(state).shape == (size * size,) and game.legal_mask(state).all()
    assert game.encode(state).shape == (2 + 2 * size * size,)
    assert game.name == f"hex{size}"


@pytest.mark.parametrize("size", [2, 9, 0, -5, 4.0, "5"])
def test_other_sizes_are_refused(size):
    with pytest.raises(ValueError, match="from 3 to 8"):
        Hex(size)


# -- the six-neighbour rule (Figure 4) -------------------------------------------------------------
def test_interior_cell_has_the_six_neighbours_of_figure_4():
    assert sorted(neighbours(5, 2, 2)) == sorted([(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)])
    assert (1, 1) not in neighbours(5, 2, 2) and (3, 3) not in neighbours(5, 2, 2)


@pytest.mark.parametrize("size", SIZES)
def test_corners_and_sides_have_fewer_neighbours(size):
    last = size - 1
    assert sorted(neighbours(size, 0, 0)) == [(0, 1), (1, 0)]  # top corner
    assert sorted(neighbours(size, last, last)) == [(last - 1, last), (last, last - 1)]  # bottom corner
    assert sorted(neighbours(size, 0, last)) == [(0, last - 1), (1, last - 1), (1, last)]  # right corner
    assert sorted(neighbours(size, last, 0)) == [(last - 1, 0), (last - 1, 1), (last, 1)]  # left corner
    for k in range(1, last):
        assert len(neighbours(size, 0, k)) == 4 and len(neighbours(size, last, k)) == 4
        assert len(neighbours(size, k, 0)) == 4 and len(neighbours(size, k, last)) == 4
        assert (1, k + 1) not in neighbours(size, 0, k)  # (r+1, c+1) is never a neighbour
        assert (k - 1, last - 1) not in neighbours(size, k, last)  # nor (r-1, c-1)


@pytest.mark.parametrize("size", SIZES)
def test_neighbours_are_the_touching_hexagons_of_the_drawn_diamond(size):
    """The rule agrees with the geometry of the picture: two cells are neighbours exactly when their
    hexagons' centres are one hexagon width (sqrt 3) apart, and the relation is symmetric."""
    cells = [(r, c) for r in range(size) for c in range(size)]
    for a in cells:
        touching = {b for b in cells if b != a and math.isclose(math.dist(cell_centre(*a), cell_centre(*b)),
                                                                 math.sqrt(3))}
        assert set(neighbours(size, *a)) == touching
        assert all(a in neighbours(size, *b) for b in touching)


# -- wins by connectivity -------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_straight_chains_win_for_their_owner_only(size):
    game, state = board(size, {(r, 1): 1 for r in range(size)})  # player 1 down column b: rows 1..n
    assert game.has_chain(state.cells, 0) and not game.has_chain(state.cells, 1)
    assert state.winner == 0 and game.is_terminal(state)
    game, state = board(size, {(1, c): 2 for c in range(size)})  # player 2 along row 2: columns a..
    assert game.has_chain(state.cells, 1) and not game.has_chain(state.cells, 0)
    assert state.winner == 1
    game, state = board(size, {(1, c): 1 for c in range(size)})  # player 1 along a row: not its goal
    assert not game.has_chain(state.cells, 0) and state.winner == -1


@pytest.mark.parametrize("size", SIZES)
def test_the_short_diagonal_connects_and_the_long_one_does_not(size):
    """(r, c) touches (r+1, c-1) but not (r+1, c+1): the anti-diagonal is a chain for both players'
    sides, the main diagonal is a row of separate stones."""
    anti = {(r, size - 1 - r): 1 for r in range(size)}
    main = {(r, r): 1 for r in range(size)}
    game, state = board(size, anti)
    assert game.has_chain(state.cells, 0)
    game, state = board(size, {cell: 2 for cell in anti})
    assert game.has_chain(state.cells, 1)
    game, state = board(size, main)
    assert not game.has_chain(state.cells, 0)
    game, state = board(size, {cell: 2 for cell in main})
    assert not game.has_chain(state.cells, 1)


def test_a_winding_chain_and_a_chain_touching_one_side():
    # player 2 from column a to column e, going down and up again (5x5)
    path = [(0, 0), (1, 0), (2, 0), (2, 1), (3, 1), (3, 2), (2, 3), (1, 3), (1, 4)]
    game, state = board(5, {cell: 2 for cell in path})
    assert game.has_chain(state.cells, 1)
    game, state = board(5, {cell: 2 for cell in path[:-1]})  # stops one short of column e
    assert not game.has_chain(state.cells, 1)
    # the same cells for player 1 touch row 1 (and not row 5)
    game, state = board(5, {cell: 1 for cell in path})
    assert not game.has_chain(state.cells, 0)


def test_the_winning_move_ends_the_game():
    game = Hex(3)
    state = game.initial_state()
    for action in (0, 1, 3, 2):  # X a1, O b1, X a2, O c1: X threatens a3
        state = game.next_state(state, action)
        assert not game.is_terminal(state)
    final = game.next_state(state, 6)  # X a3: column a, rows 1-3
    assert final.winner == 0 and game.is_terminal(final)
    assert list(game.returns(final)) == [1.0, -1.0]
    assert not game.legal_mask(final).any()
    with pytest.raises(ValueError, match="game is over"):
        game.next_state(final, 4)


@pytest.mark.parametrize("size", SIZES)
def test_no_draws_every_full_board_has_exactly_one_winner(size):
    """Hex's theorem on many random fillings (balanced and unbalanced)."""
    game = Hex(size)
    rng = np.random.default_rng(size)
    for trial in range(300):
        share = 0.5 if trial % 2 == 0 else rng.uniform(0.1, 0.9)
        cells = bytes((rng.random(size * size) < share).astype(np.uint8) + 1)
        assert game.has_chain(cells, 0) != game.has_chain(cells, 1), cells


@pytest.mark.parametrize("size", SIZES)
def test_random_games_end_with_the_first_chain_and_never_in_a_draw(size):
    game = Hex(size)
    rng = np.random.default_rng(100 + size)
    for _ in range(40):
        state = game.initial_state()
        while not game.is_terminal(state):
            assert not game.has_chain(state.cells, 0) and not game.has_chain(state.cells, 1)
            state = game.next_state(state, rng.choice(np.flatnonzero(game.legal_mask(state))))
        assert game.has_chain(state.cells, state.winner) and not game.has_chain(state.cells, 1 - state.winner)
        assert sorted(game.returns(state)) == [-1.0, 1.0]


@pytest.mark.parametrize("size", SIZES)
def test_random_playout_has_the_result_of_random_play_move_by_move(size):
    """The fast rollout fills the board, one draw per empty cell, and checks for a chain once; the
    move-by-move rollout (``random_policy`` until the first chain) with the same seed plays the same
    moves up to the win, so the results are equal seed by seed: the same distribution, exactly.
    Positions: random openings of every length, either player to move, finished ones included."""
    game = Hex(size)
    stepwise = RolloutEvaluator(random_policy, playout=False)
    rng = np.random.default_rng(200 + size)
    winners = set()
    for trial in range(24):
        state = game.initial_state()
        for _ in range(int(rng.integers(size * size))):
            if game.is_terminal(state):
                break
            state = game.next_state(state, rng.choice(np.flatnonzero(game.legal_mask(state))))
        for seed in range(8):
            fast = game.random_playout(state, np.random.default_rng([trial, seed]))
            _, slow = stepwise(game, state, np.random.default_rng([trial, seed]))
            assert fast.dtype == np.float64 and fast.shape == (2,) and not fast.flags.writeable
            assert list(fast) == list(slow), (trial, seed, game.to_seed_tuple(state))
            winners.add(int(np.argmax(fast)))
    assert winners == {0, 1}


# -- purity, the state format, encoding -------------------------------------------------------------
def test_next_state_is_pure():
    game = Hex(4)
    state = game.next_state(game.initial_state(), 5)
    copy = HexState(*state)
    child = game.next_state(state, 6)
    assert state == copy and child != state
    assert game.next_state(state, 6) == child  # same input, same output
    with pytest.raises(ValueError, match="taken"):
        game.next_state(state, 5)
    with pytest.raises(ValueError, match="outside"):
        game.next_state(state, 16)
    assert state == copy


def test_state_format_is_player_then_cells_row_by_row():
    game = Hex(3)
    state = game.next_state(game.initial_state(), 5)  # player 1 on row 2, column 3 (c2)
    assert game.to_seed_tuple(state) == (2, 0, 0, 0, 0, 0, 1, 0, 0, 0)
    state = game.next_state(state, 0)  # player 2 on a1
    assert game.to_seed_tuple(state) == (1, 2, 0, 0, 0, 0, 1, 0, 0, 0)


@pytest.mark.parametrize("size", SIZES)
def test_state_format_round_trip(size):
    game = Hex(size)
    rng = np.random.default_rng(size)
    for _ in range(10):
        state = game.initial_state()
        while True:
            flat = game.to_seed_tuple(state)
            assert len(flat) == 1 + size * size and flat[0] == state.player + 1
            assert game.from_seed_tuple(flat) == state
            if game.is_terminal(state):
                break
            state = game.next_state(state, rng.choice(np.flatnonzero(game.legal_mask(state))))


def test_bad_state_tuples_are_refused():
    game = Hex(3)
    with pytest.raises(ValueError, match="10 numbers"):
        game.from_seed_tuple([1, 0, 0])
    with pytest.raises(ValueError, match="player to move"):
        game.from_seed_tuple([0] * 10)
    with pytest.raises(ValueError, match="cells hold"):
        game.from_seed_tuple([1, 3] + [0] * 8)
    column_a_x = [1] + [1, 2, 0, 1, 2, 0, 1, 2, 0]  # X down column a joins rows 1-3; O's column b does not
    assert game.from_seed_tuple(column_a_x).winner == 0


def test_encoding_has_two_bits_for_the_player_and_two_per_cell():
    game = Hex(3)
    state = game.next_state(game.next_state(game.initial_state(), 4), 8)  # X b2, O c3
    x = game.encode(state)
    assert x.dtype == np.float32 and x.shape == (20,)
    assert list(x[:2]) == [1, 0]  # player 1 to move
    cells = x[2:].reshape(9, 2)
    assert list(cells[4]) == [1, 0] and list(cells[8]) == [0, 1] and cells.sum() == 2


# -- move text --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["c3", "C3", " c 3 ", "3,3", "3, 3", " 3 ,3"])
def test_c3_and_3_3_name_the_same_cell(text):
    game = Hex(5)
    assert game.parse_action(game.initial_state(), text) == 2 * 5 + 2


def test_letters_are_columns_and_numbers_rows():
    game = Hex(5)
    state = game.initial_state()
    assert game.parse_action(state, "e1") == 4 and game.parse_action(state, "1,5") == 4
    assert game.parse_action(state, "a5") == 20 and game.parse_action(state, "5,1") == 20
    for action in range(25):
        assert game.parse_action(state, game.action_to_text(state, action)) == action


@pytest.mark.parametrize("text, reason", [
    ("zz", "'zz' is not a cell"), ("", "'' is not a cell"), ("c", "'c' is not a cell"), ("3,", "not a cell"),
    ("f1", "Column f is off the board: columns run from a to e."),
    ("c6", "Row 6 is off the board: rows run from 1 to 5."), ("c0", "Row 0 is off the board"),
    ("9,9", "Row 9 is off the board"), ("2,6", "Column 6 is off the board: columns run from 1 to 5."),
    ("b2", "b2 is taken by X (player 1)."),
])
def test_bad_move_text_is_refused_with_the_reason(text, reason):
    game = Hex(5)
    state = game.next_state(game.initial_state(), 6)  # X on b2
    with pytest.raises(IllegalAction) as refused:
        game.parse_action(state, text)
    assert reason in str(refused.value)


# -- pictures ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_the_text_diamond_has_a_single_top_cell_and_shows_every_stone(size):
    game = Hex(size)
    rng = np.random.default_rng(size)
    state = game.initial_state()
    for _ in range(size * size // 2):
        state = game.next_state(state, rng.choice(np.flatnonzero(game.legal_mask(state))))
        if game.is_terminal(state):
            break
    lines = diamond_text(game, state).splitlines()
    diamond = lines[1:2 * size]
    assert len(diamond) == 2 * size - 1
    for k, line in enumerate(diamond):
        shown = [ch for ch in line if ch in ".XO"]
        expected = ["." if state.cells[r * size + k - r] == 0 else "XO"[state.cells[r * size + k - r] - 1]
                    for r in range(min(k, size - 1), max(0, k - size + 1) - 1, -1)]  # left to right
        assert shown == expected, (k, line)
    assert diamond[0].split() == ["1", shown_top(state), "a"]
    assert diamond[size - 1].split()[0] == str(size) and diamond[size - 1].split()[-1] == "abcdefgh"[size - 1]
    assert lines[0].endswith("to move.") or lines[0].endswith("has won.")


def shown_top(state):
    return ".XO"[state.cells[0]]


def test_text_and_figure_are_headless_and_mark_every_stone():
    import matplotlib
    from matplotlib.patches import Circle, Polygon

    game = Hex(4)
    state = game.initial_state()
    for action in (5, 0, 10):
        state = game.next_state(state, action)
    ax = plot_hex(state, last_action=10)
    patches = ax.patches
    assert sum(isinstance(p, Polygon) for p in patches) == 16
    assert sum(isinstance(p, Circle) and p.get_fill() for p in patches) == 3
    assert ax.get_title() == "Black (player 2) to move."
    labels = {t.get_text() for t in ax.texts}
    assert labels == {"1", "2", "3", "4", "a", "b", "c", "d"}
    matplotlib.pyplot.close(ax.figure)


def test_figure_shades_and_labels_a_distribution_on_the_empty_cells_only():
    import matplotlib

    game = Hex(3)
    state = game.next_state(game.initial_state(), 4)  # the centre is taken
    values = np.array([0.1, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.7])
    ax = plot_hex(state, values=values)
    numbers = sorted(t.get_text() for t in ax.texts if t.get_text() not in {"1", "2", "3", "a", "b", "c"})
    assert numbers == sorted([".10", ".00", ".00", ".20", ".00", ".00", ".00", ".70"])  # none on the stone
    faces = {tuple(np.round(p.get_facecolor(), 3)) for p in ax.patches if hasattr(p, "get_xy")}
    assert len(faces) == 5  # a shade for each of 0, 0.1, 0.2, 0.7, and the plain cell under the stone
    with pytest.raises(ValueError, match="one number per cell"):
        plot_hex(state, values=np.ones(4))
    matplotlib.pyplot.close("all")


def test_one_flag_switches_the_display_on_and_off():
    game = Hex(3)
    state = game.next_state(game.initial_state(), 4)
    shown = []
    HexDisplay(enabled=False, write=shown.append).show(game, state, "episode 1, move 1")
    assert shown == []
    HexDisplay(enabled=True, write=shown.append).show(game, state, "episode 1, move 1")
    assert shown == ["episode 1, move 1\n" + game.render(state)]
    figure_display = HexDisplay(enabled=True, mode="figure")
    figure_display.show(game, state, "tournament game 3")
    assert figure_display._axes.get_title() == "tournament game 3"
    with pytest.raises(ValueError, match="mode"):
        HexDisplay(mode="window")
