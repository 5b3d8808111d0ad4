"""Tak rules (``azcourse.tak.game``): the action space, roads, walls and capstones, stack moves, the
opening, the endings, komi and the move cap on hand-made positions; move generation and whole random
games checked against ``NaiveTak``, an independent implementation written below; PTN both ways; the
encoding; the pictures; the agents; terminal play through ``play.py tak``."""
from __future__ import annotations

import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.core.protocol import IllegalAction
from azcourse.tak.agents import EpsilonGreedyRollout, make_opponent
from azcourse.tak.display import plot_tak
from azcourse.core.square_symmetry import square_permutation
from azcourse.tak.game import DEFAULT_MOVE_CAP, ONGOING, Tak, TakState, stack_text

ROOT = Path(__file__).resolve().parents[1]


# -- an independent implementation ---------------------------------------------------------------------
class NaiveTak:
    """Tak again, sharing nothing with ``azcourse.tak``, written to be obviously right rather than
    fast. A position is a dict: ``board`` maps square names (``"a1"``) to lists of stone strings from
    bottom to top (``"WF"`` a White flat, ``"BS"`` a Black wall, ``"WC"`` a White capstone); ``left``
    maps ``"W"``/``"B"`` to ``[stones, capstones]``; ``turn`` counts plies; ``winner`` is None,
    ``"W"``, ``"B"`` or ``"draw"``; ``reason`` says why. A move is its PTN string, and the legal moves
    are found by trying every string that could name a move (every placement, and every count,
    direction and drop string from every square) on the position."""

    PIECES = {3: (10, 0), 4: (15, 0), 5: (21, 1), 6: (30, 1)}

    def __init__(self, n, komi=0, move_cap=None):
        self.n, self.komi = n, komi
        self.move_cap = move_cap or DEFAULT_MOVE_CAP[n]
        self.files = "abcdef"[:n]
        self.squares = [f + str(r) for r in range(1, n + 1) for f in self.files]
        self.placements = {square: [square, "S" + square, "C" + square] for square in self.squares}
        self.movements = {square: [] for square in self.squares}
        for square in self.squares:
            for count in range(1, n + 1):
                for cuts in itertools.product((False, True), repeat=count - 1):
                    drops, run = [], 1
                    for cut in cuts:
                        if cut:
                            drops.append(run)
                            run = 0
                        run += 1
                    drops.append(run)
                    for direction in "+-<>":
                        self.movements[square].append((str(count) if count > 1 else "") + square + direction
                                                      + ("".join(map(str, drops)) if len(drops) > 1 else ""))

    def start(self):
        stones, caps = self.PIECES[self.n]
        return {"board": {s: [] for s in self.squares}, "left": {"W": [stones, caps], "B": [stones, caps]},
                "turn": 0, "winner": None, "reason": None}

    def step(self, square, direction):
        file, rank = self.files.index(square[0]), int(square[1:])
        file += {">": 1, "<": -1}.get(direction, 0)
        rank += {"+": 1, "-": -1}.get(direction, 0)
        if 0 <= file < self.n and 1 <= rank <= self.n:
            return self.files[file] + str(rank)
        return None

    def play(self, pos, text):
        """The position after the move ``text``, or None if it is not a legal move."""
        moved = self.move(pos, text)
        if moved is None:
            return None
        new, left = moved
        me = "W" if pos["turn"] % 2 == 0 else "B"
        other = "B" if me == "W" else "W"
        after = {"board": new, "left": left, "turn": pos["turn"] + 1, "winner": None, "reason": None}
        for colour in (me, other):
            if self.road(new, colour):
                after["winner"], after["reason"] = colour, "road"
                return after
        full = all(new.values())
        if full or left["W"] == [0, 0] or left["B"] == [0, 0]:
            white = sum(1 for s in new.values() if s and s[-1] == "WF")
            black = sum(1 for s in new.values() if s and s[-1] == "BF") + self.komi
            after["winner"] = "W" if white > black else "B" if black > white else "draw"
            after["reason"] = "full board" if full else "last piece"
        elif after["turn"] >= self.move_cap:
            after["winner"], after["reason"] = "draw", "move cap"
        return after

    def move(self, pos, text):
        """``(board, reserves)`` after the move ``text``, or None if it is not a legal move."""
        if pos["winner"] is not None:
            return None
        me = "W" if pos["turn"] % 2 == 0 else "B"
        other = "B" if me == "W" else "W"
        board, left = pos["board"], pos["left"]
        where = [i for i, ch in enumerate(text) if ch in "+-<>"]
        if not where:
            piece, square = (text[0], text[1:]) if len(text) == 3 else ("F", text)
            if board[square]:
                return None
            if pos["turn"] < 2:
                if piece != "F":
                    return None
                owner = other
            else:
                owner = me
            slot = 1 if piece == "C" else 0
            if left[owner][slot] == 0:
                return None
            left = {c: list(v) for c, v in left.items()}
            left[owner][slot] -= 1
            new = {s: list(v) for s, v in board.items()}
            new[square] = [owner + piece]
        else:
            i = where[0]
            head, direction, tail = text[:i], text[i], text[i + 1:]
            square, count = head[-2:], int(head[:-2] or 1)
            drops = [int(d) for d in tail] if tail else [count]
            stack = board[square]
            if pos["turn"] < 2 or not stack or stack[-1][0] != me or count > self.n or count > len(stack):
                return None
            carried = stack[len(stack) - count:]
            new = {s: list(v) for s, v in board.items()}
            new[square] = stack[:len(stack) - count]
            current = square
            for k, drop in enumerate(drops):
                current = self.step(current, direction)
                if current is None:
                    return None
                target = new[current]
                if target and target[-1][1] == "C":
                    return None
                if target and target[-1][1] == "S":
                    if k == len(drops) - 1 and drop == 1 and carried[-1][1] == "C":
                        target[-1] = target[-1][0] + "F"
                    else:
                        return None
                target += carried[:drop]
                carried = carried[drop:]
        return new, left

    def road(self, board, colour):
        mine = {s for s, stack in board.items() if stack and stack[-1] in (colour + "F", colour + "C")}
        for starts, reached_goal in (([s for s in mine if s[0] == "a"], lambda s: s[0] == self.files[-1]),
                                     ([s for s in mine if s[1:] == "1"], lambda s: s[1:] == str(self.n))):
            seen, todo = set(starts), list(starts)
            while todo:
                s = todo.pop()
                if reached_goal(s):
                    return True
                for d in "+-<>":
                    t = self.step(s, d)
                    if t in mine and t not in seen:
                        seen.add(t)
                        todo.append(t)
        return False

    def legal(self, pos):
        """Every string that names a legal move: the placement strings of the empty squares and the
        stack-move strings of the stacks with the mover's stone on top, each tried."""
        me = "W" if pos["turn"] % 2 == 0 else "B"
        tried = [text for square, stack in pos["board"].items()
                 for text in (self.placements[square] if not stack else self.movements[square] if stack[-1][0] == me
                              else ())]
        return {text for text in tried if self.move(pos, text) is not None}

    def stacks(self, pos):
        """Each square in ``stack_text`` form, square ``a1`` first, rank by rank."""
        out = []
        for square in self.squares:
            stack = pos["board"][square]
            if not stack:
                out.append("x")
            else:
                top = stack[-1][1]
                out.append("".join("1" if s[0] == "W" else "2" for s in stack) + ("" if top == "F" else top))
        return out


# -- helpers ---------------------------------------------------------------------------------------------
def position(game, rows, ply=2, reserves=None):
    """A state from rows of cells, top rank first, cells split by spaces: ``x`` empty, else the
    colours bottom to top (``1`` White, ``2`` Black) and ``S``/``C`` for a wall/capstone on top.
    Reserves default to the pieces not on the board. White moves at even ``ply``."""
    n = game.size
    board = [()] * (n * n)
    used = [0, 0, 0, 0]
    for i, row in enumerate(rows):
        cells = row.split()
        assert len(cells) == n
        for file, cell in enumerate(cells):
            if cell == "x":
                continue
            kind = {"S": 1, "C": 2}.get(cell[-1], 0)
            codes = [int(c) - 1 for c in cell.rstrip("SC")]
            codes[-1] += 2 * kind
            for code in codes:
                used[2 * (code & 1) + (code >> 1 == 2)] += 1
            board[(n - 1 - i) * n + file] = tuple(codes)
    if reserves is None:
        reserves = (game.stones - used[0], game.capstones - used[1], game.stones - used[2], game.capstones - used[3])
    return TakState(tuple(board), tuple(reserves), ply, ONGOING, 0)


def texts(game, state):
    return {game.action_to_text(state, a) for a in game.legal_actions(state)}


def play(game, state, *moves):
    for move in moves:
        state = game.next_state(state, game.parse_action(state, move))
    return state


def cells(game, state):
    return [stack_text(stack) for stack in state.board]


# -- sizes and the action space ----------------------------------------------------------------------------
@pytest.mark.parametrize("size, actions, kinds", [(3, 126, 2), (4, 480, 2), (5, 1575, 3), (6, 4572, 3)])
def test_the_action_space_matches_the_reports_table_and_its_counting(size, actions, kinds):
    game = Tak(size)
    assert game.action_space_size == actions and game.kinds == kinds
    movements = 0  # squares x 4 directions x drop sequences (compositions of 1..n) that fit on the board
    for rank, file in itertools.product(range(size), repeat=2):
        for room in (size - 1 - rank, rank, size - 1 - file, file):
            movements += sum(math.comb(count - 1, parts - 1) for count in range(1, size + 1)
                             for parts in range(1, min(room, count) + 1))
    assert actions == size * size * kinds + movements
    names = [game.action_to_text(game.initial_state(), a) for a in range(actions)]
    assert len(set(names)) == actions  # one action per move
    assert game.legal_mask(game.initial_state()).sum() == size * size


@pytest.mark.parametrize("pieces, size", [((10, 0), 3), ((15, 0), 4), ((21, 1), 5), ((30, 1), 6)])
def test_pieces_per_size(pieces, size):
    game = Tak(size)
    assert (game.stones, game.capstones) == pieces
    assert game.initial_state().reserves == pieces * 2


@pytest.mark.parametrize("options", [{"size": 2}, {"size": 7}, {"size": 3.0}, {"size": "3"}, {"komi": -1},
                                     {"komi": "1"}, {"move_cap": 1}, {"move_cap": 10.0}])
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        Tak(**{"size": 3, **options})


# -- roads -----------------------------------------------------------------------------------------------
@pytest.mark.slow  # every road shape of 3x3 and 4x4: the whole suite only (tests/conftest.py)
@pytest.mark.parametrize("size", [3, 4])
def test_every_road_shape_agrees_with_the_naive_search(size):
    """Every set of squares holding White flats (2^9 and 2^16 of them): a road exactly when the naive
    search finds a path between opposite edges; Black, absent, has none."""
    game, naive = Tak(size), NaiveTak(size)
    roads = 0
    for bits in range(1 << size * size):
        board = tuple((0,) if bits >> s & 1 else () for s in range(size * size))
        state = TakState(board, (0, 0, 0, 0), 2, ONGOING, 0)
        expected = naive.road({name: ["WF"] if bits >> s & 1 else [] for s, name in enumerate(naive.squares)}, "W")
        assert game.has_road(state, 0) == expected, bin(bits)
        assert not game.has_road(state, 1)
        roads += expected
    assert roads > 0


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_random_tops_roads_agree_with_the_naive_search(size):
    """Random boards of flats, walls and capstones of both colours: walls never carry a road,
    capstones do."""
    game, naive = Tak(size), NaiveTak(size)
    rng = np.random.default_rng(size)
    letters = ("WF", "BF", "WS", "BS", "WC", "BC")
    for _ in range(1500):
        codes = rng.integers(-1, 6, size * size)
        codes[rng.random(size * size) < 0.4] = rng.choice([0, 1], 1)  # more flats of one colour
        board = tuple(() if c < 0 else (int(c),) for c in codes)
        named = {name: [] if c < 0 else [letters[c]] for name, c in zip(naive.squares, codes)}
        state = TakState(board, (0, 0, 0, 0), 2, ONGOING, 0)
        assert game.has_road(state, 0) == naive.road(named, "W")
        assert game.has_road(state, 1) == naive.road(named, "B")


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_straight_roads_on_every_rank_and_file_win_for_the_mover(size):
    game = Tak(size)
    empty = ["x"] * size
    for line in range(size):
        for horizontal in (True, False):
            rows = [list(empty) for _ in range(size)]
            for k in range(size):
                r, f = (size - 1 - line, k) if horizontal else (size - 1 - k, line)
                rows[r][f] = "1"
            last = (size - 1 - line, size - 1) if horizontal else (0, line)
            rows[last[0]][last[1]] = "x"
            state = position(game, [" ".join(r) for r in rows], ply=2 * size)
            assert not game.has_road(state, 0)
            name = "abcdef"[last[1]] + str(size - last[0])
            done = play(game, state, name)
            assert done.winner == 0 and game.end_reason(done) == "road" and list(game.returns(done)) == [1, -1]


def test_bent_roads_capstones_and_roads_over_stacks():
    game = Tak(5)
    snake = position(game, ["x x x x x",
                            "1 1 x 1 1",
                            "x 1 x 1 x",
                            "x 1 1 1 x",
                            "x x x x x"], ply=10)
    assert game.has_road(snake, 0) and not game.has_road(snake, 1)
    with_cap = position(game, ["x x 1 x x", "x x 1C x x", "x x 21 x x", "x x 1 x x", "x x 1 x x"], ply=10)
    assert game.has_road(with_cap, 0)  # a capstone is part of a road; a flat on top of a stack too
    walled = position(game, ["x x 1 x x", "x x 1S x x", "x x 1 x x", "x x 1 x x", "x x 1 x x"], ply=10)
    assert not game.has_road(walled, 0)
    under = position(game, ["x x 1 x x", "x x 12 x x", "x x 1 x x", "x x 1 x x", "x x 1 x x"], ply=10)
    assert not game.has_road(under, 0)  # only the top stone counts
    diagonal = position(game, ["1 x x x x", "x 1 x x x", "x x 1 x x", "x x x 1 x", "x x x x 1"], ply=10)
    assert not game.has_road(diagonal, 0)


def test_adjacent_edges_are_not_a_road():
    """The report described a road between two adjacent sides; a road joins opposite sides."""
    game = Tak(3)
    corner = position(game, ["x x x", "1 1 x", "x 1 x"], ply=4)  # touches the left and bottom edges only
    assert not game.has_road(corner, 0)
    assert not game.is_terminal(play(game, position(game, ["x x x", "1 x x", "x 1 x"], ply=4), "b2"))


def test_the_dragon_clause_the_mover_wins_when_a_move_makes_both_roads():
    game = Tak(3)
    state = position(game, ["2 2 21",
                            "1 1 x",
                            "x x x"], ply=6)
    done = play(game, state, "c3-")  # White's top stone goes down: c3 shows Black, c2 White
    assert game.has_road(done, 0) and game.has_road(done, 1)
    assert done.winner == 0 and game.end_reason(done) == "road"
    state = position(game, ["2 2 21", "x 1 x", "x x x"], ply=6)
    done = play(game, state, "c3-")  # only Black's road: the mover loses
    assert done.winner == 1 and game.end_reason(done) == "road"


# -- stack moves -------------------------------------------------------------------------------------------
def test_drops_leave_the_lowest_carried_stones_first_and_the_rest_stays():
    game = Tak(3)
    state = position(game, ["x x x", "x x x", "2121 x x"], ply=8)
    done = play(game, state, "3a1>12")
    assert cells(game, done)[:3] == ["2", "1", "21"]
    done = play(game, state, "2a1+11")
    assert [cells(game, done)[s] for s in (0, 3, 6)] == ["21", "2", "1"]
    done = play(game, state, "a1>")
    assert cells(game, done)[:2] == ["212", "1"]


def test_the_carry_limit_is_the_board_size():
    game = Tak(3)
    state = position(game, ["x x x", "x x x", "12121 x x"], ply=8)
    moves = {t for t in texts(game, state) if t[-1] in "+-<>" or any(d in t for d in "+-<>")}
    expected = {f"{c if c > 1 else ''}a1{d}{drops if len(drops) > 1 else ''}"
                for d in "+>" for c in (1, 2, 3) for drops in {"1": ["1"], "2": ["2", "11"], "3": ["3", "12", "21"]}[str(c)]}
    assert moves == expected  # 2 directions x (1 + 2 + 3) drop sequences, never 4 or 5 stones
    with pytest.raises(IllegalAction, match="carry at most 3 stones"):
        game.parse_action(state, "4a1>22")
    with pytest.raises(IllegalAction, match="a1 holds only 1 stone"):
        game.parse_action(position(game, ["x x x", "x x x", "1 x x"], ply=8), "2a1>")
    with pytest.raises(IllegalAction, match="runs off the board"):
        game.parse_action(state, "3a1>111")
    with pytest.raises(IllegalAction, match="runs off the board after a1"):
        game.parse_action(state, "a1<")
    with pytest.raises(IllegalAction, match="add up to 2, not to the 3 stones"):
        game.parse_action(state, "3a1>11")
    with pytest.raises(IllegalAction, match="a drop of 0"):
        game.parse_action(state, "3a1>30")


def test_walls_and_capstones_block_moves():
    game = Tak(5)
    state = position(game, ["x x x x x",
                            "x x x x x",
                            "2S x x x x",
                            "x x x x x",
                            "111 x 2C x x"], ply=10)
    moves = texts(game, state)
    assert {"a1+", "2a1+", "3a1+", "a1>", "2a1>", "3a1>"} <= moves
    assert not {"2a1+11", "3a1+12", "2a1>11", "3a1>111"} & moves
    with pytest.raises(IllegalAction, match="c1 holds a capstone: nothing moves onto a capstone"):
        game.parse_action(state, "2a1>11")
    with pytest.raises(IllegalAction, match="a3 holds a wall: only a capstone dropped alone"):
        game.parse_action(state, "2a1+11")
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x x x x x", "111 1S x x x"], ply=10)
    with pytest.raises(IllegalAction, match="b1 holds a wall: only a capstone dropped alone"):
        game.parse_action(state, "a1>")
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x x x x x", "1S 1S x x x"], ply=10)
    with pytest.raises(IllegalAction, match="b1 holds a wall"):
        game.parse_action(state, "a1>")  # a wall does not flatten a wall


def test_a_capstone_alone_flattens_a_wall_as_its_last_drop_only():
    game = Tak(5)
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x x x x x", "21C 2S 1S x x"], ply=10)
    moves = texts(game, state)
    assert "a1>" in moves and "2a1>" not in moves and "2a1>11" not in moves  # 2 stones onto b1's wall: no
    done = play(game, state, "a1>")
    assert cells(game, done)[:2] == ["2", "21C"]  # Black's wall became a flat under the capstone
    assert play(game, state, "a1>*") == done  # the optional flattening mark
    with pytest.raises(IllegalAction, match="flattens none"):
        game.parse_action(position(game, ["x x x x x"] * 4 + ["1C x x x x"], ply=10), "a1>*")
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x x x x x", "121C x 2S x x"], ply=10)
    assert "3a1>21" in texts(game, state) and "3a1>12" not in texts(game, state)
    done = play(game, state, "3a1>21")
    assert cells(game, done)[:3] == ["x", "12", "21C"]
    with pytest.raises(IllegalAction, match="c1 holds a wall"):
        game.parse_action(state, "3a1>12")  # the capstone would land with another stone
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x x x x x", "1C 2C x x x"], ply=10)
    assert "a1>" not in texts(game, state)  # a capstone is never flattened


def test_only_stacks_the_mover_controls_move():
    game = Tak(3)
    state = position(game, ["x x x", "x x x", "12 21 x"], ply=8)
    moves = texts(game, state)
    assert "b1+" in moves and not any(t.startswith(("a1", "2a1")) and len(t) > 2 for t in moves)
    with pytest.raises(IllegalAction, match="The stack on a1 is Black's"):
        game.parse_action(state, "a1+")
    with pytest.raises(IllegalAction, match="There is no stack on c3"):
        game.parse_action(state, "c3-")


# -- the opening ------------------------------------------------------------------------------------------
def test_the_first_two_plies_place_the_opponents_flat():
    game = Tak(5)
    state = game.initial_state()
    assert texts(game, state) == {f"{f}{r}" for f in "abcde" for r in range(1, 6)}
    for refused, reason in (("Sa1", "first turn"), ("Ca1", "first turn")):
        with pytest.raises(IllegalAction, match=reason):
            game.parse_action(state, refused)
    one = play(game, state, "a1")
    assert one.board[0] == (1,) and one.reserves == (21, 1, 20, 1)  # a Black flat from Black's reserve
    assert texts(game, one) == {f"{f}{r}" for f in "abcde" for r in range(1, 6)} - {"a1"}
    with pytest.raises(IllegalAction, match="No stack moves on the first turns"):
        game.parse_action(one, "a1>")  # Black would control a1, but not yet
    two = play(game, one, "e5")
    assert two.board[24] == (0,) and two.reserves == (20, 1, 20, 1)
    moves = texts(game, two)
    assert {"Sb2", "Cb2", "b2", "e5-", "e5<"} <= moves and "a1>" not in moves
    assert game.encode(one)[game.encoding_shape[0] - 3].all() and not game.encode(two)[game.encoding_shape[0] - 3].any()


# -- endings ------------------------------------------------------------------------------------------------
def test_a_full_board_is_decided_on_flats_walls_and_capstones_not_counting():
    game = Tak(3)
    state = position(game, ["1 2 1S",
                            "2 1S 2",
                            "2S 1 x"], ply=8)
    done = play(game, state, "c1")  # White fills the board: flats 3 to 3
    assert game.end_reason(done) == "full board" and done.winner == 2 and list(game.returns(done)) == [0, 0]
    done = play(game, state, "Sc1")  # a wall does not count: 2 to 3
    assert game.end_reason(done) == "full board" and done.winner == 1
    assert list(game.scores(done)) == [2, 3]


def test_a_road_on_the_last_square_is_a_road_not_a_flat_count():
    game = Tak(3)
    state = position(game, ["2 2 1", "2S 1 1", "2 2 x"], ply=8)
    done = play(game, state, "c1")
    assert game.end_reason(done) == "road" and done.winner == 0


def test_the_last_piece_ends_the_game_capstones_included():
    game = Tak(3)
    state = position(game, ["x x x", "x 1 2", "x x x"], ply=6, reserves=(1, 0, 5, 0))
    done = play(game, state, "a3")
    assert game.end_reason(done) == "last piece" and done.winner == 0 and done.reserves == (0, 0, 5, 0)
    assert not game.legal_mask(done).any() and game.is_terminal(done)
    big = Tak(5)
    state = position(big, ["x x x x x"] * 4 + ["x 1 2 2 x"], ply=20, reserves=(0, 1, 3, 1))
    assert texts(big, state) >= {"Ca2"} and "a2" not in texts(big, state)
    with pytest.raises(IllegalAction, match="no stones left: place your capstone"):
        big.parse_action(state, "a2")
    done = play(big, state, "Ca2")
    assert big.end_reason(done) == "last piece" and done.winner == 1  # 1 flat to 2: the capstone is no flat
    state = position(big, ["x x x x x"] * 4 + ["x 1 2 2 x"], ply=20, reserves=(3, 0, 3, 1))
    with pytest.raises(IllegalAction, match="no capstone left"):
        big.parse_action(state, "Ca2")
    with pytest.raises(IllegalAction, match="no capstones on a 3x3 board"):
        game.parse_action(game.next_state(game.next_state(game.initial_state(), 0), 2), "Cb2")


@pytest.mark.parametrize("komi, winner", [(0, 0), (1, 2), (1.5, 1), (0.5, 0)])
def test_komi_is_added_to_blacks_flats(komi, winner):
    game = Tak(3, komi=komi)
    state = position(game, ["1 2 1", "2 1 2", "1S 1 x"], ply=8)
    done = play(game, state, "Sc1")  # White 4 flats, Black 3
    assert game.end_reason(done) == "full board" and done.winner == winner
    assert list(game.scores(done)) == [4, 3 + komi]
    black = game.encode(position(game, ["x x x", "x 1 x", "x x 2"], ply=3))
    white = game.encode(position(game, ["x x x", "x 1 x", "x x 2"], ply=4))
    assert black[-1].max() == pytest.approx(komi / 9) and white[-1].min() == pytest.approx(-komi / 9)


def test_the_move_cap_ends_a_game_in_a_draw_unless_the_last_move_decides_it():
    game = Tak(3, move_cap=8)
    state = game.initial_state()
    for move in ("a1", "c3", "a2", "c2", "a2-", "c2+", "a1+"):
        state = play(game, state, move)
        assert not game.is_terminal(state)
    done = play(game, state, "c3-")
    assert state.ply == 7 and done.ply == 8
    assert game.end_reason(done) == "move cap" and done.winner == 2 and list(game.returns(done)) == [0, 0]
    assert game.legal_actions(done) == [] and game.end_reason(state) is None
    state = position(game, ["x x x", "2 2 x", "x x 1"], ply=7)
    assert game.end_reason(play(game, state, "c2")) == "road"  # on the capped ply: the road counts
    assert game.end_reason(play(game, state, "a3")) == "move cap"
    assert Tak(3).move_cap == 100 and Tak(6).move_cap == 600


def test_games_over_refuse_every_move():
    game = Tak(3)
    done = play(game, position(game, ["x x x", "1 1 x", "x x x"], ply=6), "c2")
    with pytest.raises(IllegalAction, match="The game is over"):
        game.parse_action(done, "a1")
    with pytest.raises(ValueError, match="game is over"):
        game.next_state(done, 0)


# -- move generation against the naive implementation ----------------------------------------------------------
def perft(game, state, depth):
    if depth == 0 or game.is_terminal(state):
        return 1
    return sum(perft(game, game.next_state(state, a), depth - 1) for a in game.legal_actions(state))


def naive_perft(naive, pos, depth):
    if depth == 0 or pos["winner"] is not None:
        return 1
    return sum(naive_perft(naive, naive.play(pos, text), depth - 1) for text in naive.legal(pos))


@pytest.mark.parametrize("size, counts", [(3, [9, 72, 1200, 17792]), (4, [16, 240, 7440])])
def test_move_counts_from_the_start_agree_with_the_naive_implementation(size, counts):
    game, naive = Tak(size), NaiveTak(size)
    for depth, count in enumerate(counts, start=1):
        assert perft(game, game.initial_state(), depth) == count
        assert naive_perft(naive, naive.start(), depth) == count


def biased_choice(moves, rng, stack_moves):
    """A random move; with ``stack_moves``, a stack move (PTN text with a direction) 80% of the time
    when there is one, so that tall stacks, long drops and flattenings happen."""
    moves = sorted(moves)
    movers = [m for m in moves if any(d in m for d in "+-<>")]
    if stack_moves and movers and rng.random() < 0.8:
        return movers[int(rng.integers(len(movers)))]
    return moves[int(rng.integers(len(moves)))]


@pytest.mark.parametrize("size, games, move_cap", [(3, 120, None), (4, 16, None), (5, 4, 150), (6, 2, 100)])
def test_random_games_agree_with_the_naive_implementation(size, games, move_cap):
    """Both implementations play the same random games (half of them stack-move heavy) and agree on
    the legal moves, the stacks, the reserves, the end and why at every ply."""
    game, naive = Tak(size, komi=0.5 * (size % 2), move_cap=move_cap), NaiveTak(size, 0.5 * (size % 2), move_cap)
    rng = np.random.default_rng(size)
    reasons, flattened, tallest = set(), 0, 0
    for index in range(games):
        state, pos = game.initial_state(), naive.start()
        while True:
            legal = naive.legal(pos)
            assert texts(game, state) == legal, (cells(game, state), state.ply)
            assert cells(game, state) == naive.stacks(pos)
            assert state.reserves == (*pos["left"]["W"], *pos["left"]["B"])
            assert game.is_terminal(state) == (pos["winner"] is not None)
            if game.is_terminal(state):
                assert game.end_reason(state) == pos["reason"]
                assert state.winner == {"W": 0, "B": 1, "draw": 2}[pos["winner"]]
                reasons.add(pos["reason"])
                break
            move = biased_choice(legal, rng, stack_moves=index % 2 == 1)
            walls = sum(c.endswith("S") for c in cells(game, state))
            state, pos = game.next_state(state, game.parse_action(state, move)), naive.play(pos, move)
            flattened += sum(c.endswith("S") for c in cells(game, state)) < walls and "S" not in move
            tallest = max(tallest, max(len(c.rstrip("SC")) for c in cells(game, state)))
    assert reasons >= ({"road", "full board", "last piece"} if size < 5 else set()) and reasons
    assert tallest > 3  # taller than the 3x3 carry limit
    if size == 5:
        assert flattened > 0


# -- the mask, next_state and PTN -----------------------------------------------------------------------------
def random_states(game, count, seed, stack_moves=True):
    """``count`` non-terminal states from random games (stack-move heavy)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(found) < count:
            found.append(state)
            names = {game.action_to_text(state, a): a for a in game.legal_actions(state)}
            state = game.next_state(state, names[biased_choice(names, rng, stack_moves)])
    return found


@pytest.mark.parametrize("size", [3, 4, 5])
def test_the_mask_is_exactly_the_actions_next_state_accepts(size):
    game = Tak(size)
    for state in random_states(game, 60, seed=size):
        mask = game.legal_mask(state)
        accepted = np.zeros_like(mask)
        for action in range(game.action_space_size):
            try:
                game.next_state(state, action)
                accepted[action] = True
            except ValueError as refused:
                assert str(refused).startswith("illegal action")
        assert np.array_equal(mask, accepted)
        assert len(set(game.legal_actions(state))) == mask.sum()


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_ptn_round_trip_over_every_legal_move(size):
    game = Tak(size)
    for state in random_states(game, 80, seed=10 + size):
        for action in game.legal_actions(state):
            text = game.action_to_text(state, action)
            assert game.parse_action(state, text) == action
            assert game.parse_action(state, f" {text}'!") == action  # spaces and PTN marks


def test_other_spellings_of_the_same_move():
    game = Tak(3)
    state = position(game, ["x x x", "x x x", "121 x x"], ply=8)
    assert game.parse_action(state, "Fb2") == game.parse_action(state, "b2") == game.parse_action(state, "fb2")
    assert game.parse_action(state, "sb2") == game.parse_action(state, "Sb2") == game.parse_action(state, "S B 2")
    assert game.parse_action(state, "1a1>1") == game.parse_action(state, "a1>")
    assert game.parse_action(state, "3a1>3") == game.parse_action(state, "3a1>")
    assert game.action_to_text(state, game.parse_action(state, "2A1+11")) == "2a1+11"


GARBAGE = ["", "??", "0", "a", "a0", "a01", "a1>>", "3a1>1 2 x", "x1", "a1=", "Xa1", "FSa1", "3a1", "a1+0",
           "0a1>", "00a1>", "9" * 5000, "a" + "1" * 5000, "3a1>" + "1" * 5000, "1" * 39 + "a1>",
           "a\x00 1", "\x1b[2Ja1", "a1\u200b", "ａ１", "a١", "🙂", "a1>\u0301", "\t\n", "C" * 41,
           "a1" + "'" * 39, "d1", "a4", "z9", "Ca1*", "a1*>"]


@pytest.mark.parametrize("size", [3, 5])
def test_any_text_is_refused_with_a_sentence_and_nothing_else(size):
    game = Tak(size)
    rng = np.random.default_rng(0)
    states = random_states(game, 20, seed=size)
    alphabet = list("abcdefgh012345679+-<>*'!?SCFscf xé\x00\x7f\u202e")
    corpus = GARBAGE + ["".join(rng.choice(alphabet, rng.integers(1, 12))) for _ in range(600)]
    for state in states:
        legal = set(game.legal_actions(state))
        for text in corpus:
            try:
                action = game.parse_action(state, text)
            except IllegalAction as refused:
                message = str(refused)
                assert message.endswith(".") and len(message) < 300 and "\x00" not in message
            else:
                assert action in legal
    for thing in (None, 5, b"a1", ["a1"]):
        with pytest.raises(IllegalAction, match="A move is text"):
            game.parse_action(states[0], thing)
    with pytest.raises(IllegalAction, match="too long"):
        game.parse_action(states[0], "a1" * 3000)


def test_refusals_leave_the_state_unchanged():
    game = Tak(3)
    state = position(game, ["x x x", "x 2S x", "121 x x"], ply=8)
    before = (state, cells(game, state), game.legal_mask(state).copy())
    for text in ("b2", "4a1>", "a1<", "3a1>111", "b2-", "Cc3", "?"):
        with pytest.raises(IllegalAction):
            game.parse_action(state, text)
    with pytest.raises(ValueError):
        game.next_state(state, game.action_space_size)
    assert (state, cells(game, state)) == before[:2] and np.array_equal(game.legal_mask(state), before[2])


# -- the encoding ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [3, 5])
def test_the_encoding_holds_every_stack_from_the_movers_view(size):
    """The stack planes give back every stack exactly (colour by colour, from the top down to the
    bottom), the top planes its wall or capstone, the constant planes the reserves."""
    game = Tak(size)
    channels = 2 * game.depth + 4 + (4 if game.capstones else 2) + 3
    assert game.encoding_shape == (channels, size, size)
    assert game.depth == 2 * (game.stones + game.capstones)
    for state in random_states(game, 150, seed=size):
        x = game.encode(state)
        assert x.dtype == np.float32 and x.shape == game.encoding_shape
        planes = x.reshape(channels, size * size)
        mover = state.ply & 1
        for square, stack in enumerate(state.board):
            colours = []
            for k in range(game.depth):
                own, other = planes[2 * k, square], planes[2 * k + 1, square]
                assert own + other <= 1
                if own + other == 0:
                    assert not planes[2 * k + 2:2 * game.depth:, square].any()
                    break
                colours.append(mover if own else 1 - mover)
            assert colours == [code & 1 for code in reversed(stack)]
            top = planes[2 * game.depth:2 * game.depth + 4, square]
            kind = stack[-1] >> 1 if stack else 0
            expected = np.zeros(4)
            if kind:
                expected[2 * (kind - 1) + ((stack[-1] & 1) != mover)] = 1
            assert np.array_equal(top, expected)
        c = 2 * game.depth + 4
        r = state.reserves
        assert planes[c, 0] == pytest.approx(r[2 * mover] / game.stones)
        assert planes[c + 1, 0] == pytest.approx(r[2 - 2 * mover] / game.stones)
        assert planes[-2, 0] == pytest.approx(state.ply / game.move_cap)
        assert all(len(set(p)) == 1 for p in planes[c:])  # constant planes


def transformed(game, state, g):
    """``state`` with every stack moved to its square's image under symmetry ``g`` (written from
    ``square_permutation``, independently of the action table the game builds)."""
    image = square_permutation(game.size, g)
    board = [None] * game.size ** 2
    for square, stack in enumerate(state.board):
        board[image[square]] = stack
    return state._replace(board=tuple(board))


@pytest.mark.parametrize("size", [3, 4, 5])
def test_the_eight_symmetries_commute_with_the_rules(size):
    """For every symmetry: the image of the encoding is the encoding of the image position, the
    legal moves map onto the image's legal moves, and playing a move then transforming gives the
    same position as transforming then playing the move's image (roads, walls, drops included)."""
    game = Tak(size)
    rng, distinct = np.random.default_rng(size), []
    for state in random_states(game, 40, seed=size):
        x, mask = game.encode(state), game.legal_mask(state).astype(np.float32)
        images = game.symmetries(x, mask)
        assert len(images) == 8 and np.array_equal(images[0][0], x) and np.array_equal(images[0][1], mask)
        distinct.append(len({image.tobytes() for image, _ in images}))
        for g, (image_x, image_mask) in enumerate(images):
            other = transformed(game, state, g)
            assert image_x.dtype == np.float32 and np.array_equal(image_x, game.encode(other))
            assert np.array_equal(image_mask, game.legal_mask(other).astype(np.float32))
            action = int(rng.choice(game.legal_actions(state)))
            policy = np.zeros(game.action_space_size)
            policy[action] = 1.0
            moved = int(np.argmax(game.symmetries(x, policy)[g][1]))
            assert transformed(game, game.next_state(state, action), g) == game.next_state(other, moved), \
                (g, game.action_to_text(state, action), game.action_to_text(other, moved))
    assert distinct[0] == 1 and max(distinct) == 8  # the empty board is symmetric, later positions are not


@pytest.mark.parametrize("size", [3, 5])
def test_the_symmetries_as_index_maps_are_the_symmetries(size):
    """``symmetry_maps`` (for ``sample_symmetries``): gathering a position's encoding and a policy through map
    ``g`` gives ``symmetries``' image ``g``, for every ``g``; built once."""
    game = Tak(size)
    x_maps, pi_maps = game.symmetry_maps()
    assert x_maps.shape == (8, int(np.prod(game.encoding_shape))) and pi_maps.shape == (8, game.action_space_size)
    assert game.symmetry_maps()[0] is x_maps and (x_maps[0] == np.arange(x_maps.shape[1])).all()
    rng = np.random.default_rng(size)
    for state in random_states(game, 6, seed=size + 10):
        x, policy = game.encode(state), rng.random(game.action_space_size)
        for g, (image_x, image_pi) in enumerate(game.symmetries(x, policy)):
            np.testing.assert_array_equal(x.reshape(-1)[x_maps[g]], image_x.reshape(-1))
            np.testing.assert_array_equal(policy[pi_maps[g]], image_pi)


def test_a_stack_move_turns_with_the_board():
    """Symmetry g = 2 sends (rank r, file c) to (n-1-c, r): on 3x3 a1 (0, 0) goes to a3 (2, 0) and
    the step up (+1, 0) becomes the step right (0, +1): a1+ becomes a3>."""
    game = Tak(3)
    state = play(game, game.initial_state(), "c3", "a1")
    action = game.parse_action(state, "a1+")
    policy = np.zeros(game.action_space_size)
    policy[action] = 1.0
    turned = transformed(game, state, 2)
    assert game.action_to_text(turned, int(np.argmax(game.symmetries(game.encode(state), policy)[2][1]))) == "a3>"


def test_a_stack_is_encoded_top_down_and_flips_with_the_mover():
    game = Tak(3)
    state = position(game, ["x x x", "x x x", "1122S x x"], ply=8)
    x = game.encode(state).reshape(game.encoding_shape[0], 9)
    assert list(x[0:10:2, 0]) == [0, 0, 1, 1, 0] and list(x[1:10:2, 0]) == [1, 1, 0, 0, 0]
    assert x[2 * game.depth + 1, 0] == 1 and x[2 * game.depth, 0] == 0  # the opponent's wall on top
    flipped = game.encode(state._replace(ply=9)).reshape(game.encoding_shape[0], 9)
    assert list(flipped[0:10:2, 0]) == [1, 1, 0, 0, 0] and flipped[2 * game.depth, 0] == 1


# -- text and pictures -------------------------------------------------------------------------------------------
def test_render_shows_stacks_bottom_to_top_reserves_and_the_mover():
    game = Tak(5)
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x 2S x x x", "121C x 2 x x"], ply=10)
    text = game.render(state)
    lines = text.splitlines()
    assert lines[0].startswith("White (player 1) to move, ply 11")
    assert lines[5].split() == ["1", "121C", "x", "2", "x", "x"] and lines[4].split()[2] == "2S"
    assert lines[6].split() == list("abcde")
    assert "White (player 1): 20 stones, 0 capstones left." in text
    assert "Black (player 2): 18 stones, 1 capstone left." in text
    done = play(game, position(game, ["x x x x x"] * 4 + ["1 1 1 1 x"], ply=8), "e1")
    assert game.render(done).splitlines()[0] == "White (player 1) wins with a road."
    first = game.render(game.initial_state()).splitlines()[0]
    assert first.endswith("Opening: place one of Black's flats.")


def test_the_figure_draws_piles_headless():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = Tak(5)
    state = position(game, ["x x x x x", "x x x x x", "x x x x x", "x 2S x x x", "2121212121C x 2 x x"], ply=10)
    ax = plot_tak(game, state, last_action=game.parse_action(state, "5a1>23"))
    assert len(ax.patches) == 25 + 7 + 1 + 1  # squares, the top 7 stones of a1, b2's wall, c1's flat
    assert "10" in [t.get_text() for t in ax.texts]  # a1's height, taller than the pile shown
    assert ax.get_title().startswith("White (player 1) to move")
    squares = [p for p in ax.patches if getattr(p, "get_width", lambda: 0)() == 1]
    assert len(squares) == 25
    shaded = [p for p in squares if p.get_facecolor()[:3] != squares[-1].get_facecolor()[:3]]
    assert len(shaded) == 3  # a1, b1, c1: where the move starts and drops
    plt.close("all")


def test_every_stone_stands_out_from_every_square():
    """WCAG non-text contrast (3:1) between each player's stones and both square colours (White's cream on light
    tan had 1.4:1)."""
    from matplotlib.colors import to_rgb

    from azcourse.tak.display import COLOURS, LAST_COLOUR, SQUARE_COLOUR

    def luminance(colour):
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    def contrast(a, b):
        high, low = sorted((luminance(a), luminance(b)), reverse=True)
        return (high + 0.05) / (low + 0.05)

    for square in (SQUARE_COLOUR, LAST_COLOUR):
        for fill in COLOURS:
            assert contrast(fill, square) >= 3, (fill, square, contrast(fill, square))


# -- agents and terminal play ----------------------------------------------------------------------------------------
def test_the_greedy_rollout_takes_a_win_else_the_best_flat_lead():
    game = Tak(3)
    rng = np.random.default_rng(0)
    policy = EpsilonGreedyRollout(epsilon=0.0)
    state = position(game, ["x x x", "1 1 x", "x 2 2"], ply=6)
    assert game.action_to_text(state, policy(game, state, rng)) == "c2"
    state = position(game, ["x 2 x", "1S x x", "x x 2"], ply=6)
    picks = {game.action_to_text(state, policy(game, state, rng)) for _ in range(40)}
    assert picks == {"a1", "a3", "b1", "b2", "c2", "c3"}  # the flats, never a wall or a stack move
    with pytest.raises(ValueError):
        EpsilonGreedyRollout(1.5)


@pytest.mark.parametrize("opponent", ["uct", "mcts"])
def test_search_agents_take_a_road_in_one_and_beat_random(opponent):
    from azcourse.core.arena import play_match

    game = Tak(3)
    agent = make_opponent(opponent, game, np.random.default_rng(0), simulations=200)
    state = position(game, ["2 2 x", "1 1 x", "x x x"], ply=6)  # White wins on c2; Black would on c3
    assert game.action_to_text(state, agent.choose(state)) == "c2"
    summary = play_match(lambda: Tak(3), lambda rng: make_opponent(opponent, Tak(3), rng, 100),
                         lambda rng: make_opponent("random", Tak(3), rng), games=6, seed=3, progress=False)
    assert summary.wins >= 5, summary.text()
    with pytest.raises(ValueError, match="unknown Tak opponent"):
        make_opponent("alphazero", game, np.random.default_rng(0))


def run_cli(stdin, *args):
    return subprocess.run([sys.executable, str(ROOT / "play.py"), "tak", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_play_py_tak_refuses_with_reasons_and_keeps_the_board():
    proc = run_cli("a1\nSa1\nzz\n4a1>\nboard\nquit\n", "--opponent", "random", "--seed", "4")
    out = proc.stdout
    assert proc.returncode == 0 and proc.stderr == ""
    assert "You play a1." in out and out.count("random plays ") == 1
    refusals = [line for line in out.splitlines() if line.startswith("Refused")]
    assert refusals == ["Refused: a1 is occupied: place only on an empty square.",
                        "Refused: 'zz' is not a move in Portable Tak Notation: place with a1 (flat), Sa1 (wall) or "
                        "Ca1 (capstone); move a stack with e.g. a1> or 3a1>12 (count, square, direction + - > <, drops).",
                        "Refused: You can carry at most 3 stones on a 3x3 board."]
    before = out.split("Your move: Sa1", 1)[0].rsplit("random plays ", 1)[1].split("\n", 1)[1]
    after = out.split("Your move: board\n", 1)[1].split("Your move: quit", 1)[0]
    assert after == before  # the same position: refusals changed nothing
    assert before.splitlines()[0] == "White (player 1) to move, ply 3 (draw at 100)."
    assert out.rstrip().endswith("You left the game.")


def test_play_py_tak_options():
    proc = run_cli("", "--size", "7")
    assert proc.returncode == 2 and "must be from 3 to 6, got 7" in proc.stderr
    proc = run_cli("", "--help")
    assert proc.returncode == 0
    assert "--opponent {random,uct,mcts,alphatak,classical:2,classical:3,classical:4}" in proc.stdout
    proc = run_cli("", "--second", "--opponent", "uct", "--simulations", "30", "--seed", "1")
    assert proc.returncode == 0 and proc.stdout.splitlines()[0].startswith("You play Black (player 2) against uct.")
    assert proc.stdout.splitlines()[2].startswith("uct plays ") and "End of input." in proc.stdout


@pytest.mark.slow  # three Pythons; on an empty numba cache the 5x5 game compiles the compiled search (~30 CPU-s)
def test_play_py_alphatak_plays_3x3_4x4_and_5x5_and_names_the_missing_6x6_network():
    for size in ("3", "4", "5"):
        proc = run_cli("", "--size", size, "--opponent", "alphatak", "--simulations", "50", "--second", "--seed", "2")
        lines = proc.stdout.splitlines()
        assert proc.returncode == 0 and lines[0].startswith("You play Black (player 2) against alphatak."), proc.stderr
        assert lines[2].startswith("alphatak plays ") and "End of input." in proc.stdout
    proc = run_cli("", "--size", "6", "--opponent", "alphatak")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("play.py tak: no trained tak6 network is shipped (ckpts/tak6/ is missing), so the network "
                           "players cannot play\n")


@pytest.mark.parametrize("human", [0, 1])
def test_whole_terminal_games_end_with_a_result(human):
    """A person who types the greedy rollout's moves plays the report's MCTS to the end."""
    from azcourse.core.terminal import TerminalMatch
    from azcourse.tak.game import PLAYER_NAMES

    game, lines, states = Tak(3), [], []
    greedy, rng = EpsilonGreedyRollout(0.3), np.random.default_rng(human)
    match = TerminalMatch(game, make_opponent("mcts", game, np.random.default_rng(5), 100), human, "help",
                          PLAYER_NAMES, rng, read=lambda prompt: game.action_to_text(states[-1], greedy(game, states[-1], rng)),
                          write=lines.append)
    ask = match.ask
    match.ask = lambda state: (states.append(state), ask(state))[1]
    assert match.run() == 0
    assert lines[-1] in ("You win!", "mcts wins.", "Draw.")
    assert lines[-2].splitlines()[0].startswith(("White (player 1) wins", "Black (player 2) wins", "Draw"))
