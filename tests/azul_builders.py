"""Small builders for hand-made Azul positions, used by the rules, property and move-code tests.

Positions are written the way a person reads a board:

* colours are letters ``B Y R D W`` (D = black), tile groups are strings: ``"BBYR"`` = 2 Blue,
  1 Yellow, 1 Red;
* a wall is 5 strings of ``#`` (tile) and ``.`` (empty), row 0 (pattern line 1) first;
* pattern lines are a dict ``{line (1-5): "RR"}``.

Every builder returns an ``AzulState`` or a flat board; by default the tiles not placed anywhere are
put in the bag so that the position holds exactly 20 tiles of each colour (like a real game).
"""
from __future__ import annotations

import numpy as np

import Azul_Simulator as az
from Azul_Simulator import AzulState, PlayerBoard

COLOURS = "BYRDW"
B, Y, R, D, W = range(5)
EMPTY_WALL = (".....",) * 5


def counts(tiles: str | None) -> np.ndarray:
    """``"BBR"`` -> array([2, 0, 1, 0, 0]); None or "" -> zeros."""
    out = np.zeros(5, dtype=np.int64)
    for ch in tiles or "":
        out[COLOURS.index(ch.upper())] += 1
    return out


def wall(rows=EMPTY_WALL) -> np.ndarray:
    """A (5, 5) bool wall from 5 strings of '#' and '.'."""
    assert len(rows) == 5 and all(len(r) == 5 for r in rows), rows
    return np.array([[ch == "#" for ch in r] for r in rows], dtype=bool)


def wall_with(cells) -> np.ndarray:
    """A (5, 5) bool wall with tiles at the given (row, col) cells."""
    w = np.zeros((5, 5), dtype=bool)
    for r, c in cells:
        w[r, c] = True
    return w


def colour_at(row: int, col: int) -> int:
    """Colour index printed on wall cell (row, col): (col - row) mod 5 (AZUL_RULES.md, wall pattern)."""
    return (col - row) % 5


def column_of(row: int, colour: int) -> int:
    """Column of ``colour`` in wall row ``row``: (colour + row) mod 5."""
    return (colour + row) % 5


def player(score=0, pattern=None, wall_rows=EMPTY_WALL, floor="", has_marker=False,
           is_starter=False) -> PlayerBoard:
    """One player section. ``pattern``: {line 1-5: "RR"} (one colour per line)."""
    pat = np.zeros((5, 5), dtype=np.int64)
    for line, tiles in (pattern or {}).items():
        assert len(set(tiles)) == 1 and len(tiles) <= line, (line, tiles)
        pat[line - 1] = counts(tiles)
    return PlayerBoard(score=score, pattern=pat, wall=wall(wall_rows), floor=counts(floor),
                       has_marker=has_marker, is_starter=is_starter)


def state(me: PlayerBoard | None = None, opp: PlayerBoard | None = None, factories=(), centre="",
          marker_in_centre=False, bag=None, lid="", round=1, seat=0, game_over=False) -> AzulState:
    """A position; ``me`` is the player to move (absolute seat ``seat``).

    ``factories``: up to 5 strings (missing ones are empty). ``bag``: a string, an array of counts,
    or None = every tile not placed elsewhere (so each colour totals 20). ``lid``: string or counts.
    """
    me = me if me is not None else player(is_starter=True)
    opp = opp if opp is not None else player()
    fac = np.zeros((5, 5), dtype=np.int64)
    for f, tiles in enumerate(factories):
        assert len(tiles) <= 4, tiles
        fac[f] = counts(tiles)
    lid_counts = counts(lid) if isinstance(lid, str) else np.asarray(lid, dtype=np.int64)
    s = AzulState(bag=np.zeros(5, dtype=np.int64), lid=lid_counts, factories=fac,
                  centre=counts(centre), marker_in_centre=marker_in_centre, round=round, seat=seat,
                  game_over=game_over, players=(me, opp))
    if bag is None:
        s.bag = 20 - placed_tiles(s)
        assert (s.bag >= 0).all(), f"more than 20 tiles of a colour placed: {placed_tiles(s)}"
    else:
        s.bag = counts(bag) if isinstance(bag, str) else np.asarray(bag, dtype=np.int64)
    return s


def board(**kwargs) -> np.ndarray:
    """``state(**kwargs).encode()``."""
    return state(**kwargs).encode()


def placed_tiles(s: AzulState) -> np.ndarray:
    """Tiles per colour outside the bag (lid, factories, centre, both players)."""
    total = s.lid + s.factories.sum(axis=0) + s.centre
    for p in s.players:
        total = total + p.pattern.sum(axis=0) + p.floor
        total = total + np.bincount(az.WALL_COLOUR[p.wall], minlength=5)
    return total


def census_totals(b: np.ndarray) -> np.ndarray:
    """Per-colour totals of ``tile_census`` over all places."""
    return np.sum(list(az.tile_census(b).values()), axis=0)


def play(b: np.ndarray, *codes: str, rng=None) -> np.ndarray:
    """Apply move codes (or 'NOOP') in turn with ``get_next_state``; returns the last board."""
    for code in codes:
        action = az.NOOP if code == "NOOP" else az.string_to_action(code)
        b = az.get_next_state(b, action, rng if rng is not None else np.random.default_rng(0))
    return b


def legal_codes(b: np.ndarray) -> set[str]:
    """The legal actions of a board as move codes ('NOOP' for the refill)."""
    return {az.action_to_string(a) for a in np.flatnonzero(az.get_valid_mask(b))}


def random_game(seed: int, policy: str = "uniform"):
    """Play one game with a seeded RNG; yields ``(board, mask, action, next_board)`` for every step.

    Policies: 'uniform' (any legal action), 'lines' (a pattern-line move whenever there is one:
    longer games, fuller walls), 'floor' (floor moves whenever possible: full floors, lid overflow).
    """
    rng = np.random.default_rng(seed)
    b = az.init_board(rng)
    while True:
        mask = az.get_valid_mask(b)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            return
        choice = legal
        if policy != "uniform" and legal[0] != az.NOOP:
            to_floor = legal % 6 == az.FLOOR
            preferred = legal[~to_floor] if policy == "lines" else legal[to_floor]
            if preferred.size:
                choice = preferred
        action = int(choice[rng.integers(choice.size)])
        nxt = az.get_next_state(b, action, rng)
        yield b, mask, action, nxt
        b = nxt
