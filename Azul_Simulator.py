"""Two-player Azul engine: exact rules, a flat numpy state, and fast enough for tree search.

The rules are those of ``AZUL_RULES.md`` (the 2-player rulebook as a specification). Item numbers in
comments ("rule 12") refer to that page.

State
-----
A position is a flat ``np.int16`` vector of length ``STATE_DIM`` (160), the network input. It is
*canonical*: the player to move owns the first player section, so callers never flip by hand.
``AzulState.decode(board)`` gives a structured, documented view (see ``AzulState`` for the layout);
visuals, agents and tests use it instead of raw offsets.

Actions
-------
``ACTION_DIM = 181``: 180 takes and ``NOOP``. Take ``a`` = ``(source * 5 + colour) * 6 + destination``
with source 0 = centre (``C``), 1-5 = factories; colour 0-4 = B, Y, R, D (black), W; destination
0-4 = pattern lines 1-5, 5 = floor (``F``). Its move code is those three letters, e.g. ``5B2`` (all
Blue from factory 5 into pattern line 2) or ``CWF`` (all White from the centre to the floor).
``NOOP`` (index 180) is the chance step that ends a round: wall-tiling, then refilling the factories
with the caller's RNG. It is the only legal action exactly when a round's offer is exhausted and the
game is not over, and never legal otherwise.

Turn contract
-------------
``get_next_state(board, action, rng)`` is pure (it never mutates ``board``) and returns the board
seen from the player who moves next. Turns alternate within a round, but the holder of the
first-player marker starts the next round, so the same player may move twice in a row across a round
boundary. When a round's offer runs out, the returned board is already seen from the next round's
starter, who is the player "to move" at the ``NOOP`` and after it. ``current_seat(board)`` gives the
absolute seat (0 or 1) of the player to move: a generic search compares it between parent and child
to know whether the player changed (and so whether to negate a value), and a play loop uses it to
know whose turn it is. ``get_reward(board)`` is from the viewpoint of the board's player.

Randomness
----------
Only ``init_board`` and ``NOOP`` draw tiles, from the ``numpy.random.Generator`` the caller passes.
The state stores bag *counts*, never an order, so a search cannot see future factories (rule 17).
"""
from __future__ import annotations

import dataclasses
import enum

import numba
import numpy as np

# ----------------------------------------------------------------------------------------------
# Dimensions and codes
# ----------------------------------------------------------------------------------------------
N_COLOURS = 5
N_FACTORIES = 5
TILES_PER_FACTORY = 4
TILES_PER_COLOUR = 20
N_SOURCES = 1 + N_FACTORIES  # centre, then factories 1-5
N_DESTINATIONS = 6  # pattern lines 1-5, then the floor
FLOOR = 5  # destination index of the floor
N_TAKES = N_SOURCES * N_COLOURS * N_DESTINATIONS  # 180
NOOP = N_TAKES  # 180
ACTION_DIM = N_TAKES + 1  # 181
FLOOR_SPACES = 7
FLOOR_PENALTIES = np.array([-1, -1, -2, -2, -2, -3, -3], dtype=np.int64)  # rule 13
MAX_ROUNDS = 50  # rule 21: random play lasts 6.6 rounds on average (13 at most in 2,000 games)

SOURCE_CODES = "C12345"
COLOUR_CODES = "BYRDW"
DESTINATION_CODES = "12345F"
COLOUR_NAMES = ("Blue", "Yellow", "Red", "Black", "White")

# ----------------------------------------------------------------------------------------------
# Flat layout. Global part, then two player sections: the player to move first.
# ----------------------------------------------------------------------------------------------
BAG = 0  # (5,) tiles per colour in the bag
LID = 5  # (5,) tiles per colour in the box lid
FACTORIES = 10  # (5, 5) factory f (0-based), colour c at FACTORIES + 5 f + c
CENTRE = 35  # (5,) tiles per colour in the centre
MARKER_IN_CENTRE = 40  # 1 while the first-player marker lies in the centre
ROUND = 41  # round number, from 1
SEAT = 42  # absolute seat (0/1) of the player whose section comes first (the player to move)
GAME_OVER = 43  # 1 once the final wall-tiling (and bonuses) happened
PLAYER = (44, 102)  # start of the section of the player to move, and of the opponent
PLAYER_SIZE = 58
# Offsets inside a player section
P_SCORE = 0  # score, >= 0
P_PATTERN = 1  # (5, 5) pattern line r, colour c: tiles on that line (one colour per line)
P_WALL = 26  # (5, 5) wall row r, column c: 1 if a tile is there
P_FLOOR = 51  # (5,) floor tiles per colour (the marker is not a tile)
P_MARKER = 56  # 1 if this player took the first-player marker this round
P_STARTER = 57  # 1 if this player started the current round
STATE_DIM = PLAYER[1] + PLAYER_SIZE  # 160
BOARD_DTYPE = np.int16

# Wall pattern: cell (r, c) holds colour (c - r) mod 5; colour k sits in row r at column (k + r) mod 5.
WALL_COLOUR = np.array([[(c - r) % 5 for c in range(5)] for r in range(5)], dtype=np.int64)


def wall_column(row: int, colour: int) -> int:
    """Column of ``colour`` (0-4) in wall row ``row`` (0-4)."""
    return (colour + row) % 5


# ----------------------------------------------------------------------------------------------
# Action codes
# ----------------------------------------------------------------------------------------------
def action_to_string(action: int) -> str:
    """Move code of an action index, e.g. ``action_to_string(113) == '3R4'``; ``'NOOP'`` for 180."""
    action = int(action)
    if action == NOOP:
        return "NOOP"
    if not 0 <= action < N_TAKES:
        raise ValueError(f"Action index {action} is outside 0..{NOOP}.")
    source, rest = divmod(action, N_COLOURS * N_DESTINATIONS)
    colour, destination = divmod(rest, N_DESTINATIONS)
    return SOURCE_CODES[source] + COLOUR_CODES[colour] + DESTINATION_CODES[destination]


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message: escaped like ``repr``, and cut to ``limit`` characters with
    its length noted when longer, so a reason stays one short line whatever was typed."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def _parse_code(text: str) -> tuple[int | None, str | None]:
    """``(action, None)`` for a well-formed move code, else ``(None, reason)``: any string, of any
    length or content, gets one of the two, and the reason is short."""
    if not isinstance(text, str):
        return None, f"A move code is a string such as 5B2, not {type(text).__name__}."
    code = text.strip()
    if not code.isascii():  # before upper(): 'ﬀ'.upper() is 'FF', 'ı'.upper() is 'I'
        return None, (f"A move code is written in plain ASCII letters and digits, such as 5B2 or CWF; "
                      f"got {_shown(code)}.")
    code = code.upper()
    if code == "NOOP":
        return NOOP, None
    if len(code) != 3:
        return None, (f"A move code has 3 characters (source, colour, destination), "
                      f"such as 5B2 or CWF; got {_shown(text.strip())}.")
    source, colour, destination = code
    if source not in SOURCE_CODES:
        return None, f"Unknown source {source!r}: use C (the centre) or 1-5 (a factory)."
    if colour not in COLOUR_CODES:
        return None, f"Unknown colour {colour!r}: use B (blue), Y (yellow), R (red), D (black) or W (white)."
    if destination not in DESTINATION_CODES:
        return None, f"Unknown destination {destination!r}: use 1-5 (a pattern line) or F (the floor)."
    action = ((SOURCE_CODES.index(source) * N_COLOURS + COLOUR_CODES.index(colour)) * N_DESTINATIONS
              + DESTINATION_CODES.index(destination))
    return action, None


def string_to_action(text: str) -> int:
    """Action index of a move code such as ``'5B2'`` or ``' cwf '`` (case and spaces ignored);
    ``'NOOP'`` gives ``NOOP``, so ``string_to_action(action_to_string(a)) == a`` for all 181 actions.

    Raises:
        ValueError: the code is malformed; the message says which part and what is allowed.
    """
    action, error = _parse_code(text)
    if error:
        raise ValueError(error)
    return action


Action_Indices = enum.IntEnum(
    "Action_Indices",
    [(action_to_string(a), a) for a in range(N_TAKES)] + [("NOOP", NOOP)],
    module=__name__,
)
Action_Indices.__doc__ = ("The 181 actions by move code: ``Action_Indices['5B2']``, "
                          "``Action_Indices.CWF``, ``Action_Indices.NOOP``; ``.value`` is the index.")


def describe_action(action: int) -> str:
    """A sentence for an action, e.g. 'take all Blue from factory 5 into pattern line 2'."""
    action = int(action)
    if action == NOOP:
        return "end the round: wall-tiling, then refill the factories"
    code = action_to_string(action)
    source = "the centre" if code[0] == "C" else f"factory {code[0]}"
    colour = COLOUR_NAMES[COLOUR_CODES.index(code[1])]
    target = "the floor" if code[2] == "F" else f"pattern line {code[2]}"
    return f"take all {colour} from {source} {'onto' if code[2] == 'F' else 'into'} {target}"


# ----------------------------------------------------------------------------------------------
# Scoring helpers (pure; the engine calls these same functions)
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def score_placement(wall, row, col):
    """Points for placing a tile at the empty cell ``(row, col)`` of ``wall`` (rule 12).

    Args:
        wall: (5, 5) bool or int array, nonzero where a tile lies; the cell itself is still empty.
        row, col: 0-4.
    Returns:
        int: 1 for a tile with no orthogonal neighbour, else the horizontal run length (if > 1)
        plus the vertical run length (if > 1), both counting the new tile.
    """
    horizontal = 1
    c = col - 1
    while c >= 0 and wall[row, c]:
        horizontal += 1
        c -= 1
    c = col + 1
    while c < 5 and wall[row, c]:
        horizontal += 1
        c += 1
    vertical = 1
    r = row - 1
    while r >= 0 and wall[r, col]:
        vertical += 1
        r -= 1
    r = row + 1
    while r < 5 and wall[r, col]:
        vertical += 1
        r += 1
    if horizontal == 1 and vertical == 1:
        return 1
    points = 0
    if horizontal > 1:
        points += horizontal
    if vertical > 1:
        points += vertical
    return points


@numba.njit(cache=True)
def floor_penalty(n_items):
    """Penalty (<= 0) for ``n_items`` occupied floor spaces, the marker included (rule 13).

    Only the first 7 spaces cost points (-1, -1, -2, -2, -2, -3, -3); more items cost nothing extra.
    """
    penalty = 0
    for i in range(min(n_items, FLOOR_SPACES)):
        penalty += FLOOR_PENALTIES[i]
    return penalty


@numba.njit(cache=True)
def end_game_bonus(wall):
    """End bonus of a (5, 5) wall (rule 19): +2 a complete row, +7 a complete column, +10 a colour
    with all 5 tiles placed. A full wall is worth 95."""
    bonus = 0
    for r in range(5):
        full = True
        for c in range(5):
            if not wall[r, c]:
                full = False
        if full:
            bonus += 2
    for c in range(5):
        full = True
        for r in range(5):
            if not wall[r, c]:
                full = False
        if full:
            bonus += 7
    for colour in range(5):
        full = True
        for r in range(5):
            if not wall[r, (colour + r) % 5]:
                full = False
        if full:
            bonus += 10
    return bonus


@numba.njit(cache=True)
def _tile_lines(score, wall, rows, colours, n_floor):
    """Core of ``wall_tiling``: ``rows``/``colours`` give complete lines sorted top to bottom; ``wall``
    is updated in place. Returns the new score."""
    for i in range(len(rows)):
        col = (colours[i] + rows[i]) % 5
        score += score_placement(wall, rows[i], col)
        wall[rows[i], col] = 1
    score += floor_penalty(n_floor)
    return max(score, 0)


def wall_tiling(score: int, wall: np.ndarray, completed, n_floor: int) -> tuple[int, np.ndarray]:
    """One player's wall-tiling phase (rules 11-13).

    Args:
        score: score before the phase (>= 0).
        wall: (5, 5) bool array; not modified.
        completed: iterable of ``(row, colour_index)`` of complete pattern lines, in any order; they
            are placed top to bottom, each scored against the wall as it stands.
        n_floor: occupied floor items, the marker included (may exceed 7).
    Returns:
        ``(new_score, new_wall)``: the score after wall points and floor penalty, clamped at 0, and a
        new (5, 5) bool wall.
    """
    new_wall = np.array(wall, dtype=bool, copy=True)
    lines = sorted((int(r), int(c)) for r, c in completed)
    for r, c in lines:
        if new_wall[r, wall_column(r, c)]:
            raise ValueError(f"Wall row {r + 1} already holds {COLOUR_NAMES[c]}.")
    rows = np.array([r for r, _ in lines], dtype=np.int64)
    colours = np.array([c for _, c in lines], dtype=np.int64)
    new_score = _tile_lines(int(score), new_wall, rows, colours, int(n_floor))
    return int(new_score), new_wall


def winner(scores, complete_rows) -> int | None:
    """Index (0 or 1) of the winner given both final scores and complete wall rows (rule 20), or None
    for a shared victory: most points wins, ties go to more complete rows, then it is shared."""
    key0 = (int(scores[0]), int(complete_rows[0]))
    key1 = (int(scores[1]), int(complete_rows[1]))
    if key0 == key1:
        return None
    return 0 if key0 > key1 else 1


# ----------------------------------------------------------------------------------------------
# Engine core (numba). Boards are 1-D int16 arrays; every function copies before writing.
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _offer_empty(board):
    for i in range(FACTORIES, CENTRE + N_COLOURS):
        if board[i] > 0:
            return False
    return True


@numba.njit(cache=True)
def _line_accepts(board, player, row, colour):
    """Whether pattern line ``row`` of the player section at ``player`` may take ``colour``."""
    base = player + P_PATTERN + 5 * row
    if board[player + P_WALL + 5 * row + (colour + row) % 5]:
        return False  # colour already on that wall row (rule 7)
    held = 0
    for c in range(N_COLOURS):
        if board[base + c] > 0:
            if c != colour:
                return False  # the line holds another colour (rule 7)
            held = board[base + c]
    return held < row + 1  # a full line is not a destination (rule 9)


@numba.njit(cache=True)
def get_valid_mask(board):
    """Legal actions of the player to move: bool array of shape (181,) (``ACTION_DIM``).

    Takes while the offer lasts; only ``NOOP`` once it is exhausted; nothing after the game ends.
    """
    mask = np.zeros(ACTION_DIM, dtype=np.bool_)
    if board[GAME_OVER]:
        return mask
    if _offer_empty(board):
        mask[NOOP] = True
        return mask
    me = PLAYER[0]
    accepts = np.zeros((N_COLOURS, 5), dtype=np.bool_)
    for colour in range(N_COLOURS):
        for row in range(5):
            accepts[colour, row] = _line_accepts(board, me, row, colour)
    for source in range(N_SOURCES):
        start = CENTRE if source == 0 else FACTORIES + 5 * (source - 1)
        for colour in range(N_COLOURS):
            if board[start + colour] > 0:
                base = (source * N_COLOURS + colour) * N_DESTINATIONS
                for row in range(5):
                    mask[base + row] = accepts[colour, row]
                mask[base + FLOOR] = True
    return mask


@numba.njit(cache=True)
def _swap_players(board):
    """In place: exchange the two player sections and flip the seat."""
    a, b = PLAYER
    for i in range(PLAYER_SIZE):
        tmp = board[a + i]
        board[a + i] = board[b + i]
        board[b + i] = tmp
    board[SEAT] = 1 - board[SEAT]


@numba.njit(cache=True)
def flip_board(board):
    """The same position seen from the other seat: a new board with the player sections exchanged.
    ``get_reward(flip_board(b))`` is ``get_reward(b)`` negated."""
    out = board.copy()
    _swap_players(out)
    return out


@numba.njit(cache=True)
def _floor_items(board, player):
    """Occupied floor spaces of a player section, the marker included (at most 7 occupy spaces)."""
    n = board[player + P_MARKER]
    for c in range(N_COLOURS):
        n += board[player + P_FLOOR + c]
    return min(n, FLOOR_SPACES)


@numba.njit(cache=True)
def _take(board, action):
    """A take action (0-179) by the player to move. Raises ValueError if it is illegal."""
    if action < 0 or action >= N_TAKES:
        raise ValueError("action index out of range for a take (0-179)")
    if board[GAME_OVER]:
        raise ValueError("illegal action: the game is over")
    source = action // (N_COLOURS * N_DESTINATIONS)
    colour = (action // N_DESTINATIONS) % N_COLOURS
    destination = action % N_DESTINATIONS
    me = PLAYER[0]
    start = CENTRE if source == 0 else FACTORIES + 5 * (source - 1)
    n = np.int64(board[start + colour])
    if n == 0:
        raise ValueError("illegal action: that colour is not at that source")
    if destination < 5 and not _line_accepts(board, me, destination, colour):
        raise ValueError("illegal action: that pattern line cannot take that colour")
    out = board.copy()
    out[start + colour] = 0
    if source == 0:
        if out[MARKER_IN_CENTRE]:  # rule 6: first to take from the centre takes the marker
            out[MARKER_IN_CENTRE] = 0
            out[me + P_MARKER] = 1
    else:  # rule 5: the rest of the factory goes to the centre
        for c in range(N_COLOURS):
            out[CENTRE + c] += out[start + c]
            out[start + c] = 0
    excess = n
    if destination < 5:  # rule 7: fill the line, only the excess goes to the floor
        cell = me + P_PATTERN + 5 * destination + colour
        placed = min(n, destination + 1 - out[cell])
        out[cell] += placed
        excess = n - placed
    if excess > 0:  # rule 8: beyond the 7 floor spaces, tiles go to the lid
        used = out[me + P_MARKER]
        for c in range(N_COLOURS):
            used += out[me + P_FLOOR + c]
        room = max(FLOOR_SPACES - used, 0)
        on_floor = min(excess, room)
        out[me + P_FLOOR + colour] += on_floor
        out[LID + colour] += excess - on_floor
    if not _offer_empty(out):
        _swap_players(out)  # rule 4: turns alternate within a round
    else:
        # The next round's starter moves next (rules 14-15): seen from them from the NOOP on.
        opp = PLAYER[1]
        if out[opp + P_MARKER] or (out[me + P_MARKER] == 0 and out[opp + P_STARTER]):
            _swap_players(out)
    return out


@numba.njit(cache=True)
def _draw_factories(board, uniforms):
    """In place: fill each factory with 4 tiles drawn from the bag counts (rule 16), refilling the bag
    from the lid only when it is empty. ``uniforms``: (20,) floats in [0, 1), one per draw."""
    k = 0
    for f in range(N_FACTORIES):
        for _ in range(TILES_PER_FACTORY):
            total = 0
            for c in range(N_COLOURS):
                total += board[BAG + c]
            if total == 0:
                for c in range(N_COLOURS):
                    board[BAG + c] = board[LID + c]
                    board[LID + c] = 0
                    total += board[BAG + c]
                if total == 0:
                    return  # both empty: the round starts with partly filled factories
            x = uniforms[k] * total
            k += 1
            colour = 0
            acc = board[BAG]
            while x >= acc and colour < N_COLOURS - 1:
                colour += 1
                acc += board[BAG + colour]
            board[BAG + colour] -= 1
            board[FACTORIES + 5 * f + colour] += 1


@numba.njit(cache=True)
def _tile_player_wall(board, player):
    """In place: wall-tiling of one player section (rules 11-14). Returns True if a wall row is full."""
    wall = board[player + P_WALL:player + P_WALL + 25].reshape(5, 5)
    score = np.int64(board[player + P_SCORE])
    for row in range(5):
        base = player + P_PATTERN + 5 * row
        for colour in range(N_COLOURS):
            if board[base + colour] == row + 1:  # complete line, processed top to bottom
                col = (colour + row) % 5
                score += score_placement(wall, row, col)
                wall[row, col] = 1
                board[LID + colour] += row  # the other row tiles go to the lid
                board[base + colour] = 0
    score += floor_penalty(_floor_items(board, player))
    board[player + P_SCORE] = max(score, 0)
    for colour in range(N_COLOURS):
        board[LID + colour] += board[player + P_FLOOR + colour]
        board[player + P_FLOOR + colour] = 0
    return _complete_rows(board, player) > 0


@numba.njit(cache=True)
def _end_round(board, uniforms):
    """The NOOP: wall-tiling of both players, the end-of-game check, then the refill."""
    if board[GAME_OVER] or not _offer_empty(board):
        raise ValueError("illegal action: NOOP is legal only when the round's offer is exhausted")
    out = board.copy()
    me, opp = PLAYER
    ended = _tile_player_wall(out, me)
    ended = _tile_player_wall(out, opp) or ended
    # The board is already seen from the next starter (see _take); record who starts.
    out[me + P_STARTER] = 1
    out[opp + P_STARTER] = 0
    out[me + P_MARKER] = 0
    out[opp + P_MARKER] = 0
    if ended or out[ROUND] >= MAX_ROUNDS:  # rule 18 (and the cap of rule 21)
        for player in PLAYER:
            wall = out[player + P_WALL:player + P_WALL + 25].reshape(5, 5)
            out[player + P_SCORE] += end_game_bonus(wall)
        out[GAME_OVER] = 1
        return out
    out[MARKER_IN_CENTRE] = 1
    out[ROUND] += 1
    _draw_factories(out, uniforms)
    return out


def _uniforms(rng: np.random.Generator) -> np.ndarray:
    if not isinstance(rng, np.random.Generator):
        raise TypeError("NOOP draws tiles: pass a numpy Generator, e.g. np.random.default_rng(0), "
                        f"as rng (got {type(rng).__name__}).")
    return rng.random(N_FACTORIES * TILES_PER_FACTORY)


def get_next_state(board: np.ndarray, action: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """The board after ``action`` by the player to move, seen from the player who moves next.

    Args:
        board: (160,) int16 canonical board; never modified.
        action: index 0-180. Takes need no ``rng``; ``NOOP`` (the refill) draws from it.
        rng: numpy Generator used by ``NOOP``.
    Returns:
        A new (160,) int16 board.
    Raises:
        ValueError: the action is illegal here (use ``get_valid_mask``).
    """
    action = int(action)
    if action == NOOP:
        return _end_round(board, _uniforms(rng))
    return _take(board, action)


def init_board(rng: np.random.Generator | None = None) -> np.ndarray:
    """A new game: 100 tiles in the bag, factories filled, the starting seat chosen by ``rng``
    (rule 3). Returns a (160,) int16 board seen from the starting player."""
    rng = np.random.default_rng() if rng is None else rng
    board = np.zeros(STATE_DIM, dtype=BOARD_DTYPE)
    board[BAG:BAG + N_COLOURS] = TILES_PER_COLOUR
    board[MARKER_IN_CENTRE] = 1
    board[ROUND] = 1
    board[SEAT] = rng.integers(2)
    board[PLAYER[0] + P_STARTER] = 1
    _draw_factories(board, _uniforms(rng))
    return board


def current_seat(board: np.ndarray) -> int:
    """Absolute seat (0 or 1) of the player to move; it stays fixed for a player all game."""
    return int(board[SEAT])


@numba.njit(cache=True)
def _complete_rows(board, player):
    rows = 0
    for row in range(5):
        full = True
        for col in range(5):
            if board[player + P_WALL + 5 * row + col] == 0:
                full = False
        if full:
            rows += 1
    return rows


@numba.njit(cache=True)
def get_reward(board):
    """``(reward, game_over)`` from the viewpoint of the board's player: +1 win, -1 loss, 0 shared
    victory after the row-count tie-break (rule 20); ``(0, False)`` while the game goes on."""
    if not board[GAME_OVER]:
        return 0, False
    me, opp = PLAYER
    score_diff = np.int64(board[me + P_SCORE]) - np.int64(board[opp + P_SCORE])
    if score_diff == 0:
        score_diff = _complete_rows(board, me) - _complete_rows(board, opp)
    if score_diff == 0:
        return 0, True
    return (1 if score_diff > 0 else -1), True


def take_action_from_string(board: np.ndarray, text: str, rng: np.random.Generator | None = None):
    """Play a move code for the player to move.

    Returns:
        ``(new_board, None)`` when the move is legal, else ``(board, reason)``: the input board,
        unchanged, and a sentence saying exactly why the move is refused.
    """
    action, error = _parse_code(text)
    if error is None:
        error = illegal_reason(board, action)
    if error is None and action == NOOP and not isinstance(rng, np.random.Generator):
        error = "NOOP refills the factories at random: pass a numpy Generator as rng."
    if error is not None:
        return board, error
    return get_next_state(board, action, rng), None


def illegal_reason(board: np.ndarray, action: int) -> str | None:
    """Why ``action`` is illegal for the player to move, or None if it is legal."""
    action = int(action)
    if board[GAME_OVER]:
        return "The game is over: no more moves."
    if action == NOOP:
        return None if _offer_empty(board) else "NOOP ends a round; it is legal only once every factory and the centre are empty."
    if not 0 <= action < N_TAKES:
        return f"Action index {action} is outside 0..{NOOP}."
    if _offer_empty(board):
        return "The round's offer is exhausted: the next step is the refill (NOOP), not a take."
    code = action_to_string(action)
    source, colour, destination = (SOURCE_CODES.index(code[0]), COLOUR_CODES.index(code[1]),
                                   DESTINATION_CODES.index(code[2]))
    name = COLOUR_NAMES[colour]
    state = AzulState.decode(board)
    where = "The centre" if source == 0 else f"Factory {source}"
    available = state.centre if source == 0 else state.factories[source - 1]
    if available[colour] == 0:
        return f"{where} has no {name} tiles."
    if destination == FLOOR:
        return None
    me = state.players[0]
    line = destination + 1
    held = me.pattern[destination]
    if me.wall[destination, wall_column(destination, colour)]:
        return f"Wall row {line} already has {name}, so pattern line {line} cannot take {name}."
    if held.sum() and held[colour] == 0:
        other = COLOUR_NAMES[int(np.argmax(held))]
        return f"Pattern line {line} already holds {other}; it only takes {other} until it is tiled."
    if held.sum() >= line:
        return f"Pattern line {line} is full; choose another line or the floor (F)."
    return None


# ----------------------------------------------------------------------------------------------
# Structured view
# ----------------------------------------------------------------------------------------------
@dataclasses.dataclass
class PlayerBoard:
    """One player's section. Arrays are int unless stated.

    Attributes:
        score: points so far (>= 0).
        pattern: (5, 5) tiles on pattern line r (0-based; line r holds r + 1) of colour c.
        wall: (5, 5) bool, row r, column c; that cell's colour is ``WALL_COLOUR[r, c]``.
        floor: (5,) floor tiles per colour (the marker is counted by ``has_marker``).
        has_marker: took the first-player marker this round (it costs a floor space).
        is_starter: started the current round.
    """
    score: int
    pattern: np.ndarray
    wall: np.ndarray
    floor: np.ndarray
    has_marker: bool
    is_starter: bool

    def floor_items(self) -> int:
        """Occupied floor spaces, the marker included (0-7)."""
        return min(int(self.floor.sum()) + int(self.has_marker), FLOOR_SPACES)

    def complete_rows(self) -> int:
        return int(self.wall.all(axis=1).sum())


@dataclasses.dataclass
class AzulState:
    """Structured view of a flat board (``decode``/``encode`` are exact inverses).

    Attributes:
        bag, lid: (5,) tile counts per colour (order B, Y, R, D, W).
        factories: (5, 5) factory f (0-based), colour c.
        centre: (5,) tiles in the centre.
        marker_in_centre: the first-player marker lies in the centre.
        round: round number, from 1.
        seat: absolute seat of ``players[0]``, the player to move.
        game_over: the final wall-tiling has happened.
        players: (player to move, opponent).
    """
    bag: np.ndarray
    lid: np.ndarray
    factories: np.ndarray
    centre: np.ndarray
    marker_in_centre: bool
    round: int
    seat: int
    game_over: bool
    players: tuple[PlayerBoard, PlayerBoard]

    @classmethod
    def decode(cls, board: np.ndarray) -> "AzulState":
        board = np.asarray(board)
        if board.shape != (STATE_DIM,):
            raise ValueError(f"An Azul board has shape ({STATE_DIM},); got {board.shape}.")
        b = board.astype(np.int64)

        def player(start):
            return PlayerBoard(
                score=int(b[start + P_SCORE]),
                pattern=b[start + P_PATTERN:start + P_PATTERN + 25].reshape(5, 5).copy(),
                wall=b[start + P_WALL:start + P_WALL + 25].reshape(5, 5).astype(bool),
                floor=b[start + P_FLOOR:start + P_FLOOR + 5].copy(),
                has_marker=bool(b[start + P_MARKER]),
                is_starter=bool(b[start + P_STARTER]),
            )

        return cls(
            bag=b[BAG:BAG + 5].copy(), lid=b[LID:LID + 5].copy(),
            factories=b[FACTORIES:FACTORIES + 25].reshape(5, 5).copy(),
            centre=b[CENTRE:CENTRE + 5].copy(), marker_in_centre=bool(b[MARKER_IN_CENTRE]),
            round=int(b[ROUND]), seat=int(b[SEAT]), game_over=bool(b[GAME_OVER]),
            players=(player(PLAYER[0]), player(PLAYER[1])),
        )

    def encode(self) -> np.ndarray:
        """The flat (160,) int16 board."""
        board = np.zeros(STATE_DIM, dtype=BOARD_DTYPE)
        board[BAG:BAG + 5] = self.bag
        board[LID:LID + 5] = self.lid
        board[FACTORIES:FACTORIES + 25] = np.asarray(self.factories).reshape(-1)
        board[CENTRE:CENTRE + 5] = self.centre
        board[MARKER_IN_CENTRE] = self.marker_in_centre
        board[ROUND] = self.round
        board[SEAT] = self.seat
        board[GAME_OVER] = self.game_over
        for start, p in zip(PLAYER, self.players):
            board[start + P_SCORE] = p.score
            board[start + P_PATTERN:start + P_PATTERN + 25] = np.asarray(p.pattern).reshape(-1)
            board[start + P_WALL:start + P_WALL + 25] = np.asarray(p.wall).reshape(-1)
            board[start + P_FLOOR:start + P_FLOOR + 5] = p.floor
            board[start + P_MARKER] = p.has_marker
            board[start + P_STARTER] = p.is_starter
        return board

    def by_seat(self, seat: int) -> PlayerBoard:
        """The section of absolute seat ``seat``."""
        return self.players[0] if seat == self.seat else self.players[1]


def tile_census(board: np.ndarray) -> dict[str, np.ndarray]:
    """Where the 100 tiles are: per-colour counts, shape (5,), for every place a tile can be.

    Keys: 'bag', 'lid', 'factory 1'..'factory 5', 'centre', and for seat s in 0, 1:
    'seat s pattern lines', 'seat s wall', 'seat s floor'. Summed over places, every colour
    gives 20 in every reachable state.
    """
    state = AzulState.decode(board)
    census = {"bag": state.bag, "lid": state.lid}
    for f in range(N_FACTORIES):
        census[f"factory {f + 1}"] = state.factories[f].copy()
    census["centre"] = state.centre
    for seat in (0, 1):
        p = state.by_seat(seat)
        census[f"seat {seat} pattern lines"] = p.pattern.sum(axis=0)
        census[f"seat {seat} wall"] = np.bincount(WALL_COLOUR[p.wall], minlength=5)
        census[f"seat {seat} floor"] = p.floor.copy()
    return census


__all__ = [
    "ACTION_DIM", "STATE_DIM", "NOOP", "N_TAKES", "N_COLOURS", "N_FACTORIES", "MAX_ROUNDS",
    "COLOUR_CODES", "COLOUR_NAMES", "SOURCE_CODES", "DESTINATION_CODES", "WALL_COLOUR", "FLOOR",
    "Action_Indices", "action_to_string", "string_to_action", "describe_action",
    "init_board", "get_valid_mask", "get_next_state", "flip_board", "get_reward", "current_seat",
    "take_action_from_string", "illegal_reason",
    "score_placement", "floor_penalty", "end_game_bonus", "wall_tiling", "winner", "wall_column",
    "tile_census", "AzulState", "PlayerBoard",
]
