"""The AlphaZero player for the game layer: PUCT (or Gumbel) search with the network's priors and values.

    agent = load_agent("tictactoe_az", simulations=100)      # one call: game, network, search
    summary = play_match(partial(make_game, "tictactoe"), partial(load_agent, "tictactoe_az", simulations=100),
                         PerfectAgent, games=100)               # azcourse.core.arena, azcourse.registry

``AlphaZeroAgent`` is an ``azcourse.core.agents.MCTSAgent`` (``choose`` / ``observe``, subtree kept
between moves) whose leaves are evaluated by the network (``NetworkEvaluator``, numpy forward pass,
cached by position), without root noise. It plays the most visited action; with
``sample_moves = k`` its first k choices are drawn from the visit counts instead (so that matches
between deterministic agents vary). With ``root_policy = "gumbel"`` (a checkpoint trained so) it
plays the Gumbel search's choice: with Gumbel noise for its first ``sample_moves`` choices (the noise
samples the move), without noise (``gumbel_scale = 0``) afterwards. Then it corrects its move with
what the search tree proves (``azcourse.core.proofs.play_proven``: a proven win at once, no proven
loss while another move is open, the longest loss when all are lost); ``proofs = False`` plays the
search's move as it is. With ``endgame_empties = K > 0`` (Othello; a card's ``play`` entry names it when
its run played the exact endgame) it plays the exact endgame's move (the largest final margin with perfect
play, ``azcourse.othello.endgame``) at every position with at most K empty squares, without searching, and
its proofs take the solver's win/draw/loss for every node with that few (so from K + 1 empty squares on,
every move is proven and the best one played). One agent plays one game, as ``play_match`` makes them.
"""
from __future__ import annotations

import dataclasses
import importlib

import numpy as np

from azcourse.core.agents import MCTSAgent, PolicyUnavailable
from azcourse.core.evaluators import GuidedEvaluator, NetworkEvaluator
from azcourse.core.mcts import MCTSConfig, visit_distribution
from azcourse.core.proofs import play_proven
from azcourse.registry import make_endgame, own_play_evaluator

from . import searches
from .checkpoints import load_checkpoint
from .network import Predictor

# the compiled search's agent (numba), named and imported only where a card or a caller asks for it, so that the
# students' bundles, which play the generic search, carry neither it nor numba
COMPILED_AGENT = "azcourse.alphazero.compiled_agent:CompiledAgent"


class AlphaZeroAgent(MCTSAgent):
    """PUCT (or Gumbel) search with a policy-value network.

    Args:
        game: the game (``azcourse.core.protocol.Game``).
        forward: ``forward(encoded) -> (logits (A,), value)``, e.g. a ``NumpyNet``.
        search: the ``MCTSConfig`` it searches with (``searches.from_card`` reads a card's).
        rng: the search's generator (or a seed); draws chance outcomes and sampled moves.
        sample_moves: the agent's first choices drawn from the visit counts (T = 1), or with Gumbel
            noise.
        name: label in match summaries.
        proofs: play what the search tree proves (``azcourse.core.proofs``) over the search's choice.
        mixes: the guide's weights ``(prior_mix, value_mix)`` in the leaves (``play_evaluator``), ``(0, 0)``:
            the network alone.
        endgame_empties: 0, or the exact endgame plays (and proves) from this many empty squares on (a game
            with a solver: ``azcourse.registry.ENDGAMES``, Othello).
    Raises:
        ValueError: ``endgame_empties`` for a game without a solver, or out of its range.
    """

    def __init__(self, game, forward, search: MCTSConfig, rng=None, sample_moves: int = 0, name: str = "alphazero",
                 proofs: bool = True, mixes: tuple[float, float] = (0.0, 0.0), endgame_empties: int = 0):
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        super().__init__(game, play_evaluator(game, forward, mixes), search, rng, name=name)
        self.game, self.rng, self.sample_moves, self.chosen, self.proofs = game, rng, sample_moves, 0, proofs
        self.greedy = dataclasses.replace(search, gumbel_scale=0.0)  # a Gumbel search's moves after the sampled ones
        self.endgame = make_endgame(game, endgame_empties) if endgame_empties else None

    def choose(self, state) -> int:
        if self.endgame is not None:
            move = self.endgame.move(state)
            if move is not None:  # the exact endgame's move, no search (and no tree kept)
                self.mcts.reset()
                return move
        action = self._searched(state)
        if not self.proofs:
            return action
        return play_proven(self.game, self.mcts.root, action, self.endgame.proof if self.endgame else None)

    def _searched(self, state) -> int:
        """The search's move: the Gumbel choice, or drawn from the visits / the most visited (PUCT)."""
        self.chosen += 1
        sample = self.chosen <= self.sample_moves
        if self.mcts.config.root_policy == "gumbel":
            return self.mcts.search(state, config=None if sample else self.greedy).action
        visits = self.mcts.search(state).visits
        if sample:
            return int(self.rng.choice(len(visits), p=visit_distribution(visits, 1.0)))
        return int(np.argmax(visits))


def play_evaluator(game, forward, mixes: tuple[float, float] = (0.0, 0.0)):
    """The leaves' evaluation of a checkpoint's agents: the game's own where the registry names one
    (``azcourse.registry.PLAY_EVALUATORS``), else the network (``NetworkEvaluator``) mixed with the game's
    ``guide`` by ``mixes = (prior_mix, value_mix)`` (``GuidedEvaluator``; ``(0, 0)``: the network alone)."""
    own = own_play_evaluator(game.name)
    if own is not None:
        return own(game, forward, *mixes)
    network = NetworkEvaluator(Predictor(game, forward))
    return GuidedEvaluator(network, *mixes) if any(mixes) else network


def load_agent(name_or_path, rng=None, simulations: int | None = None, sample_moves: int = 0,
               name: str | None = None, proofs: bool = True, time_limit: float | None = None,
               endgame_empties: int | None = None, root_policy: str | None = None,
               search_path: str | None = None):
    """An ``AlphaZeroAgent`` from a checkpoint (a folder, a run folder or a name under ``ckpts/``,
    see ``checkpoints.checkpoint_dir``), playing the search of its card's ``play`` entry (its mixes and
    exact endgame included), with ``simulations``, ``time_limit``, ``endgame_empties`` and ``root_policy``
    (``"puct"`` or ``"gumbel"``) when given (``proofs``, ``endgame_empties``: see ``AlphaZeroAgent``).
    With ``search_path = "compiled"`` (or a card whose ``play`` entry names it) a ``CompiledAgent`` plays
    instead: the same search in numba, Othello, Hex and Tak only, without ``proofs`` and ``time_limit``.
    ``functools.partial(load_agent, path, simulations=...)`` is a ``make(rng)`` for
    ``azcourse.core.arena.play_match`` (and pickles for its workers)."""
    checkpoint = load_checkpoint(name_or_path)
    options = {} if endgame_empties is None else {"endgame_empties": endgame_empties}
    return agent_of(checkpoint, rng, simulations, time_limit, root_policy, search_path, sample_moves=sample_moves,
                    name=name or f"alphazero {checkpoint.path.name}", proofs=proofs, **options)


def agent_of(checkpoint, rng, simulations: int | None = None, time_limit: float | None = None,
             root_policy: str | None = None, search_path: str | None = None, **options):
    """An agent of a loaded checkpoint playing its card's ``play`` entry (its search, with ``simulations``,
    ``time_limit`` and ``root_policy`` when given, its mixes and its exact endgame): an ``AlphaZeroAgent``, or
    with ``search_path = "compiled"`` (the card's, when None) a ``CompiledAgent``; ``options``: the agent's
    others (an ``endgame_empties`` there wins over the card's; ``proofs`` is the generic search's).

    Raises:
        ValueError: a ``search_path`` other than ``"generic"`` or ``"compiled"``.
        ConfigError: the compiled search for a game without compiled rules, or with a ``time_limit``.
    """
    play = checkpoint.card["play"]
    options.setdefault("endgame_empties", searches.endgame_empties(play))
    search = searches.from_card(play, simulations, time_limit, root_policy)
    path = search_path or searches.search_path(play)
    if path == "compiled":
        module, name = COMPILED_AGENT.split(":")
        options.pop("proofs", None)
        return getattr(importlib.import_module(module), name)(checkpoint.game, checkpoint.net, search, rng, **options)
    if path != "generic":
        raise ValueError(f"search_path is 'generic' or 'compiled', got {path!r}")
    return AlphaZeroAgent(checkpoint.game, checkpoint.net, search, rng, mixes=searches.mixes(play), **options)


def shipped_checkpoint(game, source=None):
    """The checkpoint shipped for ``game`` (``ckpts/<game.name>/``, the best network of its run), or
    ``source``.

    Raises:
        PolicyUnavailable: no such checkpoint, or one trained on another game.
    """
    try:
        checkpoint = load_checkpoint(source or game.name)
    except FileNotFoundError:
        raise PolicyUnavailable(f"no trained {game.name} network is shipped (ckpts/{source or game.name}/ is missing), "
                                "so the network players cannot play") from None
    if checkpoint.game.name != game.name:
        raise PolicyUnavailable(f"{source} holds a network for {checkpoint.game.name}, not {game.name}")
    return checkpoint


def shipped_predictor(game, source=None) -> Predictor:
    """``predict(state) -> (prior, value)`` of ``shipped_checkpoint(game, source)``'s network."""
    return Predictor(game, shipped_checkpoint(game, source).net)


def shipped_agent(game, rng, simulations: int, source=None, name: str = "alphazero") -> AlphaZeroAgent:
    """PUCT (or Gumbel) search with ``shipped_checkpoint(game, source)``'s network, ``simulations`` per move, with
    the search settings of its card."""
    return agent_of(shipped_checkpoint(game, source), rng, simulations, name=name)
