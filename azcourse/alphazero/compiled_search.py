"""Compiled self-play: AlphaZero's search (PUCT or Gumbel) on trees in numpy arrays, many games in lockstep (numba).

``azcourse.core.mcts`` is the pack's readable search, the one students read and every game uses;
this module is the only second search in the pack. It exists for speed: at the sizes the trainer
meets for real (Othello 8x8, Hex 7x7, Tak 5x5) on two CPU cores, the generic search spends most of a
simulation in Python (nodes as objects, a state object per move), so self-play, not training,
bounds a run. Here the trees live in preallocated arrays and the descents, the moves of the rules
(``azcourse.othello.compiled``, ``azcourse.hex.compiled``, ``azcourse.tak.compiled``), the expansions and the backups run in
numba; Python is left one batched network call per round and the per-move draws. It lives in the
trainer's package, not in ``azcourse.core``, because it knows games (the generic layer imports none:
docs/architecture.md); each game's compiled rules live in that game's package, beside its ``game.py``.

What it computes is ``selfplay.play_games`` with ``MCTS`` (``tree_policy = "puct"``, either root
policy), and ``tests/test_compiled_search.py`` checks it: the same PUCT formula and tie-breaking (the
lowest action index), priors renormalised over the legal actions with numpy's own summation order,
the same Dirichlet root noise drawn from each game's generator at the same points, the chosen
child's subtree kept between moves (``reuse_tree``), the same Gumbel search (its noise, sequential
halving, completed Q, improved policy and choice, with Python's own float sums), and the same
``SelfPlayGame`` records. With a network whose outputs do not depend on the batch, the games are
equal to the generic ones, float for float; with a float network they can differ in the last bits
of a batch's rounding, as batched generic self-play does.

The lockstep
    ``Lockstep`` holds up to ``slots`` searches, one a game. Each round, every search that is not
    waiting for its move to be chosen walks down its tree in compiled code to the next leaf that
    needs the network (``_descend``; simulations that end at a terminal node are backed up on the
    way); the leaves' encodings fill one float32 batch, ``forward_many`` evaluates it in one call,
    and ``_expand`` adds the leaves' edges and backs their values up. Within a game the simulations
    stay sequential, exactly as in one search. ``play_games`` refills a slot with the next game as
    soon as one ends, so the batch stays full.
Pattern tables in the search (Othello)
    With an ``ntuple.kernels.Tables`` in place of ``forward_many`` (``network = "ntuple"``) nothing
    leaves compiled code during a search: each round runs every slot's whole search (``_search_all``),
    in the order one search makes its simulations, each node's value from the tables when it is added
    and its children's priors (the softmax of the tables' logits over the legal actions, as
    ``Predictor`` and ``MCTS`` make them, to the last bits) when a simulation first leaves it
    (``_simulate`` with ``tables``): the same search, and most leaves, never left, cost their value alone.
The exact endgame (Othello, ``endgame_empties``)
    With ``endgame_empties = K > 0`` every position the search adds to a tree, and every position a game
    reaches without the kept subtree, with at most ``K`` empty squares is solved win/draw/loss
    (``azcourse.othello.endgame``, the window (-1, 1), in compiled code: ``_settled``) and gets its exact
    result: its node is a terminal of the tree, valued as a finished game, and a self-play game ends at its
    first such position with that result (the records stop there; the value targets of its positions are the
    exact result). Off (0), the search is the generic one as above; on, it is no longer (the generic search has
    no solver).
The trees (``Trees``)
    All the games' trees share one pool of nodes and one of edges; a node's edges (its legal
    actions, increasing) are contiguous. A child is always added after its parent, so a node's index
    exceeds its parent's, and ``_live`` finds every node still reachable from a root in one forward
    scan. When a round might run out of room, the reachable nodes are copied into new arrays, grown
    as needed (``Lockstep._make_room``). Othello's and Hex's positions fit a node's words (bitboards);
    a Tak node keeps its whole position array in a row of ``Trees.board`` (``Rules.width`` columns).
The root and the tree policy
    ``_root_edge`` picks the root's edge, ``_interior_edge`` every other node's. With the PUCT root
    policy both are PUCT (``_puct``), the root's priors mixed with the Dirichlet noise. With the
    Gumbel root policy (``MCTSConfig.root_policy = "gumbel"``) the root follows sequential halving
    over the Gumbel-Top-k actions (``_best_considered``) and every other node the deterministic
    choice of the improved policy (``_gumbel_interior``); each search starts a new tree, and its
    result is the improved policy and the Gumbel choice (``azcourse.core.mcts`` explains them).
"""
from __future__ import annotations

import math
import sys
from typing import Callable, NamedTuple

import numba
import numpy as np

from azcourse.core.gumbel import Q_EPSILON, TINY, considered_visits
from azcourse.core.mcts import MCTSConfig, visit_distribution
from azcourse.hex import compiled as hex_rules
from azcourse.hex.game import Hex
from azcourse.othello import compiled as othello_rules
from azcourse.othello import endgame as othello_endgame
from azcourse.othello.game import Othello
from azcourse.tak import compiled as tak_rules
from azcourse.tak.game import Tak

from .config import ConfigError
from .ntuple import kernels as ntuple_kernels
from .selfplay import SelfPlayGame

OTHELLO, HEX, TAK = 0, 1, 2  # the games the compiled rules know
COMPILED_GAMES = (Othello, Hex, Tak)
EVALUATE, SEARCH, CHOOSE, IDLE = 0, 1, 2, 3  # a slot's phase: its root awaits the network, it searches, its move
# awaits the choice, it holds no game
DRAW = 2  # a result code (see the games' compiled modules); 0 and 1 name the winner
PUCT, GUMBEL = 0, 1  # root policies
COMPENSATED_SUM = sys.version_info >= (3, 12)  # Python's sum() of floats adds Neumaier's compensation


class Rules(NamedTuple):
    """A game as the compiled search sees it.

    Attributes:
        kind: ``OTHELLO``, ``HEX`` or ``TAK``; size: the board's side n; table: the rules' uint64 table (Othello,
            Hex; one unused entry for Tak).
        actions: the action space A; shape: the game's ``encoding_shape``; encoding: its number of entries.
        depth: the most moves a path from a root can hold.
        words: ``words(state)``, the game state as ``(first, second, moves, player, result)`` (Tak: zero
            bitboards, the player to move and the result code).
        tak: Tak's compiled ``tak.compiled.Rules``, None for Othello and Hex (numba prunes Tak's branches then).
        width: the entries of a node's ``board`` row: ``tak.compiled.state_size(n)`` for Tak, 0 otherwise.
        board: ``board(state)``, int64 ``(width,)``: the position's array (``tak.compiled.state_array``).
    """

    kind: int
    size: int
    table: np.ndarray
    actions: int
    shape: tuple
    encoding: int
    depth: int
    words: Callable
    tak: tak_rules.Rules | None
    width: int
    board: Callable


def refuse_unsupported(config: MCTSConfig, game=None, endgame_empties: int = 0) -> None:
    """Refuse, by name, every search setting this twin does not implement (call it wherever the compiled
    path is chosen); ``game``, when given, must be one whose rules are compiled (``rules_for``), and one with
    an exact endgame if ``endgame_empties`` asks for one (``refuse_endgame``).

    Implemented: PUCT or Gumbel at the root, ``simulations``, ``c_init``, ``c_base`` (``math.inf``: the
    constant ``c_init``), ``unvisited_value``, Dirichlet noise, the Gumbel settings. Not: ``tree_policy =
    "uct"``, ``fpu_reduction``, ``time_limit``; ``chance_outcomes`` is moot (Othello, Hex and Tak have no chance).

    Raises:
        ConfigError: the first setting it does not implement, by name.
    """
    refused = [("tree_policy", config.tree_policy != "puct", f"{config.tree_policy!r} (the compiled search is PUCT's)"),
               ("fpu_reduction", config.fpu_reduction is not None, f"{config.fpu_reduction} (first-play urgency)"),
               ("time_limit", config.time_limit is not None, f"{config.time_limit} s (it plans whole searches)")]
    for name, unsupported, what in refused:
        if unsupported:
            raise ConfigError(f"the compiled search does not implement {name} = {what}: "
                              f"use search_path = \"generic\"")
    if game is not None:
        refuse_endgame(rules_for(game), endgame_empties)


def refuse_endgame(rules: Rules, endgame_empties: int) -> None:
    """Refuse an exact endgame the compiled search cannot play: one for Hex or Tak (the solver is Othello's), or
    one outside 0 to ``othello.endgame.MAX_EMPTIES`` empty squares.

    Raises:
        ConfigError: by name, ``endgame_empties``.
    """
    if not 0 <= int(endgame_empties) <= othello_endgame.MAX_EMPTIES:
        raise ConfigError(f"endgame_empties is a number of empty squares from 0 (no endgame) to "
                          f"{othello_endgame.MAX_EMPTIES} (the solver's limit), got {endgame_empties}")
    if endgame_empties and rules.kind != OTHELLO:
        raise ConfigError(f"endgame_empties = {endgame_empties}: the compiled search's exact endgame is Othello's "
                          "(azcourse.othello.endgame); set endgame_empties = 0 for Hex and Tak")


def rules_for(game) -> Rules:
    """The compiled rules of ``game``.

    Raises:
        ConfigError: the game is not Othello, Hex or Tak.
    """
    no_board = np.zeros(0, np.int64)
    if isinstance(game, Othello):
        n = game.size  # a pass never follows a pass: at most two moves per empty square
        return Rules(OTHELLO, n, othello_rules.table(n), game.action_space_size, (3, n, n), 3 * n * n, 2 * n * n + 1,
                     othello_rules.words, None, 0, lambda state: no_board)
    if isinstance(game, Hex):
        n = game.size
        return Rules(HEX, n, hex_rules.table(n), game.action_space_size, (2 + 2 * n * n,), 2 + 2 * n * n, n * n,
                     hex_rules.words, None, 0, lambda state: no_board)
    if isinstance(game, Tak):
        return Rules(TAK, game.size, np.zeros(1, np.uint64), game.action_space_size, game.encoding_shape,
                     int(np.prod(game.encoding_shape)), game.move_cap + 1,
                     lambda state: (0, 0, 0, state.ply & 1, state.winner), tak_rules.rules(game),
                     tak_rules.state_size(game.size), lambda state: tak_rules.state_array(game, state))
    raise ConfigError(f"search_path = \"compiled\" knows Othello, Hex and Tak, not {getattr(game, 'name', game)!r}: "
                      "use search_path = \"generic\"")


class Trees(NamedTuple):
    """The search trees of all slots: a pool of nodes and a pool of edges (see the module docstring).

    Nodes (the first ``used[0]`` entries):
        first, second, moves: uint64, the position's bitboards; player, result: int64 (the rules' words).
        board: int64 ``(nodes, width)``: Tak's position array (``tak.compiled``; no columns for Othello and Hex).
        visits: int64 ``N(s)``: 1 for the evaluation that added the node, plus one per simulation through it.
        value: float64, the network's value of the position for its player to move (Gumbel's mixed value).
        edge0: int64, the node's first edge; edges: int64, its number of edges (its legal actions), -1
            until the network has evaluated it (pattern tables: until a simulation first leaves it), 0 at a
            terminal node.
    Edges (the first ``used[1]`` entries):
        action: int64; prior: float64 ``P(s, a)`` (with noise at a root); n: int64 ``N(s, a)``;
        w: float64 ``W(s, a)``, the summed results of the player who chooses at ``s``; child: int64, -1
        until the child is added.
    used: int64 ``(2,)``: nodes and edges in use.
    """

    first: np.ndarray
    second: np.ndarray
    moves: np.ndarray
    player: np.ndarray
    result: np.ndarray
    visits: np.ndarray
    value: np.ndarray
    edge0: np.ndarray
    edges: np.ndarray
    action: np.ndarray
    prior: np.ndarray
    n: np.ndarray
    w: np.ndarray
    child: np.ndarray
    used: np.ndarray
    board: np.ndarray


def empty_trees(nodes: int, edges: int, width: int = 0) -> Trees:
    """A pool with room for ``nodes`` nodes (``width`` board entries each) and ``edges`` edges, none in use."""
    node = lambda dtype: np.zeros(nodes, dtype)  # noqa: E731
    edge = lambda dtype: np.zeros(edges, dtype)  # noqa: E731
    u64, i64, f64 = np.uint64, np.int64, np.float64
    return Trees(node(u64), node(u64), node(u64), node(i64), node(i64), node(i64), node(f64), node(i64), node(i64),
                 edge(i64), edge(f64), edge(i64), edge(f64), edge(i64), np.zeros(2, i64), np.zeros((nodes, width), i64))


class Slots(NamedTuple):
    """The lockstep state of ``B`` searches, one per slot.

    Attributes:
        root: int64 ``(B,)``: the root node (-1 in an idle slot). phase: int64 ``(B,)``: ``EVALUATE``,
            ``SEARCH``, ``CHOOSE`` or ``IDLE``. done: int64 ``(B,)``: simulations done in this search.
        noise: float64 ``(B, A)``: the root noise of each edge of the root, in order: Dirichlet noise
            (PUCT), or the scaled Gumbel noise ``g`` (Gumbel); noisy: bool ``(B,)``: Dirichlet noise not yet
            mixed into the root's priors.
        schedule: int64 ``(B, S)``: Gumbel: the visit count that simulation ``i`` gives the next considered
            root action (``mcts.considered_visits``).
        leaf: int64 ``(B,)``: the node awaiting the network; path_node, path_edge: int64 ``(B, D)``: the
            nodes and edges from the root to it, ``depth`` ``(B,)`` of them.
        batch: int64 ``(B,)``: the slot of each row of the round's batch.
    """

    root: np.ndarray
    phase: np.ndarray
    done: np.ndarray
    noise: np.ndarray
    noisy: np.ndarray
    schedule: np.ndarray
    leaf: np.ndarray
    path_node: np.ndarray
    path_edge: np.ndarray
    depth: np.ndarray
    batch: np.ndarray


class Settings(NamedTuple):
    """What the compiled code reads of ``MCTSConfig`` (``root_policy`` as ``PUCT`` or ``GUMBEL``), the
    action space ``actions`` and whether Python's float sums are compensated (``COMPENSATED_SUM``). (The exact
    endgame is not a setting but an argument, ``endgame``, None when off, so that numba prunes it: see ``_settled``.)"""

    simulations: int
    c_base: float
    c_init: float
    unvisited_value: float
    dirichlet_fraction: float
    root_policy: int
    c_visit: float
    c_scale: float
    actions: int
    compensated: bool


# -- the rules, by kind (``tak``: Tak's compiled rules, or None for Othello and Hex, whose branches numba prunes) --
@numba.njit(cache=True)
def _play(kind, size, table, first, second, player, action):
    if kind == OTHELLO:
        return othello_rules.play(size, table, first, second, player, action)
    return hex_rules.play(size, table, first, second, player, action)


@numba.njit(cache=True)
def _legal_actions(kind, size, trees, node, out, tak=None):
    """The legal actions of ``node`` into ``out``, increasing; their number (0 at a terminal)."""
    if tak is not None:
        return tak_rules.legal_actions(tak, trees.board[node], out)
    if kind == OTHELLO:
        return othello_rules.legal_actions(size, trees.moves[node], trees.result[node], out)
    return hex_rules.legal_actions(size, trees.moves[node], trees.result[node], out)


@numba.njit(cache=True)
def _encode(kind, size, trees, node, out, tak=None):
    if tak is not None:
        tak_rules.encode(tak, trees.board[node], out)
    elif kind == OTHELLO:
        othello_rules.encode(size, trees.first[node], trees.second[node], trees.moves[node], trees.player[node], out)
    else:
        hex_rules.encode(size, trees.first[node], trees.second[node], trees.player[node], out)


@numba.njit(cache=True)
def _child(trees, kind, size, table, node, action, endgame=None, tak=None):
    """Add the node of ``node``'s position after ``action`` (with ``endgame``, its result settled: ``_settled``);
    its index."""
    if tak is not None:
        board = trees.board[trees.used[0]]  # the row of the node _new_node adds next
        board[:] = trees.board[node]
        tak_rules.play(tak, board, action)
        base = 3 * tak.squares
        return _new_node(trees, np.uint64(0), np.uint64(0), np.uint64(0), board[base + tak_rules.PLY] & 1,
                         board[base + tak_rules.WINNER])
    first, second, moves, player, result = _play(kind, size, table, trees.first[node], trees.second[node],
                                                 trees.player[node], action)
    if endgame is not None:
        result = _settled(endgame, kind, size, table, first, second, player, result)
    return _new_node(trees, first, second, moves, player, result)


# -- nodes and edges -----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _settled(endgame, kind, size, table, first, second, player, result):
    """The result code of a position the search adds (a tree's node, a game's next position) with the exact
    endgame from ``endgame`` (int64) empty squares on: the rules' ``result``, but an undecided Othello position
    with at most ``endgame`` empty squares is solved win/draw/loss (``othello.endgame.solve_words``, the window
    (-1, 1), for ``player`` to move) and gets its exact result: the winner (0 or 1) or ``DRAW``. Its node is then
    a terminal of the tree.

    Its callers take ``endgame=None`` when it is off and call it only when ``endgame is not None``: numba
    prunes that branch from their None-typed compilations, so that off, the search is compiled exactly as
    without it (the solver is not even in its code)."""
    if result >= 0 or kind != OTHELLO:
        return result
    empty = np.int64(othello_rules.popcount(~(first | second) & table[othello_rules.FULL]))
    if empty > endgame:
        return result
    nodes = np.zeros(1, dtype=np.int64)
    value, _ = othello_endgame.solve_words(size, table, first, second, player, np.int64(-1), np.int64(1), nodes)
    if value == 0:
        return np.int64(DRAW)
    return player if value > 0 else 1 - player  # value: the mover's margin's sign


@numba.njit(cache=True)
def _new_node(trees, first, second, moves, player, result):
    """Add a node for the position; its index."""
    node = trees.used[0]
    trees.used[0] += 1
    trees.first[node], trees.second[node], trees.moves[node] = first, second, moves
    trees.player[node], trees.result[node] = player, result
    trees.visits[node], trees.value[node], trees.edge0[node] = 1, 0.0, -1
    trees.edges[node] = 0 if result >= 0 else -1
    return node


@numba.njit(cache=True)
def _block_sum(values, start, count):
    """numpy's sum of at most 128 numbers: fewer than 8 in a row, else eight partial sums added pairwise, then
    the rest."""
    total = 0.0
    if count < 8:
        for i in range(start, start + count):
            total += values[i]
        return total
    p0, p1, p2, p3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    p4, p5, p6, p7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    whole = start + count - count % 8
    for i in range(start + 8, whole, 8):
        p0, p1, p2, p3 = p0 + values[i], p1 + values[i + 1], p2 + values[i + 2], p3 + values[i + 3]
        p4, p5, p6, p7 = p4 + values[i + 4], p5 + values[i + 5], p6 + values[i + 6], p7 + values[i + 7]
    total = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
    for i in range(whole, start + count):
        total += values[i]
    return total


@numba.njit(cache=True)
def _pairwise_sum(values, start, count):
    """``values[start:start + count].sum()`` in numpy's order, so that the priors are the generic
    search's to the last bit: up to 128 numbers as ``_block_sum``; a longer run is split in two halves (the
    first a multiple of 8), each summed the same way, and the two sums added (Tak 5x5 has 1,575 actions).
    The halving runs on an explicit stack: numba's cache reloads recursive functions unsafely."""
    if count <= 128:
        return _block_sum(values, start, count)
    starts, counts, stage, left = np.empty(64, np.int64), np.empty(64, np.int64), np.zeros(64, np.int64), np.empty(64)
    depth, starts[0], counts[0], result = 0, start, count, 0.0
    while depth >= 0:
        here, length = starts[depth], counts[depth]
        if length <= 128:
            result = _block_sum(values, here, length)
            depth -= 1
            continue
        half = length // 2
        half -= half % 8
        if stage[depth] == 2:  # both halves summed: the second is in result
            result = left[depth] + result
            depth -= 1
            continue
        if stage[depth] == 1:  # the first half's sum is in result
            left[depth] = result
        stage[depth] += 1
        starts[depth + 1], counts[depth + 1], stage[depth + 1] = (here, half, 0) if stage[depth] == 1 else \
            (here + half, length - half, 0)
        depth += 1
    return result


@numba.njit(cache=True)
def _add_edges(trees, node, kind, size, exp_logits, scratch, tak=None):
    """Give ``node`` one edge per legal action with the network's prior: the softmax of the logits
    (``exp_logits``: float64 ``(A,)``, ``exp(logits - max)``) renormalised over the legal actions, as
    ``Predictor`` and ``MCTS`` compute it; uniform if the legal actions get no mass at all."""
    k = _legal_actions(kind, size, trees, node, scratch, tak)
    total = _pairwise_sum(exp_logits, 0, len(exp_logits))
    e0 = trees.used[1]
    trees.used[1] += k
    for j in range(k):
        e = e0 + j
        trees.action[e] = scratch[j]
        trees.prior[e] = exp_logits[scratch[j]] / total
        trees.n[e], trees.w[e], trees.child[e] = 0, 0.0, -1
    legal = _pairwise_sum(trees.prior, e0, k)
    for e in range(e0, e0 + k):
        trees.prior[e] = trees.prior[e] / legal if legal > 0 else 1.0 / k
    trees.edge0[node], trees.edges[node] = e0, k


# -- the tree policy -----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _puct(trees, settings, node):
    """The edge of ``node`` that maximises ``Q + C(s) P sqrt(N(s)) / (1 + N(s, a))`` (``MCTS._select_puct``,
    the same operations in the same order); the first best, so the lowest action, on ties."""
    total = trees.visits[node]
    if settings.c_base == math.inf:
        rate = settings.c_init
    else:
        rate = math.log((1 + total + settings.c_base) / settings.c_base) + settings.c_init
    root_total = math.sqrt(total)
    best, pick = -math.inf, trees.edge0[node]
    for e in range(trees.edge0[node], trees.edge0[node] + trees.edges[node]):
        n = trees.n[e]
        score = (trees.w[e] / n if n > 0 else settings.unvisited_value) + rate * trees.prior[e] * root_total / (1 + n)
        if score > best:
            best, pick = score, e
    return pick


@numba.njit(cache=True)
def _python_sum(values, count, compensated):
    """``sum(values[:count])`` as Python's builtin adds floats (``count >= 1``): from the first item on,
    left to right, with Neumaier's compensation from Python 3.12 on (``compensated``); so that the
    Gumbel search's sums are the generic search's to the last bit."""
    total, carry = 0.0 + values[0], 0.0
    for i in range(1, count):
        x = values[i]
        if compensated:
            t = total + x
            carry += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
            total = t
        else:
            total += x
    if compensated and carry != 0.0 and math.isfinite(carry):
        total += carry
    return total


@numba.njit(cache=True)
def _logits(trees, node, out):
    """``gumbel.logits``: ``log P`` of each edge, the prior clipped at ``TINY``, into ``out`` float64 ``(k,)``."""
    for j in range(trees.edges[node]):
        out[j] = math.log(max(trees.prior[trees.edge0[node] + j], TINY))


@numba.njit(cache=True)
def _sigma(trees, settings, node, out):
    """``gumbel.sigma`` of each edge into ``out`` float64 ``(k,)``: ``(c_visit + max N) c_scale q``, ``q`` the
    completed Q of the chooser, min-max normalised (``gumbel.completed_q``, the same operations in order)."""
    e0, k = trees.edge0[node], trees.edges[node]
    visited = most = 0
    for e in range(e0, e0 + k):
        visited += trees.n[e]
        most = max(most, trees.n[e])
    mixed = trees.value[node]
    if visited:
        terms, m = np.empty(k), 0
        for e in range(e0, e0 + k):
            if trees.n[e]:
                terms[m] = max(trees.prior[e], TINY)
                m += 1
        mass, m = _python_sum(terms, m, settings.compensated), 0
        for e in range(e0, e0 + k):
            if trees.n[e]:
                terms[m] = max(trees.prior[e], TINY) * (trees.w[e] / trees.n[e]) / mass
                m += 1
        mixed = (trees.value[node] + visited * _python_sum(terms, m, settings.compensated)) / (visited + 1)
    for j in range(k):
        n = trees.n[e0 + j]
        out[j] = trees.w[e0 + j] / n if n else mixed
    low = high = out[0]
    for j in range(1, k):
        low, high = min(low, out[j]), max(high, out[j])
    if k < settings.actions:  # an action outside the legal ones completes to the mixed value
        low, high = min(low, mixed), max(high, mixed)
    scale = max(high - low, Q_EPSILON)
    factor = (settings.c_visit + most) * settings.c_scale
    for j in range(k):
        out[j] = factor * ((out[j] - low) / scale)


@numba.njit(cache=True)
def _improved_policy(trees, settings, node, out):
    """``softmax(logits + sigma)`` of each edge into ``out`` float64 ``(k,)`` (``gumbel.improved_policy``)."""
    k = trees.edges[node]
    sigma = np.empty(k)
    _logits(trees, node, out)
    _sigma(trees, settings, node, sigma)
    for j in range(k):
        out[j] += sigma[j]
    top = out[0]
    for j in range(1, k):
        top = max(top, out[j])
    for j in range(k):
        out[j] = math.exp(out[j] - top)
    total = _python_sum(out, k, settings.compensated)
    for j in range(k):
        out[j] /= total


@numba.njit(cache=True)
def _best_considered(trees, slots, settings, slot, node, visits):
    """Among the root's edges visited ``visits`` times, the one that maximises ``g + logits - max logits +
    sigma`` (``gumbel.considered_choice``); the first best on ties."""
    k = trees.edges[node]
    logits, sigma = np.empty(k), np.empty(k)
    _logits(trees, node, logits)
    _sigma(trees, settings, node, sigma)
    top = logits[0]
    for j in range(1, k):
        top = max(top, logits[j])
    best, pick = -math.inf, trees.edge0[node]
    for j in range(k):
        score = slots.noise[slot, j] + (logits[j] - top) + sigma[j]
        if trees.n[trees.edge0[node] + j] == visits and score > best:
            best, pick = score, trees.edge0[node] + j
    return pick


@numba.njit(cache=True)
def _gumbel_interior(trees, settings, node):
    """Gumbel's choice below the root: the edge that maximises ``pi'(a) - N(s, a) / (1 + sum N)``
    (``MCTS._select_gumbel``); the first best on ties."""
    k = trees.edges[node]
    improved = np.empty(k)
    _improved_policy(trees, settings, node, improved)
    share = 1
    for e in range(trees.edge0[node], trees.edge0[node] + k):
        share += trees.n[e]
    best, pick = -math.inf, trees.edge0[node]
    for j in range(k):
        score = improved[j] - trees.n[trees.edge0[node] + j] / share
        if score > best:
            best, pick = score, trees.edge0[node] + j
    return pick


@numba.njit(cache=True)
def _root_edge(trees, slots, settings, slot, node):
    """The edge the root follows (the root policy): PUCT on the noisy priors, or sequential halving."""
    if settings.root_policy == GUMBEL:
        return _best_considered(trees, slots, settings, slot, node, slots.schedule[slot, trees.visits[node] - 1])
    return _puct(trees, settings, node)


@numba.njit(cache=True)
def _interior_edge(trees, settings, node):
    """The edge any other decision node follows (the tree policy): PUCT, or Gumbel's deterministic choice."""
    if settings.root_policy == GUMBEL:
        return _gumbel_interior(trees, settings, node)
    return _puct(trees, settings, node)


@numba.njit(cache=True)
def _mix_noise(trees, slots, settings, slot):
    """The root's priors become ``(1 - f) P + f noise`` (``MCTS.search_steps``)."""
    root, f = slots.root[slot], settings.dirichlet_fraction
    for j in range(trees.edges[root]):
        e = trees.edge0[root] + j
        trees.prior[e] = (1 - f) * trees.prior[e] + f * slots.noise[slot, j]
    slots.noisy[slot] = False


# -- simulations ---------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _backup(trees, slots, slot, value0, value1):
    """Add one simulation's results (``value0`` for player 0, ``value1`` for player 1) along the slot's path."""
    for d in range(slots.depth[slot]):
        node, e = slots.path_node[slot, d], slots.path_edge[slot, d]
        trees.visits[node] += 1
        trees.n[e] += 1
        trees.w[e] += value0 if trees.player[node] == 0 else value1
    slots.done[slot] += 1


@numba.njit(cache=True)
def _simulate(trees, slots, settings, kind, size, table, slot, tables=None, scratch=None, logits=None, endgame=None,
              tak=None):
    """One simulation of ``slot``'s search, down from its root: the new leaf that awaits the network,
    or -1 when the simulation ended at a terminal node (then it is backed up here).

    With the pattern ``tables`` (Othello; ``scratch`` and ``logits`` their work arrays) a node gets its
    value when it is added and its edges (the children's priors) when a simulation first leaves it, so a
    leaf no simulation passes again costs its value alone; the search is the same as with both at once,
    and the new leaf comes back valued, to be backed up. Without them numba prunes those branches, and
    likewise the exact endgame's without ``endgame`` (``_settled``) and Tak's without ``tak``."""
    node, depth = slots.root[slot], 0
    while trees.result[node] < 0:
        if tables is not None and trees.edges[node] < 0:
            _node_priors(trees, node, size, table, tables, scratch, logits)
        e = _root_edge(trees, slots, settings, slot, node) if depth == 0 else _interior_edge(trees, settings, node)
        slots.path_node[slot, depth], slots.path_edge[slot, depth] = node, e
        depth += 1
        child = trees.child[e]
        if child < 0:
            child = trees.child[e] = _child(trees, kind, size, table, node, trees.action[e], endgame, tak)
            if trees.result[child] < 0:
                slots.depth[slot], slots.leaf[slot] = depth, child
                if tables is not None:
                    _node_value(trees, child, tables)
                return child
        node = child
    slots.depth[slot] = depth
    result = trees.result[node]
    value0 = 0.0 if result == DRAW else (1.0 if result == 0 else -1.0)
    _backup(trees, slots, slot, value0, -value0)
    return -1


@numba.njit(cache=True)
def _descend(trees, slots, settings, kind, size, table, x, endgame=None, tak=None):
    """One round's walk down every searching slot's tree: the encodings of the nodes that await the
    network go to ``x`` (float32 ``(B, encoding)``), their slots to ``slots.batch``; their number
    (``endgame``: ``_settled``; ``tak``: Tak's rules)."""
    m = 0
    for slot in range(len(slots.root)):
        if slots.phase[slot] == EVALUATE:
            node = slots.root[slot]
        elif slots.phase[slot] == SEARCH:
            if slots.noisy[slot]:
                _mix_noise(trees, slots, settings, slot)
            node = -1
            while node < 0 and slots.done[slot] < settings.simulations:
                node = _simulate(trees, slots, settings, kind, size, table, slot, endgame=endgame, tak=tak)
            if node < 0:
                slots.phase[slot] = CHOOSE
                continue
        else:
            continue
        _encode(kind, size, trees, node, x[m], tak)
        slots.batch[m] = slot
        m += 1
    return m


@numba.njit(cache=True)
def _expand(trees, slots, settings, kind, size, m, exp_logits, values, scratch, tak=None):
    """The network's answers for the round's batch: ``exp_logits`` float64 ``(m, A)``, ``values``
    float32 ``(m,)`` for the player to move. Each node gets its edges; a root starts its search, a
    leaf's value is backed up (the other player gets its negative)."""
    for j in range(m):
        slot = slots.batch[j]
        evaluating_root = slots.phase[slot] == EVALUATE
        node = slots.root[slot] if evaluating_root else slots.leaf[slot]
        _add_edges(trees, node, kind, size, exp_logits[j], scratch, tak)
        value = trees.value[node] = np.float64(values[j])
        if evaluating_root:
            slots.phase[slot] = SEARCH
            continue
        value0 = value if trees.player[node] == 0 else -value
        _backup(trees, slots, slot, value0, -value0)
        if slots.done[slot] == settings.simulations:
            slots.phase[slot] = CHOOSE


# -- pattern tables in the search -----------------------------------------------------------------------
@numba.njit(cache=True)
def _view(trees, node):
    """The discs of ``node``'s player to move and the opponent's (uint64)."""
    if trees.player[node] == 0:
        return trees.first[node], trees.second[node]
    return trees.second[node], trees.first[node]


@numba.njit(cache=True)
def _node_value(trees, node, tables):
    """The pattern tables' value of the Othello decision node ``node`` for its player to move (stored, returned)."""
    own, opp = _view(trees, node)
    value = trees.value[node] = ntuple_kernels.value(tables, own, opp)
    return value


@numba.njit(cache=True)
def _node_priors(trees, node, size, table, tables, scratch, logits):
    """Give ``node`` (valued) one edge per legal action, with the softmax of the tables' logits over them as
    prior (``Predictor``'s softmax renormalised over the legal actions, as ``MCTS`` makes it, to the last bits)."""
    k = othello_rules.legal_actions(size, trees.moves[node], trees.result[node], scratch)
    own, opp = _view(trees, node)
    ntuple_kernels.child_logits(tables, table, own, opp, scratch, k, logits)
    top = logits[0]
    for j in range(1, k):
        top = max(top, logits[j])
    e0 = trees.used[1]
    trees.used[1] += k
    total = 0.0
    for j in range(k):
        e = e0 + j
        trees.action[e] = scratch[j]
        trees.prior[e] = math.exp(logits[j] - top)
        total += trees.prior[e]
        trees.n[e], trees.w[e], trees.child[e] = 0, 0.0, -1
    for e in range(e0, e0 + k):
        trees.prior[e] /= total
    trees.edge0[node], trees.edges[node] = e0, k


@numba.njit(cache=True)
def _search_all(trees, slots, settings, size, table, tables, scratch, logits, endgame=None):
    """One round with the pattern tables: every slot that awaits its root's evaluation or searches runs its
    whole search (``_descend`` and ``_expand``'s steps, each leaf evaluated at once) and awaits its move
    (``endgame``: ``_settled``)."""
    for slot in range(len(slots.root)):
        if slots.phase[slot] == EVALUATE:
            root = slots.root[slot]
            _node_value(trees, root, tables)
            _node_priors(trees, root, size, table, tables, scratch, logits)
            slots.phase[slot] = SEARCH
        if slots.phase[slot] != SEARCH:
            continue
        if slots.noisy[slot]:
            _mix_noise(trees, slots, settings, slot)
        while slots.done[slot] < settings.simulations:
            leaf = _simulate(trees, slots, settings, OTHELLO, size, table, slot, tables, scratch, logits, endgame)
            if leaf >= 0:
                value0 = trees.value[leaf] if trees.player[leaf] == 0 else -trees.value[leaf]
                _backup(trees, slots, slot, value0, -value0)
        slots.phase[slot] = CHOOSE


@numba.njit(cache=True)
def _ready_roots(trees, slots, size, table, tables, finished, results, legal, scratch, logits):
    """After ``_advance`` with pattern tables: a kept subtree's root that no simulation left yet gets its
    edges now (its root noise needs them); ``legal[j]`` becomes their number."""
    for j in range(len(finished)):
        root = slots.root[finished[j]]
        if results[j] < 0 and slots.phase[finished[j]] == SEARCH and trees.edges[root] < 0:
            _node_priors(trees, root, size, table, tables, scratch, logits)
            legal[j] = trees.edges[root]


# -- between moves -------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _set_root(trees, slots, kind, size, slot, node, scratch, tak=None):
    """A new tree for ``slot`` at the new ``node`` (a decision state); the number of its legal actions."""
    slots.root[slot] = node
    slots.phase[slot], slots.done[slot], slots.noisy[slot] = EVALUATE, 0, False
    return _legal_actions(kind, size, trees, node, scratch, tak)


@numba.njit(cache=True)
def _collect(trees, slots, settings, kind, size, finished, visits, policy, actions, x, movers, tak=None):
    """For each slot of ``finished``: the root's visit counts into ``visits`` (int64 ``(F, A)``, zeros
    elsewhere), its encoding into ``x`` and the player to move into ``movers``; with the Gumbel root
    policy also the improved policy into ``policy`` (float64 ``(F, A)``) and the search's choice into
    ``actions`` (the best considered action among the most visited)."""
    for j in range(len(finished)):
        slot = finished[j]
        root, most = slots.root[slot], 0
        for e in range(trees.edge0[root], trees.edge0[root] + trees.edges[root]):
            visits[j, trees.action[e]] = trees.n[e]
            most = max(most, trees.n[e])
        _encode(kind, size, trees, root, x[j], tak)
        movers[j] = trees.player[root]
        if settings.root_policy == GUMBEL:
            improved = np.empty(trees.edges[root])
            _improved_policy(trees, settings, root, improved)
            for i in range(trees.edges[root]):
                policy[j, trees.action[trees.edge0[root] + i]] = improved[i]
            actions[j] = trees.action[_best_considered(trees, slots, settings, slot, root, most)]


@numba.njit(cache=True)
def _advance(trees, slots, kind, size, table, finished, actions, reuse, results, legal, scratch, endgame=None,
             tak=None):
    """Play ``actions[j]`` in slot ``finished[j]``. The slot keeps the child's subtree with ``reuse``
    (``MCTS.advance``), else starts a new tree there; a game that ends leaves the slot idle. Writes the
    new position's result code (-1: the game goes on; with ``endgame`` a position it solves ends the game
    with its exact result, ``_settled``, as its node in the tree did) to ``results`` and its legal
    actions' number to ``legal``."""
    for j in range(len(finished)):
        slot, root = finished[j], slots.root[finished[j]]
        child = -1
        for e in range(trees.edge0[root], trees.edge0[root] + trees.edges[root]):
            if trees.action[e] == actions[j]:
                child = trees.child[e]
        if reuse and child >= 0:
            results[j] = trees.result[child]
            legal[j] = trees.edges[child]
            slots.root[slot], slots.phase[slot], slots.done[slot], slots.noisy[slot] = child, SEARCH, 0, False
        else:
            child = _child(trees, kind, size, table, root, actions[j], endgame, tak)
            results[j] = trees.result[child]
            if results[j] < 0:
                legal[j] = _set_root(trees, slots, kind, size, slot, child, scratch, tak)
        if results[j] >= 0:
            slots.root[slot], slots.phase[slot] = -1, IDLE


@numba.njit(cache=True)
def _live(trees, slots):
    """Which nodes a root still reaches (bool ``(used nodes,)``), in one forward scan (a child's index
    exceeds its parent's); and how many nodes and edges that is."""
    keep = np.zeros(trees.used[0], dtype=np.bool_)
    for root in slots.root:
        if root >= 0:
            keep[root] = True
    nodes = edges = 0
    for node in range(trees.used[0]):
        if keep[node]:
            nodes += 1
            for e in range(trees.edge0[node], trees.edge0[node] + max(trees.edges[node], 0)):
                edges += 1
                if trees.child[e] >= 0:
                    keep[trees.child[e]] = True
    return keep, nodes, edges


@numba.njit(cache=True)
def _copy_live(old, new, keep, slots):
    """Copy the nodes of ``keep`` and their edges from ``old`` into the empty ``new``, in order, and
    renumber the children and the slots' roots."""
    index = np.full(len(keep), -1)
    count = 0
    for node in range(len(keep)):
        if keep[node]:
            index[node] = count
            count += 1
    for node in range(len(keep)):
        if not keep[node]:
            continue
        to = new.used[0]
        new.used[0] += 1
        new.first[to], new.second[to], new.moves[to] = old.first[node], old.second[node], old.moves[node]
        new.player[to], new.result[to], new.visits[to] = old.player[node], old.result[node], old.visits[node]
        new.value[to] = old.value[node]
        new.board[to] = old.board[node]
        new.edges[to], new.edge0[to] = old.edges[node], -1
        if old.edges[node] > 0:
            new.edge0[to] = new.used[1]
            for e in range(old.edge0[node], old.edge0[node] + old.edges[node]):
                f = new.used[1]
                new.used[1] += 1
                new.action[f], new.prior[f], new.n[f], new.w[f] = old.action[e], old.prior[e], old.n[e], old.w[e]
                new.child[f] = index[old.child[e]] if old.child[e] >= 0 else -1
    for slot in range(len(slots.root)):
        if slots.root[slot] >= 0:
            slots.root[slot] = index[slots.root[slot]]


# -- the driver ----------------------------------------------------------------------------------------
class Searched(NamedTuple):
    """What the finished searches of a round found (``MCTS.search``'s ``SearchResult``), one row each.

    Attributes:
        visits: int64 ``(F, A)``: ``N(root, a)``. policy: float64 ``(F, A)``: the search policy (the visit
            distribution at temperature 1, or Gumbel's improved policy). action: int64 ``(F,)``: the
            search's move (the most visited, or Gumbel's choice). x: float32 ``(F, *encoding_shape)``: the
            roots' encodings. player: int64 ``(F,)``: the player to move there.
    """

    visits: np.ndarray
    policy: np.ndarray
    action: np.ndarray
    x: np.ndarray
    player: np.ndarray


class Lockstep:
    """Up to ``slots`` searches of one game in lockstep (see the module docstring).

    Args:
        rules: ``rules_for(game)``.
        config: the search's ``MCTSConfig``; what it cannot do is refused (``refuse_unsupported``).
        slots: searches at once, the rows of a network batch.
        tables: None (``step`` calls a ``forward_many``), or an ``ntuple.kernels.Tables`` of the game's
            board: ``step`` evaluates every leaf with it in compiled code (Othello only).
        endgame_empties: 0, or (Othello) every position the search adds or a game reaches with at most this
            many empty squares is solved and is a terminal with its exact result (see the module docstring).
    Raises:
        ConfigError: pattern tables for another game or board size; an endgame for Hex or out of range.
    """

    def __init__(self, rules: Rules, config: MCTSConfig, slots: int, tables: ntuple_kernels.Tables | None = None,
                 endgame_empties: int = 0):
        refuse_unsupported(config)
        if tables is not None and (rules.kind != OTHELLO or tables.layout.size != rules.size):
            raise ConfigError(f"pattern tables of a {tables.layout.size} x {tables.layout.size} Othello board "
                              "cannot evaluate this game: network = \"ntuple\" is for Othello")
        refuse_endgame(rules, endgame_empties)
        self.tables = tables
        self.rules, self.config, self.gumbel = rules, config, config.root_policy == "gumbel"
        self.settings = Settings(config.simulations, config.c_base, config.c_init, config.unvisited_value,
                                 config.dirichlet_fraction, GUMBEL if self.gumbel else PUCT, config.c_visit,
                                 config.c_scale, rules.actions, COMPENSATED_SUM)
        self.endgame = np.int64(endgame_empties) if endgame_empties else None  # _settled's argument
        self.reserve = (slots * (config.simulations + 2), slots * rules.actions)  # a round's most new nodes, edges
        if tables is not None:  # a round is every slot's whole search
            self.reserve = (self.reserve[0], slots * (config.simulations + 1) * rules.actions)
            self.logits = np.zeros(rules.actions)
        self.trees = empty_trees(4 * self.reserve[0], 4 * self.reserve[1], rules.width)
        i64 = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
        self.slots = Slots(np.full(slots, -1), np.full(slots, IDLE), i64(slots), np.zeros((slots, rules.actions)),
                           np.zeros(slots, np.bool_), i64(slots, config.simulations), i64(slots),
                           i64(slots, rules.depth), i64(slots, rules.depth), i64(slots), i64(slots))
        self.rngs: list = [None] * slots
        self.x = np.zeros((slots, rules.encoding), np.float32)
        self.scratch = i64(rules.actions)

    def start(self, slot: int, state, rng: np.random.Generator) -> None:
        """A new search tree in ``slot`` at the decision state ``state``; ``rng`` draws its noise."""
        self.rngs[slot] = rng
        r = self.rules
        first, second, moves, player, result = r.words(state)
        node = _new_node(self.trees, np.uint64(first), np.uint64(second), np.uint64(moves), player, result)
        self.trees.board[node] = r.board(state)
        legal = _set_root(self.trees, self.slots, r.kind, r.size, slot, node, self.scratch, r.tak)
        self._draw_noise(slot, legal)

    def _draw_noise(self, slot: int, legal: int) -> None:
        """The root noise of the slot's next search over its ``legal`` actions, from its generator, as
        ``MCTS.search_steps`` draws it: ``Dirichlet(alpha)`` (PUCT, alpha > 0), or Gumbel noise and the
        sequential-halving schedule (Gumbel)."""
        c = self.config
        if self.gumbel:
            noise = self.rngs[slot].gumbel(size=legal) if c.gumbel_scale > 0 else np.zeros(legal)
            self.slots.noise[slot, :legal] = c.gumbel_scale * noise
            self.slots.schedule[slot] = considered_visits(min(c.max_considered_actions, legal), c.simulations)
        elif c.dirichlet_alpha > 0:
            self.slots.noise[slot, :legal] = self.rngs[slot].dirichlet(np.full(legal, c.dirichlet_alpha))
            self.slots.noisy[slot] = True

    def step(self, forward_many: Callable | None = None) -> np.ndarray:
        """One round: every searching slot walks to its next leaf, the leaves go to ``forward_many``
        (float32 ``(m, *encoding_shape)`` -> logits ``(m, A)``, values ``(m,)``) in one call, the results go
        back up; with the Lockstep's ``tables`` (``forward_many`` unused) every search runs to its end in
        compiled code. Returns the slots whose search has finished (int64), their move to be chosen."""
        self._make_room()
        r, trees, slots = self.rules, self.trees, self.slots
        if self.tables is not None:
            _search_all(trees, slots, self.settings, r.size, r.table, self.tables, self.scratch, self.logits,
                        self.endgame)
            return np.flatnonzero(slots.phase == CHOOSE)
        m = _descend(trees, slots, self.settings, r.kind, r.size, r.table, self.x, self.endgame, r.tak)
        if m:
            logits, values = forward_many(self.x[:m].reshape(m, *r.shape))
            logits = np.asarray(logits)
            exp_logits = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
            _expand(trees, slots, self.settings, r.kind, r.size, m, exp_logits, np.asarray(values, np.float32),
                    self.scratch, r.tak)
        return np.flatnonzero(slots.phase == CHOOSE)

    def results(self, finished: np.ndarray) -> Searched:
        """What the searches of the ``finished`` slots found."""
        r, count = self.rules, len(finished)
        visits, policy = np.zeros((count, r.actions), np.int64), np.zeros((count, r.actions))
        actions, movers = np.zeros(count, np.int64), np.zeros(count, np.int64)
        x = np.zeros((count, r.encoding), np.float32)
        _collect(self.trees, self.slots, self.settings, r.kind, r.size, finished, visits, policy, actions, x, movers,
                 r.tak)
        if not self.gumbel:
            for j in range(count):
                policy[j], actions[j] = visit_distribution(visits[j], 1.0), np.argmax(visits[j])
        return Searched(visits, policy, actions, x.reshape(count, *r.shape), movers)

    def advance(self, finished: np.ndarray, actions: np.ndarray, reuse: bool) -> np.ndarray:
        """Play ``actions`` (int64 ``(F,)``) in the ``finished`` slots and start their next searches
        (the chosen child's subtree kept with ``reuse``, never by a Gumbel search); int64 ``(F,)``: the
        result code of each new position, -1 where the game goes on (a slot whose game ended is idle)."""
        r = self.rules
        results, legal = np.full(len(finished), -1), np.zeros(len(finished), np.int64)
        _advance(self.trees, self.slots, r.kind, r.size, r.table, finished, actions, reuse and not self.gumbel,
                 results, legal, self.scratch, self.endgame, r.tak)
        if self.tables is not None:
            _ready_roots(self.trees, self.slots, r.size, r.table, self.tables, finished, results, legal, self.scratch,
                         self.logits)
        for slot, result, count in zip(finished.tolist(), results.tolist(), legal.tolist()):
            if result < 0:
                self._draw_noise(slot, count)
        return results

    def _make_room(self) -> None:
        """Before a round: if the pools might overflow, keep only what the roots reach, in pools grown
        to at least twice what is kept plus a round's worth."""
        trees, (nodes, edges) = self.trees, self.reserve
        if trees.used[0] + nodes <= len(trees.visits) and trees.used[1] + edges <= len(trees.action):
            return
        keep, live_nodes, live_edges = _live(trees, self.slots)
        new = empty_trees(max(len(trees.visits), 2 * (live_nodes + nodes)),
                          max(len(trees.action), 2 * (live_edges + edges)), self.rules.width)
        _copy_live(trees, new, keep, self.slots)
        self.trees = new


def returns_of(result: int) -> np.ndarray:
    """float64 ``(2,)``: the players' returns for a result code, as the games give them (a draw: 0 and -0)."""
    value = 0.0 if result == DRAW else (1.0 if result == 0 else -1.0)
    return np.array([value, -value])


def play_games(game, forward_many: Callable, config: MCTSConfig, temperature_moves: int, rngs: list,
               reuse_tree: bool = True, batch: int = 64, endgame_empties: int = 0) -> list[SelfPlayGame]:
    """``len(rngs)`` self-play games of Othello, Hex or Tak, game ``i`` drawing from ``rngs[i]``, at most
    ``batch`` at once: the games ``selfplay.play_games`` plays with ``MCTS(game, evaluator, config, rng)``
    and a network evaluator of ``forward_many`` (see the module docstring).

    Each move: ``pi`` is the search policy. With PUCT it is the visit distribution, and the move is
    drawn from it with the game's generator for the first ``temperature_moves`` moves and is the most
    visited action afterwards; with the Gumbel root policy it is the improved policy, and the move is
    the search's own choice.

    Args:
        forward_many: float32 ``(m, *encoding_shape)`` -> (logits ``(m, A)``, values ``(m,)``), e.g.
            ``NumpyNet.forward`` or ``Predictor.forward_many``; or an ``ntuple.kernels.Tables`` (Othello), whose
            evaluations stay in compiled code (``Lockstep``'s ``tables``).
        endgame_empties: 0, or (Othello) a game ends at its first position with at most this many empty squares,
            with that position's exact result (win/draw/loss with perfect play) as the game's; its records stop
            there, and the searches before it see such positions as terminals (see the module docstring).

    Returns:
        One ``SelfPlayGame`` per generator, in order.

    Raises:
        ConfigError: the game is neither Othello nor Hex (or pattern tables for another game, or an endgame for
            Hex).
    """
    rules = rules_for(game)
    tables = forward_many if isinstance(forward_many, ntuple_kernels.Tables) else None
    lock = Lockstep(rules, config, min(batch, len(rngs)), tables, endgame_empties)
    records = [([], [], []) for _ in rngs]  # xs, pis, movers of each game
    played: list = [None] * len(rngs)
    playing = np.full(len(lock.slots.root), -1)  # the game in each slot
    waiting = iter(range(len(rngs)))

    def refill(slot: int) -> None:
        index = next(waiting, -1)
        playing[slot] = index
        if index >= 0:
            lock.start(slot, game.initial_state(rngs[index]), rngs[index])

    for slot in range(len(playing)):
        refill(slot)
    while (playing >= 0).any():
        finished = lock.step(forward_many)
        if not len(finished):
            continue
        found = lock.results(finished)
        actions = found.action.copy()
        for j, slot in enumerate(finished.tolist()):
            xs, pis, players = records[playing[slot]]
            xs.append(found.x[j])
            pis.append(found.policy[j])
            players.append(found.player[j])
            if not lock.gumbel and len(players) <= temperature_moves:
                actions[j] = rngs[playing[slot]].choice(rules.actions, p=found.policy[j])
        for slot, result in zip(finished.tolist(), lock.advance(finished, actions, reuse_tree).tolist()):
            if result >= 0:
                xs, pis, players = records[playing[slot]]
                returns = returns_of(result)
                played[playing[slot]] = SelfPlayGame(np.asarray(xs, np.float32), np.asarray(pis, np.float32),
                                                     returns[np.asarray(players, np.int64)].astype(np.float32), returns,
                                                     np.ones(len(players), np.float32))
                refill(slot)
    return played
