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
search's move as it is. One agent plays one game, as ``play_match`` makes them.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from azcourse.core.agents import MCTSAgent, PolicyUnavailable
from azcourse.core.evaluators import NetworkEvaluator
from azcourse.core.mcts import MCTSConfig, visit_distribution
from azcourse.core.proofs import play_proven

from .checkpoints import load_checkpoint
from .network import Predictor


class AlphaZeroAgent(MCTSAgent):
    """PUCT (or Gumbel) search with a policy-value network.

    Args:
        game: the game (``azcourse.core.protocol.Game``).
        forward: ``forward(encoded) -> (logits (A,), value)``, e.g. a ``NumpyNet``.
        simulations: simulations per move.
        rng: the search's generator (or a seed); draws chance outcomes and sampled moves.
        c_init, c_base, unvisited_value: PUCT settings (``MCTSConfig``).
        sample_moves: the agent's first choices drawn from the visit counts (T = 1), or with Gumbel
            noise.
        name: label in match summaries.
        root_policy, max_considered_actions: ``"puct"`` or ``"gumbel"`` (``MCTSConfig``).
        chance_outcomes: outcomes kept per chance node, 0: a chance state is a leaf (``MCTSConfig``).
        proofs: play what the search tree proves (``azcourse.core.proofs``) over the search's choice.
    """

    def __init__(self, game, forward, simulations: int = 100, rng=None, c_init: float = 1.25,
                 c_base: float = 19652.0, unvisited_value: float = 0.0, sample_moves: int = 0,
                 name: str = "alphazero", root_policy: str = "puct", max_considered_actions: int = 16,
                 proofs: bool = True, chance_outcomes: int = 8):
        config = MCTSConfig(simulations=simulations, tree_policy="puct", c_init=c_init, c_base=c_base,
                            unvisited_value=unvisited_value, root_policy=root_policy,
                            max_considered_actions=max_considered_actions, chance_outcomes=chance_outcomes)
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        super().__init__(game, NetworkEvaluator(Predictor(game, forward)), config, rng, name=name)
        self.game, self.rng, self.sample_moves, self.chosen, self.proofs = game, rng, sample_moves, 0, proofs
        self.noisy, self.greedy = config, dataclasses.replace(config, gumbel_scale=0.0)

    def choose(self, state) -> int:
        action = self._searched(state)
        return play_proven(self.game, self.mcts.root, action) if self.proofs else action

    def _searched(self, state) -> int:
        """The search's move: the Gumbel choice, or drawn from the visits / the most visited (PUCT)."""
        self.chosen += 1
        sample = self.chosen <= self.sample_moves
        if self.noisy.root_policy == "gumbel":
            self.mcts.config = self.noisy if sample else self.greedy
            return self.mcts.search(state).action
        visits = self.mcts.search(state).visits
        if sample:
            return int(self.rng.choice(len(visits), p=visit_distribution(visits, 1.0)))
        return int(np.argmax(visits))


def load_agent(name_or_path, rng=None, simulations: int | None = None, sample_moves: int = 0,
               name: str | None = None, proofs: bool = True) -> AlphaZeroAgent:
    """An ``AlphaZeroAgent`` from a checkpoint (a folder, a run folder or a name under ``ckpts/``,
    see ``checkpoints.checkpoint_dir``), with the search settings of its card unless
    ``simulations`` is given (``proofs``: see ``AlphaZeroAgent``). ``functools.partial(load_agent, path,
    simulations=...)`` is a ``make(rng)`` for ``azcourse.core.arena.play_match`` (and pickles for its
    workers)."""
    checkpoint = load_checkpoint(name_or_path)
    play = checkpoint.card["play"]
    return AlphaZeroAgent(checkpoint.game, checkpoint.net, simulations or play["simulations"], rng,
                          sample_moves=sample_moves, name=name or f"alphazero {checkpoint.path.name}",
                          proofs=proofs, **search_settings(play))


def search_settings(play: dict) -> dict:
    """A card's ``play`` section as ``AlphaZeroAgent`` keywords: its PUCT settings and root policy (a card
    written before Gumbel search names none: PUCT)."""
    return {"c_init": play["c_init"], "c_base": play["c_base"], "unvisited_value": play["unvisited_value"],
            "root_policy": play.get("root_policy", "puct"),
            "max_considered_actions": play.get("max_considered_actions", 16),
            "chance_outcomes": play.get("chance_outcomes", 8)}


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
    checkpoint = shipped_checkpoint(game, source)
    return AlphaZeroAgent(game, checkpoint.net, simulations, rng, name=name, **search_settings(checkpoint.card["play"]))
