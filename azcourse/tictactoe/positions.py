"""Every position reachable in play, found by breadth-first search over the rules."""
import numpy as np

from .rules import GameRules, board_key


def reachable_positions(rules: GameRules, start: np.ndarray) -> list[np.ndarray]:
    """All boards reachable from `start` (included), each seen from its player to move.

    Args:
        rules: the game interface.
        start: int array of shape (9,), a board seen from the player to move.

    Returns:
        A list of int8 arrays of shape (9,), in breadth-first order, terminal boards
        included and no board twice. From the empty board there are 5478.
    """
    start = np.asarray(start, dtype=np.int8)
    seen = {board_key(start)}
    frontier = [start]
    found = [start]
    while frontier:
        next_frontier = []
        for board in frontier:
            if rules.reward(board)[1]:
                continue
            for action in np.flatnonzero(rules.valid_mask(board)):
                child = np.asarray(rules.play(board, int(action)), dtype=np.int8)
                key = board_key(child)
                if key not in seen:
                    seen.add(key)
                    next_frontier.append(child)
                    found.append(child)
        frontier = next_frontier
    return found
