"""The classical Tak yardstick (``azcourse.tak.yardstick``): its alpha-beta against plain minimax, its road
threats against the rules, its choices in hand-made positions, and its names in the registry."""
from __future__ import annotations

import functools
import heapq

import numpy as np
import pytest

from azcourse.core.agents import RandomAgent
from azcourse.core.arena import play_match
from azcourse.registry import make_classical
from azcourse.tak import compiled, yardstick
from azcourse.tak.agents import make_opponent
from azcourse.tak.game import Tak
from azcourse.tak.yardstick import TIE, WEIGHTS, WIN, ClassicalAgent


def positions(game, count, seed, plies=(4, 14)):
    """``count`` unfinished positions of random games (half the moves stack moves where there are any)."""
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(*plies))):
            actions = game.legal_actions(state)
            movers = [a for a in actions if a >= game.placements]
            pool = movers if movers and rng.random() < 0.5 else actions
            state = game.next_state(state, pool[int(rng.integers(len(pool)))])
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            found.append(state)
    return found


def minimax(r, s, level, stop):
    """The yardstick's value of ``s`` without pruning (negamax over every child, to level ``stop``)."""
    if level == stop or s[3 * r.squares + compiled.WINNER] != -1:
        return yardstick.horizon(r, WEIGHTS, s, level)
    out = np.empty(r.actions, np.int64)
    k = compiled.legal_actions(r, s, out)
    return max(-minimax(r, compiled.next_state(r, s, a), level + 1, stop) for a in out[:k])


@pytest.mark.parametrize("size, depth, count", [(3, 3, 2), (4, 2, 4), (5, 2, 3)])
def test_alpha_beta_finds_minimax_values_and_every_tie(size, depth, count):
    """The root's best value is minimax's, and the actions the agent counts as tied for it are exactly
    minimax's best actions (or, where a move wins at once, the agent's move wins at once)."""
    game = Tak(size)
    agent = ClassicalAgent(game, depth)
    r = agent.rules
    for state in positions(game, count, seed=size):
        s = compiled.state_array(game, state)
        action = agent.choose(state)
        k = compiled.legal_actions(r, s, agent._actions)
        exact = np.array([-minimax(r, compiled.next_state(r, s, a), 1, depth) for a in agent._actions[:k]])
        assert agent.value == exact.max()
        if agent.value == WIN - 1:
            assert game.next_state(state, action).winner == state.ply % 2
            continue
        tied = agent._actions[:k][agent._values[:k] > agent.value - TIE]
        assert tied.tolist() == agent._actions[:k][exact == exact.max()].tolist()
        assert action == tied[0]


def test_a_win_in_one_at_the_horizon_is_exactly_a_winning_placement():
    """``horizon`` scores a position as won one ply later exactly when some placement completes the mover's
    road (the road distance is 1 exactly then; a placement that wins on flats is no such win)."""
    seen = set()
    for size in (3, 4, 5):
        game = Tak(size)
        r = compiled.rules(game)
        for state in positions(game, 60, seed=10 + size, plies=(6, 30)):
            placed = [game.next_state(state, a) for a in game.legal_actions(state) if a < game.placements]
            wins = any(after.winner == state.ply % 2 and game.end_reason(after) == "road" for after in placed)
            found = yardstick.horizon(r, WEIGHTS, compiled.state_array(game, state), 0) == WIN - 1
            assert found == wins, game.render(state)
            seen.add(wins)
    assert seen == {True, False}


def dijkstra_distance(game, state, colour):
    """The road distance of the yardstick's docstring, by Dijkstra's algorithm over the squares (heapq)."""
    n = game.size

    def cost(stack):
        if not stack:
            return 1
        if stack[-1] & 1 == colour:
            return None if stack[-1] >> 1 == 1 else 0
        return 2 if stack[-1] >> 1 == 0 else None

    best = yardstick.BLOCKED
    edges = (([r * n for r in range(n)], lambda q: q % n == n - 1), (list(range(n)), lambda q: q >= n * n - n))
    for starts, goal in edges:
        done, heap = set(), [(cost(state.board[q]), q) for q in starts if cost(state.board[q]) is not None]
        heapq.heapify(heap)
        while heap:
            d, q = heapq.heappop(heap)
            if q in done:
                continue
            done.add(q)
            if goal(q):
                best = min(best, d)
                break
            rank, file = divmod(q, n)
            for dr, df in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= rank + dr < n and 0 <= file + df < n:
                    p = (rank + dr) * n + file + df
                    if p not in done and cost(state.board[p]) is not None:
                        heapq.heappush(heap, (d + cost(state.board[p]), p))
    return best


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_the_road_distance_is_dijkstras(size):
    game = Tak(size)
    r, seen = compiled.rules(game), set()
    for state in positions(game, 40, seed=20 + size, plies=(2, 60)):
        road0, road1, flat0, flat1, empty = yardstick.masks(r, compiled.state_array(game, state))
        found = [yardstick.road_distance(r, road0, empty, flat1), yardstick.road_distance(r, road1, empty, flat0)]
        assert found == [dijkstra_distance(game, state, c) for c in (0, 1)], game.render(state)
        seen.update(found)
    assert len(seen) >= 3, seen  # varied positions (distance 1 is the test above's)


def play_ptn(game, moves):
    state = game.initial_state()
    for text in moves.split():
        state = game.next_state(state, game.parse_action(state, text))
    return state


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_it_completes_its_road(depth):
    game = Tak(4)
    state = play_ptn(game, "d4 a1 b1 c4 c1 b4")  # White a1 b1 c1, Black b4 c4 d4; White to move
    after = game.next_state(state, ClassicalAgent(game, depth).choose(state))
    assert after.winner == 0 and game.end_reason(after) == "road"


@pytest.mark.parametrize("depth", [2, 3])
def test_it_blocks_a_road_threat(depth):
    game = Tak(4)
    state = play_ptn(game, "d4 a1 b1 c4 a3 b4")  # White a1 b1 a3, Black b4 c4 d4 threatens a4; White to move
    after = game.next_state(state, ClassicalAgent(game, depth).choose(state))
    assert not any(game.next_state(after, a).winner == 1 for a in game.legal_actions(after))


def test_ties_are_broken_by_the_lowest_action_or_by_the_generator():
    game = Tak(5)
    state = game.initial_state()  # every corner is alike: ties
    assert ClassicalAgent(game, 2).choose(state) == ClassicalAgent(game, 2).choose(state)
    drawn = [ClassicalAgent(game, 2, np.random.default_rng(seed)).choose(state) for seed in range(8)]
    assert drawn == [ClassicalAgent(game, 2, np.random.default_rng(seed)).choose(state) for seed in range(8)]
    assert len(set(drawn)) > 1


def test_it_beats_random_play():
    summary = play_match(functools.partial(Tak, 4), functools.partial(make_classical, "classical:2", "tak4"),
                         lambda rng: RandomAgent(Tak(4), rng), games=4, seed=3, progress=False)
    assert summary.wins == 4, summary


def test_its_names_and_refusals():
    game = Tak(5)
    agent = make_classical("classical:3", "tak5", np.random.default_rng(0))
    assert isinstance(agent, ClassicalAgent) and agent.depth == 3 and agent.name == "classical:3"
    assert make_opponent("classical:4", game, np.random.default_rng(0)).depth == 4
    for spec in ("classical", "classical:0", "classical:x", "alphabeta:3"):
        with pytest.raises(ValueError, match="named classical:<depth>"):
            make_classical(spec, "tak5")
    with pytest.raises(ValueError, match="no classical yardstick for hex5"):
        make_classical("classical:2", "hex5")
    with pytest.raises(ValueError, match="at least 1 ply"):
        ClassicalAgent(game, 0)
    with pytest.raises(TypeError, match="plays Tak, not hex5"):
        from azcourse.hex.game import Hex
        ClassicalAgent(Hex(5), 2)
    with pytest.raises(ValueError, match="the game is over"):
        ClassicalAgent(Tak(4), 1).choose(play_ptn(Tak(4), "d4 a1 b1 c4 c1 b4 d1"))
