"""The exact Othello endgame (``azcourse.othello.endgame``) against plain minimax over ``game.py``'s rules,
and the classical yardstick (``azcourse.othello.yardstick``): its evaluation's terms on a hand-made board,
its endgame, and its strength against random play and the old ``alphabeta:2``."""
import functools
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from azcourse.alphazero.agent import AlphaZeroAgent
from azcourse.alphazero.checkpoints import play_simulations
from azcourse.core.agents import RandomAgent
from azcourse.core.arena import play_game, play_match
from azcourse.core.mcts import MCTSConfig
from azcourse.othello import endgame
from azcourse.othello.agents import make_opponent
from azcourse.othello.compiled import table
from azcourse.othello.game import Othello
from azcourse.othello.yardstick import DEFAULT_DEPTH, TERMS, WEIGHTS, ClassicalAgent, evaluate, geometry, terms
from azcourse.registry import make_alphabeta, make_classical, make_game

ROOT = Path(__file__).resolve().parents[1]


class Reference:
    """Plain minimax over ``Othello``'s own rules: the mover's final disc margin with perfect play, each
    position's value kept by its ``state_key``; ``passes`` counts the passes met in the trees searched."""

    def __init__(self, game):
        self.game, self.values, self.passes = game, {}, 0

    def margin(self, state) -> int:
        game, key = self.game, self.game.state_key(state)
        if key not in self.values:
            if state.over:
                black, white = game.scores(state)
                self.values[key] = black - white if state.player == 0 else white - black
            else:
                self.values[key] = max(self.after(state, int(a)) for a in np.flatnonzero(game.legal_mask(state)))
        return self.values[key]

    def after(self, state, action: int) -> int:
        """The margin for ``state``'s mover once ``action`` is played."""
        if action == self.game.pass_action:
            self.passes += 1
        child = self.game.next_state(state, action)
        value = self.margin(child)
        return value if child.player == state.player else -value

    def best(self, state) -> int:
        """The lowest action of the largest margin."""
        legal = [int(a) for a in np.flatnonzero(self.game.legal_mask(state))]
        return max(legal, key=lambda a: (self.after(state, a), -a))


def endgame_positions(game, count: int, most_empty: int, seed: int) -> list:
    """``count`` unfinished positions with 1 to ``most_empty`` empty squares, from random games; among them
    every position of those games where the mover had to pass."""
    rng, out, n = np.random.default_rng(seed), [], game.size
    while len(out) < count:
        state, target = game.initial_state(), int(rng.integers(1, most_empty + 1))
        while not state.over:
            empties = n * n - (state.black | state.white).bit_count()
            if empties <= most_empty and (empties <= target or not state.moves):
                out.append(state)
                if empties <= target:
                    break
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    return out


@pytest.mark.parametrize("size, seed", [(6, 1), (8, 2)])
def test_the_solver_is_plain_minimax_over_the_rules(size, seed):
    """On random positions with at most 8 empty squares (6x6 and 8x8, passes at the root and inside the trees):
    the exact margin, the result of the narrow window, and a best move that keeps each."""
    game = Othello(size)
    reference = Reference(game)
    positions = endgame_positions(game, 40, 8, seed)
    for state in positions:
        want = reference.margin(state)
        exact, result = endgame.solve(game, state), endgame.solve(game, state, exact=False)
        assert (exact.margin, exact.result, result.result, result.margin) == (want, np.sign(want), np.sign(want), None)
        assert reference.after(state, exact.action) == want, game.render(state)
        if want >= 0:  # a won or drawn position: the narrow window's move keeps the result
            assert np.sign(reference.after(state, result.action)) == np.sign(want), game.render(state)
        assert exact.nodes >= 1 and result.nodes <= exact.nodes
    assert any(not state.moves for state in positions), "a position where the mover must pass"
    assert reference.passes > 0
    assert {-1, 1} <= {np.sign(reference.margin(s)) for s in positions}, "won and lost positions"


def test_the_solver_on_hand_made_ends():
    """Both players blocked with squares left: the game is over, the empty squares count for nobody. A mover
    without a move passes, and the opponent's move then ends the game."""
    game = Othello(4)
    blocked = game.from_board([[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [2, 0, 0, 0]], player=1)
    assert blocked.over and game.scores(blocked) == (12, 1)
    with pytest.raises(ValueError, match="the game is over"):
        endgame.solve(game, blocked)
    must_pass = game.from_board([[1, 2, 1, 1], [1, 2, 1, 1], [1, 2, 1, 1], [0, 2, 2, 2]], player=1)
    assert not must_pass.moves and not must_pass.over
    solution = endgame.solve(game, must_pass)
    # white passes; black a4 flips b3 (the row to d4 ends at the edge): 11 black, 5 white, a margin of -6 for white
    assert solution == (-1, -6, game.pass_action, solution.nodes)
    assert Reference(game).margin(must_pass) == -6


def test_the_solver_refuses_what_it_cannot_solve():
    game = Othello(8)
    with pytest.raises(ValueError, match="60 empty squares is more than the solver's limit of 22"):
        endgame.solve(game, game.initial_state())
    with pytest.raises(TypeError, match="plays Othello, got Hex"):
        endgame.solve(make_game("hex5"), game.initial_state())


def test_the_evaluation_terms_on_a_hand_made_board():
    """Black to move on 6x6: black holds a1 and a2, white b1 and e5 (the X-square of the empty f6), black b6
    (a C-square of the empty a6). Each term by hand, from black's view and then white's."""
    game = Othello(6)
    board = np.zeros((6, 6), dtype=int)
    board[0, 0] = board[1, 0] = board[5, 1] = 1
    board[0, 1] = board[4, 4] = 2
    state = game.from_board(board, player=0)
    assert game.action_to_text(state, int(np.flatnonzero(game.legal_mask(state))[0])) == "c1"
    tab, geo = table(6), geometry(6)
    black, white = np.uint64(state.black), np.uint64(state.white)
    # mobility: black c1, white none; potential mobility: 11 empty squares touch white, 8 touch black;
    # corner a1; X-square e5 (white); C-square b6 (black); a2 stable on a1's column, b1 breaks the row; 31 empty
    want = [1 - 0, 11 - 8, 1, 1, -1, 1, 1]
    assert terms(black, white, np.uint64(state.moves), 6, tab, geo).tolist() == want
    assert evaluate(black, white, np.uint64(state.moves), 6, tab, geo, WEIGHTS) == int(np.dot(WEIGHTS, want))
    flipped = [-t for t in want[:6]] + [want[6]]  # the mover's parity does not change sides
    assert terms(white, black, np.uint64(0), 6, tab, geo).tolist() == flipped
    assert len(TERMS) == len(WEIGHTS) == 7


def test_the_yardstick_plays_its_exact_endgame():
    """From won positions with at most 8 empty squares, the yardstick (1 ply, its endgame from 12 empty squares)
    against perfect play ends with exactly the solved margin; without its endgame, at 1 ply, it does not."""
    short_of_perfect = 0
    for size, seed in ((6, 3), (8, 4)):
        game = Othello(size)
        reference = Reference(game)
        won = [s for s in endgame_positions(game, 40, 8, seed) if s.moves and reference.margin(s) > 0][:6]
        assert len(won) == 6
        for state in won:
            for agent in (ClassicalAgent(game, 1), ClassicalAgent(game, 1, endgame_empties=0)):
                seat, position = state.player, state
                while not position.over:
                    mover = agent if position.player == seat else None
                    action = mover.choose(position) if mover else reference.best(position)
                    position = game.next_state(position, action)
                black, white = game.scores(position)
                margin = black - white if seat == 0 else white - black
                if agent.endgame_empties:
                    assert margin == reference.margin(state), game.render(state)
                else:
                    short_of_perfect += margin < reference.margin(state)
    assert short_of_perfect > 0


def test_the_yardstick_beats_random_and_the_old_alphabeta():
    """Legal moves throughout (the arena checks each); openings of 4 random plies played with both seats: 6x6
    and 8x8 against random, 8x8 against ``alphabeta:2`` (the old yardstick, corners and mobility)."""
    for name in ("othello6", "othello8"):
        against_random = play_match(functools.partial(make_game, name),
                                    functools.partial(make_classical, "classical:2", name),
                                    lambda rng, name=name: RandomAgent(make_game(name), rng), games=4, seed=5,
                                    opening_moves=4, progress=False)
        assert against_random.wins == 4, against_random.text()
    against_alphabeta = play_match(functools.partial(make_game, "othello8"),
                                   functools.partial(make_classical, "classical:2", "othello8"),
                                   functools.partial(make_alphabeta, "alphabeta:2", "othello8"), games=6, seed=0,
                                   opening_moves=4, progress=False)
    assert against_alphabeta.wins >= 5, against_alphabeta.text()


def test_the_yardstick_by_name_and_its_refusals():
    game = Othello(6)
    agent = make_classical("classical:3", "othello6")
    assert (agent.name, agent.depth, agent.endgame_empties) == ("classical:3", 3, 12)
    opponent = make_opponent("classical", game, np.random.default_rng(0))
    assert (opponent.name, opponent.depth) == (f"classical:{DEFAULT_DEPTH}", DEFAULT_DEPTH)
    record, _ = play_game(game, (opponent, make_opponent("greedy", game, np.random.default_rng(0))))
    assert record.winner == 0
    with pytest.raises(ValueError, match="at least 1 ply"):
        ClassicalAgent(game, 0)
    with pytest.raises(ValueError, match="from 0 to 22"):
        ClassicalAgent(game, 2, endgame_empties=30)
    with pytest.raises(ValueError, match="7 weights"):
        ClassicalAgent(game, 2, weights=[1, 2, 3])
    with pytest.raises(ValueError, match="classical:<depth>"):
        make_classical("classical", "othello8")


def test_the_benchmark_prints_a_card_table(capsys):
    spec = importlib.util.spec_from_file_location("classical_strength", ROOT / "benchmarks" / "classical_strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["random", "--game", "othello6", "--depths", "1,2", "--games", "2", "--opening-plies", "2-4"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| random vs classical:")]
    assert [row.split(" | ")[0] for row in rows] == ["| random vs classical:1", "| random vs classical:2"]
    assert all(row.split(" | ")[1] == "0 / 0 / 2" for row in rows), out
    with pytest.raises(SystemExit):
        module.main(["random", "--game", "othello6", "--games", "3"])


def test_the_benchmark_plays_a_checkpoint_at_its_cards_budget_unless_told():
    spec = importlib.util.spec_from_file_location("classical_strength", ROOT / "benchmarks" / "classical_strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    budget = json.loads((ROOT / "ckpts" / "tictactoe_az" / "best" / "card.json").read_text())["play"]["simulations"]
    assert play_simulations("tictactoe_az") == budget
    assert module.player_factory("tictactoe_az", None)[2] == f"tictactoe_az @{budget}"
    assert module.player_factory("tictactoe_az", None, {"simulations": 7})[2] == "tictactoe_az @7"
    assert module.player_factory("tictactoe_az", None, {"simulations": 7, "root_policy": "gumbel"})[2] \
        == "tictactoe_az @7 gumbel"


def even(game):
    """A network for ``AlphaZeroAgent`` that knows nothing: uniform logits, every position even."""
    return lambda encoded: (np.zeros(game.action_space_size, np.float32), np.float32(0.0))


def margin_after(game, state, action) -> int:
    """The exact margin for ``state``'s mover once ``action`` is played (perfect play after it)."""
    child = game.next_state(state, action)
    if child.over:
        black, white = game.scores(child)
        return black - white if state.player == 0 else white - black
    margin = endgame.solve(game, child).margin
    return margin if child.player == state.player else -margin


def test_the_agent_plays_the_exact_endgame_and_proves_its_moves_with_it():
    """``AlphaZeroAgent`` with ``endgame_empties = 10`` on 8x8, a network that knows nothing: at 10 or fewer empty
    squares its move has the solver's best margin, without a search; at 11, after one simulation, every move is
    proven and it plays a winning one wherever there is one, which the agent without the endgame often misses."""
    game = Othello(8)
    search = MCTSConfig(simulations=1, tree_policy="puct")
    for state in endgame_positions(game, 12, 10, seed=6):
        agent = AlphaZeroAgent(game, even(game), search, 0, endgame_empties=10)
        assert margin_after(game, state, agent.choose(state)) == endgame.solve(game, state).margin
        assert agent.mcts.root is None  # no search
    rng, won = np.random.default_rng(7), []
    while len(won) < 8:  # won positions with 11 empty squares, the mover to place a disc
        state = game.initial_state()
        while not state.over and endgame.empty_squares(game, state) > 11:
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
        if not state.over and state.moves and endgame.empty_squares(game, state) == 11 and \
                endgame.solve(game, state, exact=False).result > 0:
            won.append(state)
    blind_losses = 0
    for state in won:
        agent = AlphaZeroAgent(game, even(game), search, 0, endgame_empties=10)
        assert margin_after(game, state, agent.choose(state)) > 0
        assert agent.mcts.root is not None  # it searched (11 empty squares), then proved
        blind = AlphaZeroAgent(game, even(game), search, 0)
        blind_losses += margin_after(game, state, blind.choose(state)) <= 0
    assert blind_losses > 0


def test_the_exact_endgame_is_refused_where_it_cannot_play():
    """The solver is Othello's: a Hex agent, a Hex run, a run on the generic search, a number of empty squares out
    of range, and the compiled search for Hex are refused by name (nothing compiles)."""
    from azcourse.alphazero.compiled_search import Lockstep, play_games, refuse_unsupported, rules_for
    from azcourse.alphazero.config import AlphaZeroConfig, ConfigError

    hex5 = make_game("hex5")
    with pytest.raises(ValueError, match="no exact endgame for hex5"):
        AlphaZeroAgent(hex5, even(hex5), MCTSConfig(simulations=1, tree_policy="puct"), 0, endgame_empties=6)
    with pytest.raises(ValueError, match="1 to 22 empty squares"):
        endgame.Endgame(Othello(8), 23)
    config = MCTSConfig(simulations=4, tree_policy="puct")
    with pytest.raises(ConfigError, match="endgame_empties = 6: the compiled search's exact endgame is Othello's"):
        Lockstep(rules_for(hex5), config, 2, endgame_empties=6)
    with pytest.raises(ConfigError, match="endgame_empties = 6"):
        play_games(hex5, even(hex5), config, 0, [np.random.default_rng(0)], endgame_empties=6)
    with pytest.raises(ConfigError, match="endgame_empties = 6"):
        refuse_unsupported(config, hex5, 6)
    with pytest.raises(ConfigError, match="from 0 \\(no endgame\\) to 22"):
        Lockstep(rules_for(Othello(8)), config, 2, endgame_empties=23)
    refuse_unsupported(config, Othello(6), 6)
    with pytest.raises(ConfigError, match="endgame_empties needs an Othello game"):
        AlphaZeroConfig(game="hex5", search_path="compiled", endgame_empties=6)
    with pytest.raises(ConfigError, match="endgame_empties needs search_path 'compiled'"):
        AlphaZeroConfig(game="othello8", endgame_empties=6)
    with pytest.raises(ConfigError, match="between 0 \\(no exact endgame\\) and 14"):
        AlphaZeroConfig(game="othello8", search_path="compiled", endgame_empties=15)
    assert AlphaZeroConfig(game="othello8", search_path="compiled", endgame_empties=14).endgame_empties == 14
