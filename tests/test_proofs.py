"""What a search tree proves (azcourse.core.proofs), checked against perfect tic-tac-toe play, and the
evaluation agent that plays it (azcourse.alphazero.agent)."""
import numpy as np
import pytest

from azcourse.alphazero.agent import AlphaZeroAgent
from azcourse.core.mcts import MCTS, MCTSConfig
from azcourse.core.proofs import Proof, best_of, play_proven, prove, root_proofs
from azcourse.tictactoe.game import TicTacToe
from azcourse.tictactoe.perfect import mover_board, solver


def random_positions(count, empty, seed):
    """``count`` ongoing tic-tac-toe positions with ``empty`` empty squares, reached by random play."""
    game, rng, found = TicTacToe(), np.random.default_rng(seed), []
    while len(found) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and 9 - np.count_nonzero(np.frombuffer(state.cells, np.uint8)) > empty:
            state = game.next_state(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
        if not game.is_terminal(state):
            found.append(state)
    return found


def searched(state, simulations, seed=0, c_uct=2 ** 0.5):
    search = MCTS(TicTacToe(), config=MCTSConfig(simulations=simulations, tree_policy="uct", c_uct=c_uct), rng=seed)
    search.search(state)
    return search.root


def perfect_value(state):
    """The mover's result under perfect play (1, 0 or -1)."""
    return int(np.nanmax(solver().action_values(mover_board(state))))


def proven_nodes(node):
    """Every decision node of the tree with its proof, where it has one."""
    if node is None or node.kind != 0:
        return
    proof = prove(node)
    if proof is not None:
        yield node, proof
    for child in node.children:
        yield from proven_nodes(child)


@pytest.mark.parametrize("empty", [3, 5, 7])
def test_a_proof_is_never_wrong_however_small_the_tree(empty):
    proofs = 0
    for i, state in enumerate(random_positions(15, empty, seed=empty)):
        for simulations in (5, 40, 400):
            for node, proof in proven_nodes(searched(state, simulations, seed=i)):
                assert proof.returns[node.player] == perfect_value(node.state)
                proofs += 1
    assert proofs > 50  # the check ran on many proven nodes, not none


def test_a_tree_that_holds_every_line_proves_the_root_and_the_shortest_win():
    game = TicTacToe()
    for i, state in enumerate(random_positions(20, 5, seed=1)):
        root = searched(state, 2000, seed=i, c_uct=50.0)  # at most 326 nodes, all expanded by a wide search
        proof = prove(root)
        assert proof is not None and proof.returns[root.player] == perfect_value(state)
        values = solver().action_values(mover_board(state))
        proofs = root_proofs(game, root)
        assert [p.returns[root.player] for p in proofs] == [values[a] for a in root.actions]
        if proof.returns[root.player] == 1:
            assert proof.plies == min(p.plies for p in proofs if p.returns[root.player] == 1) + 1


def test_best_of_takes_the_shortest_win_the_longest_loss_and_nothing_unproven():
    win, draw = Proof((1.0, -1.0), 4), Proof((0.0, 0.0), 2)
    lost_soon, lost_late = Proof((-1.0, 1.0), 1), Proof((-1.0, 1.0), 5)
    assert best_of([None, win, Proof((1.0, -1.0), 2)], 0) == 2  # a win proves the node even beside an unproven move
    assert best_of([lost_soon, lost_late, lost_soon], 0) == 1
    assert best_of([lost_late, draw], 0) == 1
    assert best_of([lost_late, None], 0) is None
    assert best_of([lost_soon, lost_late], 1) == 0  # the other player's view: the shortest win


def test_play_proven_never_plays_a_proven_loss_while_a_move_is_open():
    game = TicTacToe()
    # X: squares 0 and 1; O: 3 and 4; X to move. O threatens 5; X wins at once with 2.
    state = game.from_mover_board([1, 1, 0, -1, -1, 0, 0, 0, 0])
    root = searched(state, 200)
    assert play_proven(game, root, 8) == 2  # the search's choice is corrected to the win
    # O to move (O: 0, 7; X: 3, 4, 8): X threatens 5, so every move but 5 loses at once; 5 is open.
    state = game.from_mover_board([1, 0, 0, -1, -1, 0, 0, 1, -1])
    root = searched(state, 400)
    proofs = dict(zip(root.actions, root_proofs(game, root)))
    lost = [a for a, p in proofs.items() if p is not None and p.returns[root.player] == -1]
    assert lost and 5 not in lost
    chosen = play_proven(game, root, lost[0])
    assert chosen not in lost
    open_moves = [a for a in root.actions if a not in lost]
    assert root.counts[root.actions.index(chosen)] == max(root.counts[root.actions.index(a)] for a in open_moves)


class FavouriteMove:
    """A network that puts its prior on one square and calls every position even."""

    def __init__(self, square):
        self.square = square

    def __call__(self, encoded):
        logits = np.full(9, -5.0, np.float32)
        logits[self.square] = 5.0
        return logits, np.float32(0.0)


def test_the_agent_plays_a_win_in_one_that_its_search_missed_and_only_with_proofs():
    game = TicTacToe()
    state = game.from_mover_board([1, 1, 0, -1, -1, 0, 0, 0, 0])  # X wins with square 2
    for root_policy in ("puct", "gumbel"):
        search = MCTSConfig(simulations=1, tree_policy="puct", root_policy=root_policy)
        blind = AlphaZeroAgent(game, FavouriteMove(8), search, 0, proofs=False)
        assert blind.choose(state) == 8
        agent = AlphaZeroAgent(game, FavouriteMove(8), search, 0)
        assert agent.choose(state) == 2


def perfect_exact(empty_at_most):
    """A solver for ``prove``'s ``exact``: tic-tac-toe's perfect play at positions with at most ``empty_at_most``
    empty squares (the returns, and the empty squares as the plies' bound), None elsewhere."""
    def exact(state):
        empty = int(np.count_nonzero(np.frombuffer(state.cells, np.uint8) == 0))
        if empty > empty_at_most:
            return None
        value = perfect_value(state)
        return (np.array([value, -value] if state.player == 0 else [-value, value], float), empty)
    return exact


def test_a_solver_proves_what_it_decides_and_play_proven_plays_its_best_with_one_simulation():
    """With a solver for the positions of at most 6 empty squares, every child of a root with 7 is proven after a
    single simulation, with the perfect result, and the move played keeps the root's perfect result; the solver
    is called only where the tree reaches it, and without it the tiny tree proves nothing."""
    game = TicTacToe()
    for i, state in enumerate(random_positions(12, 7, seed=4)):
        root = searched(state, 1, seed=i)
        assert all(p is None for p in root_proofs(game, root))
        calls = []
        exact = perfect_exact(6)
        proofs = root_proofs(game, root, lambda s: calls.append(s) or exact(s))
        values = solver().action_values(mover_board(state))
        assert [p.returns[root.player] for p in proofs] == [values[a] for a in root.actions]
        assert len(calls) == len(root.actions) and all(p.plies == 6 for p in proofs)
        chosen = play_proven(game, root, root.actions[0], exact)
        assert values[chosen] == perfect_value(state)
        tried = [(a, child) for a, child in zip(root.actions, root.children) if child is not None]
        assert tried and all(prove(child, exact).returns[root.player] == values[a] for a, child in tried)
        proof = prove(root, exact)  # proven by the tree alone only through a win among the tried moves
        assert proof is None or proof.returns[root.player] == perfect_value(state) == 1
        assert prove(root, perfect_exact(7)).plies == 7  # the root itself decided by the solver
