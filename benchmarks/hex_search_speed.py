"""Simulations per second on Hex with random rollouts, one core: the generic MCTS against a plain-Python UCT.

    python benchmarks/hex_search_speed.py [--simulations 500] [--episodes 3] [--seconds 3]

For 5x5 and 7x7, searches of ``--simulations`` from the empty board, repeated with new seeds for at
least ``--seconds`` of CPU time each, give simulations per second for

* the generic MCTS (``azcourse.core.mcts``) with ``RolloutEvaluator(random_policy)``, which uses the
  game's optional ``random_playout`` (Hex fills the board at random and checks for a chain once);
* the same search with ``playout=False``: move-by-move rollouts through the protocol only
  (``legal_mask`` and ``next_state`` at every step), the path of a game without ``random_playout``;
* ``plain_uct`` below: a hand-written UCT for Hex alone, lists and the ``random`` module only, with
  the same tree policy (untried moves first in a random order, then ``Q + c sqrt(ln N(s) / N(s, a))``)
  and the same fill-the-board rollout;

and the ratio of the first to the last. Then the time of whole self-play episodes with the generic
MCTS (``--simulations`` per actual move, the chosen move's subtree kept, as in the on-policy
pseudocode), projected to the Hex assignment's 200 episodes. Times are the process's CPU time
(``time.process_time``), so other work on a shared machine slows the figures less than it would
wall-clock ones; the load average is printed with them.
"""
import argparse
import math
import os
import random
import time

import numpy as np

from azcourse.core.evaluators import RolloutEvaluator
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.hex.game import Hex, neighbours


def plain_uct(size: int, simulations: int, seed: int, c: float = math.sqrt(2)) -> list[int]:
    """A plain-Python UCT search of ``simulations`` from the empty ``size`` x ``size`` board (X to
    move); returns the root's visit count per cell, row by row. Written for Hex only: a node is a
    list ``[cells, player, winner, moves, untried, n, w, children, visits]``."""
    cells_count = size * size
    around = [[r * size + c_ for r, c_ in neighbours(size, i // size, i % size)] for i in range(cells_count)]
    rand = random.Random(seed)

    def joins(cells: bytearray, start: int, stone: int) -> bool:
        """Whether the group of ``stone`` through ``start`` joins its owner's sides (X rows, O columns)."""
        axis = (lambda i: i // size) if stone == 1 else (lambda i: i % size)
        stack, seen, ends = [start], {start}, 0
        while stack:
            i = stack.pop()
            ends |= (axis(i) == 0) | 2 * (axis(i) == size - 1)
            for j in around[i]:
                if cells[j] == stone and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return ends == 3

    def node(cells: bytes, player: int, winner: int) -> list:
        moves = [i for i in range(cells_count) if not cells[i]] if winner < 0 else []
        untried = list(range(len(moves)))
        rand.shuffle(untried)
        k = len(moves)
        return [cells, player, winner, moves, untried, [0] * k, [0.0] * k, [None] * k, 1]

    def rollout(cells: bytes, player: int) -> int:
        """The winner (0 = X) of a random filling of the empty cells, ``player`` first."""
        board = bytearray(cells)
        empty = [i for i in range(cells_count) if not board[i]]
        rand.shuffle(empty)
        stone = player + 1
        for i in empty:
            board[i] = stone
            stone ^= 3
        stack = [i for i in range(size) if board[i] == 1]
        for i in stack:
            board[i] = 3
        while stack:
            i = stack.pop()
            if i >= cells_count - size:
                return 0
            for j in around[i]:
                if board[j] == 1:
                    board[j] = 3
                    stack.append(j)
        return 1

    root = node(bytes(cells_count), 0, -1)
    for _ in range(simulations):
        current, path = root, []
        while True:
            cells, player, winner, moves, untried, n, w, children, visits = current
            if winner >= 0:
                result = winner
                break
            if untried:
                i = untried.pop()
                board = bytearray(cells)
                board[moves[i]] = player + 1
                child = node(bytes(board), 1 - player,
                             player if joins(board, moves[i], player + 1) else -1)
                children[i] = child
                path.append((current, i))
                result = child[2] if child[2] >= 0 else rollout(child[0], child[1])
                break
            log_visits, best = math.log(visits), -math.inf
            for a, count in enumerate(n):
                score = w[a] / count + c * math.sqrt(log_visits / count)
                if score > best:
                    best, i = score, a
            path.append((current, i))
            current = children[i]
        for visited, i in path:
            visited[8] += 1
            visited[5][i] += 1
            visited[6][i] += 1.0 if result == visited[1] else -1.0
    visits = [0] * cells_count
    for move, count in zip(root[3], root[5]):
        visits[move] = count
    return visits


def rate(search, simulations: int, seconds: float) -> float:
    """Simulations per CPU second of ``search(seed)`` (one search of ``simulations``) over new seeds."""
    done, seed, start = 0, 0, time.process_time()
    while time.process_time() - start < seconds:
        search(seed)
        done, seed = done + simulations, seed + 1
    return done / (time.process_time() - start)


def episode(size: int, simulations: int, seed: int) -> tuple[float, int]:
    """One self-play game with the generic MCTS: (CPU seconds, actual moves)."""
    game = Hex(size)
    mcts = MCTS(game, config=MCTSConfig(simulations=simulations), rng=seed)
    state, moves, start = game.initial_state(), 0, time.process_time()
    while not game.is_terminal(state):
        action = int(np.argmax(mcts.search(state).visits))
        mcts.advance(action)
        state = game.next_state(state, action)
        moves += 1
    return time.process_time() - start, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=500)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per figure (default 3)")
    args = parser.parse_args()
    sims = args.simulations
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {sims} simulations per search, "
          "random rollouts, one process")
    for size in (5, 7):
        game = Hex(size)
        config = MCTSConfig(simulations=sims)
        generic = rate(lambda s: MCTS(game, RolloutEvaluator(), config, s).search(game.initial_state()),
                       sims, args.seconds)
        stepwise = rate(lambda s: MCTS(game, RolloutEvaluator(playout=False), config, s).search(
            game.initial_state()), sims, args.seconds)
        plain = rate(lambda s: plain_uct(size, sims, s), sims, args.seconds)
        print(f"Hex {size}x{size}: generic MCTS {generic:9,.0f} simulations/s | plain-Python UCT {plain:9,.0f} "
              f"simulations/s | ratio {generic / plain:.2f} | generic MCTS, move-by-move rollouts "
              f"{stepwise:,.0f} simulations/s")
        runs = [episode(size, sims, seed) for seed in range(args.episodes)]
        seconds = sum(t for t, _ in runs) / len(runs)
        moves = sum(m for _, m in runs) / len(runs)
        print(f"    self-play episode with {sims} simulations per move: {seconds:.2f} s ({moves:.0f} moves), "
              f"200 episodes ~ {200 * seconds / 60:.1f} min")


if __name__ == "__main__":
    main()
