"""The searches of a run and of a checkpoint, all from one description of a search (``MCTSConfig``).

(``config`` below is a run's ``AlphaZeroConfig``; this module does not import it, so the students' bundles,
which play checkpoints but train nothing, need no trainer configuration.)

A run's config holds its full self-play search (``AlphaZeroConfig.search``, the TOML file's ``[search]``
table); every other search is that one with a few settings changed, made here and passed to the search
that runs it (never swapped onto a live one):

* ``full(config, iteration)``: a self-play move's search, with the iteration's budget (a growing budget);
* ``cheap(config)``: playout-cap randomisation's cheap move: fewer simulations, no noise of either kind;
* ``gate(config)``: the gating match's, without root noise;
* ``card_play(config)``: the card's ``play`` entry, how a checkpoint is played: ``full`` without root noise,
  with the run's ``play_*`` settings;
* ``from_card(play)``: that entry (or an older card's, which names fewer keys: the others take
  ``MCTSConfig``'s defaults) back as a search, with a budget of the caller's if it asks for one.

A card's ``play`` entry may also name the guide's weights in the leaf evaluation (``prior_mix``,
``value_mix``: ``azcourse.core.evaluators.GuidedEvaluator``'s convention), which the agents read
(``agent.load_agent``), and the run's exact endgame (``endgame_empties``, when above 0: the agents play the
solver's move from that many empty squares on and prove their moves with it).
An entry may name ``search_path = "compiled"``: its agents play the compiled search (``compiled_agent``),
whose moves cost a fraction of the generic search's (Othello, Hex and Tak).
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

from azcourse.core.mcts import MCTSConfig

SEARCH_KEYS = tuple(f.name for f in dataclasses.fields(MCTSConfig))
MIX_KEYS = ("prior_mix", "value_mix")  # a card's play entry: the guide's weights in the leaves' prior and value
ENDGAME_KEY = "endgame_empties"  # a card's play entry: the exact endgame's empty squares (absent: none)
SEARCH_PATH_KEY = "search_path"  # a card's play entry: "compiled" where its agents play the compiled search


def full(config, iteration: int | None = None) -> MCTSConfig:
    """A full self-play search of ``iteration`` (its ``simulations_at``; None: the config's own budget)."""
    if iteration is None:
        return config.search
    return dataclasses.replace(config.search, simulations=config.simulations_at(iteration))


def cheap(config) -> MCTSConfig | None:
    """The cheap search of playout-cap randomisation: ``cheap_simulations``, no Dirichlet or Gumbel noise
    (KataGo's choice: a cheap move is played as strongly as its budget allows); None when ``cheap_fraction``
    is 0."""
    if config.cheap_fraction == 0:
        return None
    return dataclasses.replace(config.search, simulations=config.cheap_simulations, dirichlet_alpha=0.0,
                               gumbel_scale=0.0)


def gate(config) -> MCTSConfig:
    """The gating match's search: ``gate_simulations``, no root noise (its agents sample their first moves)."""
    return dataclasses.replace(config.search, simulations=config.gate_simulations, dirichlet_alpha=0.0)


def card_play(config) -> dict:
    """A checkpoint card's ``play`` entry: the full search without root noise, its set values, with the
    run's ``play_*`` settings over it (``play_search_path`` named when ``"compiled"``); and the exact endgame
    (``play_endgame_empties``, else ``endgame_empties``) when above 0."""
    played = dataclasses.asdict(dataclasses.replace(config.search, dirichlet_alpha=0.0))
    entry = {key: value for key, value in played.items() if value is not None}
    if config.play_root_policy:
        entry["root_policy"] = config.play_root_policy
    if config.play_simulations:
        entry["simulations"] = config.play_simulations
    if config.play_search_path != "generic":
        entry[SEARCH_PATH_KEY] = config.play_search_path
    endgame = config.play_endgame_empties or config.endgame_empties
    if endgame:
        entry[ENDGAME_KEY] = int(endgame)
    return entry


def from_card(play: Mapping, simulations: int | None = None, time_limit: float | None = None,
              root_policy: str | None = None) -> MCTSConfig:
    """The search a card's ``play`` entry describes (PUCT unless it says otherwise), with ``simulations``,
    ``time_limit`` and ``root_policy`` when given."""
    values = {"tree_policy": "puct", **{key: play[key] for key in SEARCH_KEYS if key in play}}
    given = {"simulations": simulations, "time_limit": time_limit, "root_policy": root_policy}
    values.update({key: value for key, value in given.items() if value is not None})
    return MCTSConfig(**values)


def endgame_empties(play: Mapping) -> int:
    """The exact endgame's empty squares a card's ``play`` entry names (0: none)."""
    return int(play.get(ENDGAME_KEY, 0))


def search_path(play: Mapping) -> str:
    """The search a card's ``play`` entry says its agents play: ``"compiled"`` (``compiled_agent``) or
    ``"generic"`` (``azcourse.core.mcts``, when it names none)."""
    return str(play.get(SEARCH_PATH_KEY, "generic"))


def mixes(play: Mapping) -> tuple[float, float]:
    """The guide's weights ``(prior_mix, value_mix)`` a card's ``play`` entry names (``(0, 0)``: the network alone)."""
    return float(play.get("prior_mix", 0.0)), float(play.get("value_mix", 0.0))
