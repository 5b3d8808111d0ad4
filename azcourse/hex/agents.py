"""The alpha-beta yardstick's evaluation for Hex: shortest connecting paths.

``evaluate`` is the static evaluation of ``azcourse.core.alphabeta`` (named ``alphabeta:<depth>`` by
``azcourse.registry.make_alphabeta``). A player's *distance* is the fewest empty cells it must still
fill to join its two sides, its own stones free and the opponent's impassable (a 0-1 breadth-first
search over the cells); the evaluation is the opponent's distance minus the player's.
"""
from __future__ import annotations

import collections
import functools

from .game import Hex, HexState, neighbours

CENTRE_WEIGHT = 0.01  # the tie-break's share of the evaluation's range


@functools.lru_cache(maxsize=None)
def board_tables(size: int) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """``(neighbours, centrality)`` of a ``size`` board: cell ``i``'s neighbouring cells, and its
    closeness to the centre in [0, 1] (1 at the centre, 0 at the farthest corner)."""
    adjacent = tuple(tuple(r * size + c for r, c in neighbours(size, i // size, i % size)) for i in range(size * size))
    middle = (size - 1) / 2
    far = 2 * middle or 1.0
    centrality = tuple(1 - (abs(i // size - middle) + abs(i % size - middle)) / far for i in range(size * size))
    return adjacent, centrality


def distance(game: Hex, cells: bytes, player: int) -> int:
    """The fewest empty cells ``player`` (0 joins the first and last rows, 1 the first and last
    columns) must fill to join its sides on ``cells``; 0 when joined, ``n * n + 1`` when the
    opponent's stones cut every path."""
    n, stone = game.size, player + 1
    adjacent, _ = board_tables(n)
    starts = range(n) if player == 0 else range(0, n * n, n)
    at_goal = (lambda i: i >= n * (n - 1)) if player == 0 else (lambda i: i % n == n - 1)
    unreached = n * n + 1
    cost = [unreached] * (n * n)
    queue = collections.deque()
    for i in starts:
        if cells[i] in (0, stone):
            cost[i] = int(cells[i] == 0)
            (queue.appendleft if cost[i] == 0 else queue.append)(i)
    while queue:
        i = queue.popleft()
        if at_goal(i):
            return cost[i]  # a 0-1 BFS takes cells in order of cost: the first goal cell is the nearest
        for j in adjacent[i]:
            if cells[j] == 0 and cost[i] + 1 < cost[j]:
                cost[j] = cost[i] + 1
                queue.append(j)
            elif cells[j] == stone and cost[i] < cost[j]:
                cost[j] = cost[i]
                queue.appendleft(j)
    return unreached


def evaluate(game: Hex, state: HexState, player: int) -> float:
    """What ``state`` (not finished) is worth to ``player`` in [-1, 1].

    ``0.99 * (d' - d) / n + 0.01 * (z - z') / n^2``: ``d, d'`` the distances (``distance``) of
    ``player`` and of the opponent, both from 1 to ``n`` before the end; ``z, z'`` the summed
    centrality of each side's stones, a tie-break so that equal distances favour the centre (every
    first move shortens the mover's distance by one and leaves the opponent's). Zero-sum.
    """
    n, cells = game.size, state.cells
    _, centrality = board_tables(n)
    gap = (distance(game, cells, 1 - player) - distance(game, cells, player)) / n
    stone = player + 1
    centre = sum(centrality[i] if cells[i] == stone else -centrality[i] for i in range(n * n) if cells[i]) / (n * n)
    return (1 - CENTRE_WEIGHT) * gap + CENTRE_WEIGHT * centre
