"""What a finished search tree proves: the moves whose result is certain, and how to play them.

A search's values are estimates, but some of its nodes are certain. A terminal node is *proven*:
its result is ``game.returns``. A decision node is proven when its chooser has a proven child that
gives it a win (a return of at least ``WIN``, the protocol's win), or when the child of every legal
action is proven; its result is then that of the child best for the chooser. A chance node is never
proven (the tree holds only a sample of its outcomes). A proof also counts the plies to the end of
the line it assumes: a winner takes its shortest win; a side whose every move loses, the longest
loss (the more moves the opponent must still find, the more chances it has to go wrong); between
other equal results, the shorter line.

``play_proven(game, root, action)`` corrects a search's ``action`` at ``root`` with what the tree
proves, and the evaluation agents (``azcourse.alphazero.agent``) call it after every search: a
proven win is played at once; a move proven to lose is never played while another move is not
proven lost; and when every move is proven, the best of them. Actions the search never tried are
stepped once from the root (``root_proofs``), so a win or an end in one move is always seen.

An exact solver
    ``prove``, ``root_proofs`` and ``play_proven`` take an optional solver of the game, ``exact(state) ->
    (returns, plies) | None``: the players' returns of ``state`` with perfect play and the plies of that line
    (or a bound or an estimate of them: Othello's gives its empty squares), or None where it cannot
    tell. A decision node the solver decides is proven with that result, its subtree unread, and so is an
    untried root action's child; so below a root whose every child the solver decides, every move is
    proven and ``play_proven`` plays the best of them whatever the search found. This module knows no
    game: the caller passes the solver (``azcourse.alphazero.agent``, Othello's exact endgame).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from .mcts import CHANCE, TERMINAL, Node

WIN, LOSS = 1.0, -1.0  # the protocol's returns of a won and a lost game
Solver = Callable  # exact(state) -> (returns, plies) | None (see the module docstring)


class Proof(NamedTuple):
    """A node's certain result. returns: the players' final results (a tuple of floats);
    plies: the moves from the node to the end along the proven line."""

    returns: tuple
    plies: int


def _preference(proof: Proof, player: int) -> tuple:
    """Sort key of a child's proof for ``player`` choosing: the better result first, then the shorter
    line, except that a loss prefers the longer one."""
    value = proof.returns[player]
    return value, proof.plies if value <= LOSS else -proof.plies


def best_of(proofs: list, player: int) -> int | None:
    """The index of the proof ``player`` would choose among its children's ``proofs`` (None where
    unproven): its shortest win, or the best of them when every one is proven; None when the
    node is not proven."""
    wins = [i for i, p in enumerate(proofs) if p is not None and p.returns[player] >= WIN]
    if wins:
        return min(wins, key=lambda i: proofs[i].plies)
    if not proofs or any(p is None for p in proofs):
        return None
    return max(range(len(proofs)), key=lambda i: _preference(proofs[i], player))


def solved(exact: Solver | None, state) -> Proof | None:
    """The solver's proof of ``state`` (None: no solver, or it cannot tell)."""
    found = None if exact is None else exact(state)
    if found is None:
        return None
    returns, plies = found
    return Proof(tuple(float(r) for r in returns), int(plies))


def prove(node: Node | None, exact: Solver | None = None) -> Proof | None:
    """The proof of ``node`` from its subtree, or from ``exact`` where the solver decides a decision node
    (None: not proven, or not in the tree)."""
    if node is None or node.kind == CHANCE:
        return None
    if node.kind == TERMINAL:
        return Proof(tuple(node.returns.tolist()), 0)
    proof = solved(exact, node.state)
    if proof is not None:
        return proof
    proofs = [prove(child, exact) for child in node.children]
    pick = best_of(proofs, node.player)
    return None if pick is None else Proof(proofs[pick].returns, proofs[pick].plies + 1)


def root_proofs(game, root: Node, exact: Solver | None = None) -> list:
    """The proof of each legal action's child of a searched decision node ``root`` (in
    ``root.actions``' order), an untried action's child stepped from the root's state (and given to
    ``exact``, when there is a solver, if not terminal)."""
    proofs = []
    for action, child in zip(root.actions, root.children):
        if child is None:
            state = game.next_state(root.state, action)
            if game.is_terminal(state):
                child_proof = Proof(tuple(game.returns(state).tolist()), 0)
            else:
                child_proof = solved(exact, state)
        else:
            child_proof = prove(child, exact)
        proofs.append(child_proof)
    return proofs


def play_proven(game, root: Node, action: int, exact: Solver | None = None) -> int:
    """The move to play at ``root`` after a search that chose ``action`` (see the module docstring):
    a proven win, the best move when all are proven, the most visited move not proven lost (lowest
    index on ties) when ``action`` is proven lost and such a move exists, else ``action``; ``exact``: an
    optional solver (see the module docstring)."""
    proofs, me = root_proofs(game, root, exact), root.player
    pick = best_of(proofs, me)
    if pick is not None:
        return root.actions[pick]
    chosen = proofs[root.actions.index(action)]
    if chosen is None or chosen.returns[me] > LOSS:
        return action
    alive = [i for i, p in enumerate(proofs) if p is None or p.returns[me] > LOSS]
    return root.actions[max(alive, key=lambda i: (root.counts[i], -i))]
