"""Azul checkpoints: the one trainer's format, one loader, and agents from a checkpoint in one call.

A model is a checkpoint folder of ``azcourse.alphazero`` (``ckpts/azul_<model>/``: ``params.msgpack``, the
network's ``'params'`` in Flax's msgpack format, read without JAX, and ``card.json``: architecture,
search settings, training config and budget, arena results). ``load_network`` gives its network with
Azul's calls (``AzulNet``: a board in, a prior over the legal takes and a value out); the card's
``play`` entry holds the search its rows were measured with, the heuristic's mixes included
(``mcts_agent``), whichever loader opens it.

One-call agents::

    agent = load_agent("azul_strong")                       # policy only: one network call a move
    agent = load_agent("azul_strong", simulations=200)      # inside the generic MCTS (mcts_agent)
    action = agent(board, rng)

``make_model_agent("strong+search")`` understands the names used by the arena and ``play.py``.
"""
from __future__ import annotations

import json
import pathlib
from typing import Mapping

import numpy as np

import Azul_Simulator as az
from azcourse.alphazero.checkpoints import CARD_FILE, PARAMS_FILE, load_checkpoint

from . import features

MASK = slice(features.MASK_BLOCK, features.MASK_BLOCK + az.ACTION_DIM)  # the legal-move flags inside an encoding
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
CKPT_ROOT = REPO_ROOT / "ckpts"

# Search budget of the "+search" agents: simulations per move, capped at 1 s per move. 100
# simulations take about 30 ms a move with azul_strong's card (sampled refills); docs/azul_model.md's rows use it.
DEFAULT_SIMULATIONS = 100
DEFAULT_TIME_LIMIT = 1.0


def model_dir(name_or_path) -> pathlib.Path:
    """``ckpts/<name>`` for a model name ("azul_strong", or "strong" for short), else the path."""
    path = pathlib.Path(name_or_path)
    if path.is_dir():
        return path
    name = str(name_or_path)
    if not name.startswith("azul_"):
        name = "azul_" + name
    return CKPT_ROOT / name


def write_card(directory, card: Mapping) -> None:
    path = pathlib.Path(directory) / CARD_FILE
    path.write_text(json.dumps(card, indent=2, sort_keys=False) + "\n")


def record_arena(name_or_path, summary: Mapping, key: str | None = None) -> None:
    """Store an arena summary in the model's card under ``arena[key]`` (default
    ``"<agent_a> vs <agent_b>"``)."""
    directory = model_dir(name_or_path)
    card = read_card(directory)
    key = key or f"{summary['agent_a']} vs {summary['agent_b']}"
    keep = ("games", "seed", "wins", "draws", "losses", "win_rate", "win_rate_ci95", "score_rate", "mean_score_a",
            "mean_score_b", "mean_score_diff", "ms_per_move_a", "ms_per_move_b", "by_seat", "wall_s", "workers")
    card.setdefault("arena", {})[key] = {k: summary[k] for k in keep if k in summary}
    write_card(directory, card)


def read_card(name_or_path) -> dict:
    path = model_dir(name_or_path) / CARD_FILE
    return json.loads(path.read_text()) if path.exists() else {}


def load_network(name_or_path) -> "AzulNet":
    """The checkpoint's network in numpy (no JAX) with Azul's calls (``AzulNet``)."""
    checkpoint = load_checkpoint(model_dir(name_or_path))
    return AzulNet(checkpoint.net, checkpoint.game.encoder)


class AzulNet:
    """An Azul network of the one trainer on a board: ``net(board) -> (prior float64 (181,), value float)``,
    the prior a softmax over the legal actions (0 elsewhere), the value the mover's expected result in [-1, 1].

    Args:
        net: ``azcourse.alphazero.network.NumpyNet`` on ``encode``'s floats, 181 logits.
        encode: the encoding of its game (``features.encode``, 1,499 floats; ``features.encode_replies``, 1,859).
    """

    def __init__(self, net, encode=features.encode):
        self.net, self.encode = net, encode

    def forward(self, x: np.ndarray):
        """``x`` float32 ``(..., D)`` (``self.encode``) -> logits float32 ``(..., 181)`` for every
        action, legal or not, and the value (a float for one position, float32 ``(B,)`` for a batch)."""
        if x.ndim == 1:
            return self.net(x)
        logits, values = self.net.forward(x.reshape(-1, x.shape[-1]))
        return logits.reshape(x.shape[:-1] + logits.shape[-1:]), values.reshape(x.shape[:-1])

    def logits(self, board: np.ndarray) -> np.ndarray:
        """float32 (181,): the network's logits, illegal actions at -inf."""
        x = self.encode(board)
        logits, _ = self.net(x)
        return np.where(x[MASK] > 0, logits, -np.inf)

    def __call__(self, board: np.ndarray):
        x = self.encode(board)
        logits, value = self.net(x)
        z = np.where(x[MASK] > 0, logits.astype(np.float64), -np.inf)
        z = np.exp(z - z.max())
        return z / z.sum(), value

    def policy_action(self, board: np.ndarray) -> int:
        return int(np.argmax(self.logits(board)))


class PolicyAgent:
    """One network call per move: the legal move with the largest logit."""

    def __init__(self, net: AzulNet, name: str = "policy"):
        self.net = net
        self.name = name

    def __call__(self, board, rng=None):
        if az.get_valid_mask(board)[az.NOOP]:
            return az.NOOP
        return self.net.policy_action(board)


def play_evaluator(game, forward, prior_mix: float, value_mix: float):
    """The mixed leaf evaluation (``mcts_agent.AzulEvaluator``) of an Azul checkpoint's network ``forward`` (a
    ``NumpyNet`` on ``game``'s encoding): what ``azcourse.registry.PLAY_EVALUATORS`` names for the agents that
    ``azcourse.alphazero.agent`` makes of a card's ``play`` entry, the evaluator of ``load_agent`` below."""
    from .mcts_agent import AzulEvaluator

    return AzulEvaluator(AzulNet(forward, game.encoder), prior_mix, value_mix)


def load_agent(name_or_path, simulations: int | None = None, time_limit: float | None = None, **play):
    """A checkpoint as an agent ``agent(board, rng) -> action`` in one call.

    Args:
        name_or_path: "azul_strong", "azul_baseline" (or "strong"/"baseline"), or a directory.
        simulations: ``None`` (and no ``time_limit``): policy only. Otherwise the generic MCTS with the search
            of the card's ``play`` entry (``azcourse.alphazero.searches``: the same search and leaf evaluation
            as ``azcourse.alphazero.agent.load_agent`` plays), ``simulations`` per move (default the card's).
        time_limit: optional cap in seconds per move for the search.
        play: entries over the card's ``play`` entry: ``MCTSConfig``'s settings, ``prior_mix`` and
            ``value_mix`` (the heuristic's weights, ``mcts_agent.AzulEvaluator``).
    """
    net = load_network(name_or_path)
    label = model_dir(name_or_path).name
    if simulations is None and time_limit is None:
        return PolicyAgent(net, label)
    from azcourse.alphazero import searches

    from .mcts_agent import AzulEvaluator, SearchAgent
    unknown = sorted(set(play) - set(searches.SEARCH_KEYS) - set(searches.MIX_KEYS))
    if unknown:
        raise ValueError(f"load_agent takes MCTSConfig's settings and {', '.join(searches.MIX_KEYS)}, not "
                         f"{', '.join(unknown)} (c_puct is c_init with c_base = inf; chance is chance_outcomes: "
                         "0 the refill a leaf, 4 sampled refills)")
    entry = {**read_card(name_or_path).get("play", {}), **play}
    config = searches.from_card(entry, simulations, time_limit)
    return SearchAgent(AzulEvaluator(net, *searches.mixes(entry)), config, name=f"{label}+search")


def make_model_agent(spec: str):
    """Agents by arena/CLI name: "strong", "baseline", "azul_strong", "strong+search",
    "strong+search:800" (simulations), "strong+search:0.5s" (seconds per move, sims uncapped)."""
    spec = spec.strip()
    name, _, search = spec.partition("+search")
    if not _:
        return load_agent(name)
    budget = search.lstrip(":")
    if not budget:
        return load_agent(name, simulations=DEFAULT_SIMULATIONS, time_limit=DEFAULT_TIME_LIMIT)
    if budget.endswith("s"):
        return load_agent(name, simulations=10**9, time_limit=float(budget[:-1]))
    return load_agent(name, simulations=int(budget), time_limit=DEFAULT_TIME_LIMIT)


def available_models() -> list[str]:
    """Model names with a checkpoint under ``ckpts/``."""
    if not CKPT_ROOT.exists():
        return []
    return sorted(p.name for p in CKPT_ROOT.iterdir() if (p / PARAMS_FILE).exists())


def _factory(spec: str):
    def build():
        return make_model_agent(spec)
    build.__doc__ = f"Build the {spec!r} agent from ckpts/ (see make_model_agent)."
    return build


# Zero-argument factories in the form of ``azcourse.azul.agents.AGENTS``:
# ``AGENTS.update(MODEL_AGENTS)`` makes the models playable by name (and ``play.py --opponent``).
MODEL_AGENTS = {spec: _factory(spec) for spec in ("baseline", "strong", "strong+search")}
