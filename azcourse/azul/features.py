"""Network inputs: the canonical int16 board turned into ``FEATURE_DIM`` floats in about [0, 1].

The raw board mixes counts of very different ranges (scores up to ~100, bag counts up to 20, flags),
and hides the move structure (which pattern line may take which colour). ``encode(board)`` returns a
float32 vector of shape ``(FEATURE_DIM,)`` (= 1499) built from the board only, in this order:

=====================  ====  ==========================================================
block                  size  content (player to move first, as on the board)
=====================  ====  ==========================================================
bag, lid                 10  tiles per colour / 20
factories                25  factory f, colour c / 4
centre                    5  tiles per colour / 10
offer per colour          5  tiles of that colour in factories + centre / 20
marker in centre, round   2  flag; round / 10
per player (x2)          95  score / 50; pattern line fill (row, colour) held / capacity (25);
                             wall (25); floor items / 7; marker; starter;
                             line accepts colour (row, colour) (25, the legality structure);
                             wall counts per row, column and colour / 5 (15);
                             projected score after wall-tiling / 50 (``heuristics``)
projected difference      1  tanh(projected diff / 12)
legal-move mask         181  1.0 where the action is legal for the player to move
per-take block     180 x 6  for take a (0 if illegal), ``ACTION_FEATURES`` values: the mover's
                             projected-score change / 10, immediate-score change / 10 (score if
                             wall-tiling happened right after it), tiles to the floor (marker
                             included) / 4, tiles onto the pattern line / 5, completes the line,
                             legal (1)
=====================  ====  ==========================================================

The per-take block exposes each move's consequences, which a small MLP cannot easily compute from
the board (which line can take how many tiles, what overflows to the floor); ``network.AzulNet``
also feeds it through a shared linear "action head" straight into each take's logit.

``encode_batch(boards)`` does the same for an (n, 160) array. Both are numba-compiled (~25-150 us/board).

``encode_replies(board)`` (``REPLIES_FEATURE_DIM`` = 1859 floats, the game ``azul_replies``) is the same
encoding with two more values per take (``REPLIES_ACTION_FEATURES`` = 8 a take): the opponent's best
projected-score gain over its own takes right after this take (0 when the take ends the round) / 10, and
that minus its best gain on the offer as it is now / 10: what a take leaves, or denies, the opponent, which
a depth-2 search sees and one network call does not. A reply's gain depends only on the opponent's own
section and the colour, count and marker it takes, so each is computed once a board (about 1.7 times
``encode``'s time).
"""
from __future__ import annotations

import numba
import numpy as np

import Azul_Simulator as az

from .heuristics import BONUS_WEIGHT, PARTIAL_LINE, VALUE_SCALE, projected_score

PLAYER_FEATURES = 95
BOARD_FEATURES = 10 + 25 + 5 + 5 + 2 + 2 * PLAYER_FEATURES + 1 + az.ACTION_DIM  # 419
ACTION_FEATURES = 6
ACTION_BLOCK = BOARD_FEATURES  # offset of the (180, ACTION_FEATURES) per-take block
MASK_BLOCK = BOARD_FEATURES - az.ACTION_DIM  # offset of the 181 legal-move flags
FEATURE_DIM = BOARD_FEATURES + az.N_TAKES * ACTION_FEATURES  # 1499
FACTORY_BLOCK = 10  # offset of the (5 factories, 5 colours) counts
REPLY_FEATURES = 2  # encode_replies: the opponent's best gain after the take, and its change
REPLIES_ACTION_FEATURES = ACTION_FEATURES + REPLY_FEATURES
REPLIES_FEATURE_DIM = BOARD_FEATURES + az.N_TAKES * REPLIES_ACTION_FEATURES  # 1859


def factory_order_maps(take_width: int = ACTION_FEATURES) -> tuple[np.ndarray, np.ndarray]:
    """The 120 orders of the five factories as index maps (the game's ``symmetry_maps``): int64
    ``(120, D)`` and ``(120, 181)`` with ``encode(board')[i] == encode(board)[x_maps[k, i]]`` and a
    take's policy entry ``pi'[a] == pi[pi_maps[k, a]]``, ``board'`` the board whose factory ``g`` holds factory
    ``order[g]``'s tiles (order ``k`` of ``itertools.permutations``; 0: the identity). Which factory holds which
    tiles changes nothing in the game: every other entry (bag, centre, walls, offers) stays in place.
    ``take_width``: values a take (``ACTION_FEATURES``; ``REPLIES_ACTION_FEATURES`` for ``encode_replies``),
    D = ``BOARD_FEATURES + 180 * take_width``."""
    import itertools

    orders = np.array(list(itertools.permutations(range(az.N_FACTORIES))))
    x_maps = np.tile(np.arange(BOARD_FEATURES + az.N_TAKES * take_width), (len(orders), 1))
    pi_maps = np.tile(np.arange(az.ACTION_DIM), (len(orders), 1))
    takes = np.arange(az.N_TAKES).reshape(az.N_SOURCES, az.N_COLOURS * az.N_DESTINATIONS)  # rows: centre, factories 1-5
    cells = np.arange(5 * az.N_FACTORIES).reshape(az.N_FACTORIES, 5)
    for k, order in enumerate(orders):
        moved = takes[np.concatenate([[0], 1 + order])].reshape(-1)  # take a' reads take moved[a']
        pi_maps[k, :az.N_TAKES] = moved
        x_maps[k, FACTORY_BLOCK:FACTORY_BLOCK + cells.size] = FACTORY_BLOCK + cells[order].reshape(-1)
        x_maps[k, MASK_BLOCK:MASK_BLOCK + az.N_TAKES] = MASK_BLOCK + moved
        x_maps[k, ACTION_BLOCK:] = (ACTION_BLOCK + take_width * moved[:, None] + np.arange(take_width)).reshape(-1)
    return x_maps, pi_maps


@numba.njit(cache=True)
def _encode_into(board, x, take_width):
    """Fill ``x``: the board block, then ``ACTION_FEATURES`` values of each take every ``take_width`` values."""
    k = 0
    for c in range(5):
        x[k] = board[az.BAG + c] / 20.0
        k += 1
    for c in range(5):
        x[k] = board[az.LID + c] / 20.0
        k += 1
    for i in range(25):
        x[k] = board[az.FACTORIES + i] / 4.0
        k += 1
    for c in range(5):
        x[k] = board[az.CENTRE + c] / 10.0
        k += 1
    for c in range(5):
        total = board[az.CENTRE + c]
        for f in range(5):
            total += board[az.FACTORIES + 5 * f + c]
        x[k] = total / 20.0
        k += 1
    x[k] = board[az.MARKER_IN_CENTRE]
    x[k + 1] = board[az.ROUND] / 10.0
    k += 2
    proj = np.zeros(2)
    for i in range(2):
        p = az.PLAYER[i]
        x[k] = board[p + az.P_SCORE] / 50.0
        k += 1
        for row in range(5):
            for colour in range(5):
                x[k] = board[p + az.P_PATTERN + 5 * row + colour] / (row + 1.0)
                k += 1
        for j in range(25):
            x[k] = board[p + az.P_WALL + j]
            k += 1
        items = board[p + az.P_MARKER]
        for c in range(5):
            items += board[p + az.P_FLOOR + c]
        x[k] = min(items, 7) / 7.0
        x[k + 1] = board[p + az.P_MARKER]
        x[k + 2] = board[p + az.P_STARTER]
        k += 3
        for row in range(5):
            for colour in range(5):
                x[k] = 1.0 if az._line_accepts(board, p, row, colour) else 0.0
                k += 1
        for r in range(5):
            s = 0
            for c in range(5):
                s += board[p + az.P_WALL + 5 * r + c]
            x[k] = s / 5.0
            k += 1
        for c in range(5):
            s = 0
            for r in range(5):
                s += board[p + az.P_WALL + 5 * r + c]
            x[k] = s / 5.0
            k += 1
        for colour in range(5):
            s = 0
            for r in range(5):
                s += board[p + az.P_WALL + 5 * r + (colour + r) % 5]
            x[k] = s / 5.0
            k += 1
        proj[i] = projected_score(board, p, PARTIAL_LINE, BONUS_WEIGHT)
        x[k] = proj[i] / 50.0
        k += 1
    x[k] = np.tanh((proj[0] - proj[1]) / VALUE_SCALE)
    k += 1
    mask = az.get_valid_mask(board)
    for a in range(az.ACTION_DIM):
        x[k + a] = 1.0 if mask[a] else 0.0
    k += az.ACTION_DIM
    me = az.PLAYER[0]
    seat = board[az.SEAT]
    before = proj[0]
    before_now = projected_score(board, me, 0.0, 0.0)
    floor_before = board[me + az.P_MARKER]
    for c in range(5):
        floor_before += board[me + az.P_FLOOR + c]
    for a in range(az.N_TAKES):
        if not mask[a]:
            continue
        nxt = az._take(board, a)
        p = az.PLAYER[0] if nxt[az.SEAT] == seat else az.PLAYER[1]
        floor_after = nxt[p + az.P_MARKER]
        for c in range(5):
            floor_after += nxt[p + az.P_FLOOR + c]
        destination = a % 6
        colour = (a // 6) % 5
        placed = 0
        complete = 0.0
        if destination < 5:
            held_before = board[me + az.P_PATTERN + 5 * destination + colour]
            held_after = nxt[p + az.P_PATTERN + 5 * destination + colour]
            placed = held_after - held_before
            complete = 1.0 if held_after == destination + 1 else 0.0
        base = k + a * take_width
        x[base] = (projected_score(nxt, p, PARTIAL_LINE, BONUS_WEIGHT) - before) / 10.0
        x[base + 1] = (projected_score(nxt, p, 0.0, 0.0) - before_now) / 10.0
        x[base + 2] = (floor_after - floor_before) / 4.0
        x[base + 3] = placed / 5.0
        x[base + 4] = complete
        x[base + 5] = 1.0


@numba.njit(cache=True)
def encode(board):
    """(160,) int16 board -> (FEATURE_DIM,) float32 features."""
    x = np.zeros(FEATURE_DIM, dtype=np.float32)
    _encode_into(board, x, ACTION_FEATURES)
    return x


@numba.njit(cache=True)
def encode_batch(boards):
    """(n, 160) boards -> (n, FEATURE_DIM) float32."""
    out = np.zeros((boards.shape[0], FEATURE_DIM), dtype=np.float32)
    for i in range(boards.shape[0]):
        _encode_into(boards[i], out[i], ACTION_FEATURES)
    return out


@numba.njit(cache=True)
def _reply_gain(opp, before, colour, count, marker, memo):
    """The best change of projected score of the mover of ``opp`` (a board seen from it) taking ``count``
    tiles of ``colour`` (with the first-player marker when ``marker``), over its legal destinations.
    It depends on the mover's own section alone, so the take is played from a centre holding just those
    tiles and the value kept in ``memo`` (float64 (5, 128, 2), NaN where unknown)."""
    if not np.isnan(memo[colour, count, marker]):
        return memo[colour, count, marker]
    probe = opp.copy()
    for c in range(az.N_COLOURS):
        probe[az.CENTRE + c] = 0
    probe[az.CENTRE + colour] = count
    probe[az.MARKER_IN_CENTRE] = marker
    me, seat, best = az.PLAYER[0], probe[az.SEAT], -np.inf
    for destination in range(az.N_DESTINATIONS):
        if destination < 5 and not az._line_accepts(probe, me, destination, colour):
            continue
        after = az._take(probe, az.N_DESTINATIONS * colour + destination)  # source 0: the centre
        p = me if after[az.SEAT] == seat else az.PLAYER[1]  # the mover's section after its take
        best = max(best, projected_score(after, p, PARTIAL_LINE, BONUS_WEIGHT) - before)
    memo[colour, count, marker] = best
    return best


@numba.njit(cache=True)
def encode_replies(board):
    """(160,) int16 board -> (REPLIES_FEATURE_DIM,) float32: ``encode``'s values, each take's followed by
    the opponent's best gain right after it / 10 (0 if the take ends the round) and that minus its best gain
    now / 10 (a reply's gain from the offer's colours and counts, each computed once by ``_reply_gain``)."""
    x = np.zeros(REPLIES_FEATURE_DIM, dtype=np.float32)
    _encode_into(board, x, REPLIES_ACTION_FEATURES)
    mask = az.get_valid_mask(board)
    opp = az.flip_board(board)
    before = projected_score(opp, az.PLAYER[0], PARTIAL_LINE, BONUS_WEIGHT)
    memo = np.full((az.N_COLOURS, 128, 2), np.nan)
    marker = 1 if board[az.MARKER_IN_CENTRE] else 0
    factory_best = np.full(az.N_FACTORIES, -np.inf)  # the opponent's best take from each factory
    for f in range(az.N_FACTORIES):
        for c in range(az.N_COLOURS):
            n = board[az.FACTORIES + 5 * f + c]
            if n > 0:
                factory_best[f] = max(factory_best[f], _reply_gain(opp, before, c, n, 0, memo))
    now = factory_best.max()
    for c in range(az.N_COLOURS):
        if board[az.CENTRE + c] > 0:
            now = max(now, _reply_gain(opp, before, c, board[az.CENTRE + c], marker, memo))
    if now == -np.inf:
        now = 0.0
    for group in range(az.N_TAKES // az.N_DESTINATIONS):  # one source and colour: the same offer after it
        source, colour = group // az.N_COLOURS, group % az.N_COLOURS
        legal = False
        for destination in range(az.N_DESTINATIONS):
            legal = legal or mask[az.N_DESTINATIONS * group + destination]
        if not legal:
            continue
        gain = -np.inf  # over the offer this take leaves: the other factories, then the centre
        for f in range(az.N_FACTORIES):
            if f != source - 1:
                gain = max(gain, factory_best[f])
        for c in range(az.N_COLOURS):
            n = board[az.CENTRE + c]
            if source == 0 and c == colour:
                n = 0
            elif source > 0 and c != colour:
                n += board[az.FACTORIES + 5 * (source - 1) + c]
            if n > 0:
                gain = max(gain, _reply_gain(opp, before, c, n, marker if source > 0 else 0, memo))
        if gain == -np.inf:
            gain = 0.0  # the take ends the round: no reply
        for destination in range(az.N_DESTINATIONS):
            a = az.N_DESTINATIONS * group + destination
            if mask[a]:
                base = ACTION_BLOCK + a * REPLIES_ACTION_FEATURES + ACTION_FEATURES
                x[base] = gain / 10.0
                x[base + 1] = (gain - now) / 10.0
    return x
