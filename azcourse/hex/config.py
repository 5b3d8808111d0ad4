"""Every parameter of a Hex training run and tournament in one place (the Hex assignment, section 6.5).

A run is described by a TOML file (``configs/hex5.toml`` explains each key) and command-line
overrides: ``load_config(path, overrides)`` reads the file, then applies the overrides, so a flag
always wins over the file, and the file over the defaults below. An unknown key, in the file or in
the overrides, is refused with the list of known keys; a value of the wrong kind or out of range is
refused with the allowed values.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from azcourse.run_config import ConfigError, load_dataclass, toml_text

ACTIVATIONS = ("sigmoid", "tanh", "relu", "linear")
OPTIMIZERS = ("adagrad", "sgd", "rmsprop", "adam")
MOVE_CHOICES = ("sample", "best")
TOPP_POLICIES = ("greedy", "sample", "epsilon")


@dataclasses.dataclass(frozen=True)
class HexConfig:
    """One training run and its tournament.

    Attributes (section 6.5's names in brackets):
        board_size: n of the n x n board, 3 to 8 [size of the Hex board].
        episodes: actual games played in training [number of episodes].
        search_games: MCTS simulations per actual move [search games per actual move].
        c_uct: UCT exploration constant of the tree policy.
        epsilon, epsilon_decay, epsilon_min: the epsilon-greedy rollout (default) policy: episode
            ``e`` uses ``max(epsilon_min, epsilon * epsilon_decay ** e)``.
        move_choice: actual moves ``"sample"``d from the visit distribution D, or the ``"best"``
            (most visited).
        alternate_start: player 2 opens every other episode (the OHT alternates starters).
        rotate_cases: also add each case turned by 180 degrees (a symmetry of Hex: each player's
            two sides swap places), two cases per actual move.
        buffer_size: replay buffer capacity in cases; the oldest case goes first.
        batch_size: cases per minibatch; ``train_steps`` minibatches after each episode.
        learning_rate, optimizer: [learning rate], [optimizer]: adagrad, sgd, rmsprop or adam.
        hidden_layers, activation: [hidden layers and neurons per layer] as a list of widths,
            [activation function]: sigmoid, tanh, relu or linear.
        save_every: episodes between cached ANETs; the untrained net (episode 0) is cached first,
            so a run caches ``K = episodes // save_every + 1`` ANETs [number of cached ANETs].
        topp_games: games per series of the TOPP [G]; starts alternate.
        topp_policy: how a TOPP agent reads its ANET: ``"greedy"``, ``"sample"`` (draw from the
            distribution) or ``"epsilon"`` (greedy, random with probability ``topp_epsilon``).
        display: show each actual game (training episode, TOPP game) as it is played.
        display_mode: ``"text"`` or ``"figure"`` (see ``azcourse.hex.display.HexDisplay``).
        seed: seeds the network's initial weights and every random choice of the run.
    """

    board_size: int = 5
    episodes: int = 200
    search_games: int = 500
    c_uct: float = 1.4
    epsilon: float = 1.0
    epsilon_decay: float = 0.98
    epsilon_min: float = 0.1
    move_choice: str = "sample"
    alternate_start: bool = True
    rotate_cases: bool = True
    buffer_size: int = 4000
    batch_size: int = 128
    train_steps: int = 8
    learning_rate: float = 0.002
    optimizer: str = "adam"
    hidden_layers: tuple = (128, 128)
    activation: str = "relu"
    save_every: int = 50
    topp_games: int = 50
    topp_policy: str = "sample"
    topp_epsilon: float = 0.1
    display: bool = False
    display_mode: str = "text"
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "hidden_layers", tuple(self.hidden_layers))
        checks = [
            (3 <= self.board_size <= 8, "board_size must be from 3 to 8"),
            (self.episodes >= 0, "episodes must be 0 or more"),
            (self.search_games >= 1, "search_games must be at least 1"),
            (self.c_uct >= 0, "c_uct must be 0 or more"),
            (0 <= self.epsilon_min <= 1 and 0 <= self.epsilon <= 1, "epsilon and epsilon_min must lie in [0, 1]"),
            (0 < self.epsilon_decay <= 1, "epsilon_decay must lie in (0, 1]"),
            (self.move_choice in MOVE_CHOICES, f"move_choice must be one of {', '.join(MOVE_CHOICES)}"),
            (self.buffer_size >= 1 and self.batch_size >= 1, "buffer_size and batch_size must be at least 1"),
            (self.train_steps >= 0, "train_steps must be 0 or more"),
            (self.learning_rate > 0, "learning_rate must be positive"),
            (self.optimizer in OPTIMIZERS, f"optimizer must be one of {', '.join(OPTIMIZERS)}"),
            (all(isinstance(w, int) and w >= 1 for w in self.hidden_layers),
             "hidden_layers must be a list of positive widths, e.g. [64, 64] (or [] for none)"),
            (self.activation in ACTIVATIONS, f"activation must be one of {', '.join(ACTIVATIONS)}"),
            (self.save_every >= 1, "save_every must be at least 1"),
            (self.topp_games >= 1, "topp_games must be at least 1"),
            (self.topp_policy in TOPP_POLICIES, f"topp_policy must be one of {', '.join(TOPP_POLICIES)}"),
            (0 <= self.topp_epsilon <= 1, "topp_epsilon must lie in [0, 1]"),
            (self.display_mode in ("text", "figure"), "display_mode must be text or figure"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)

    def rollout_epsilon(self, episode: int) -> float:
        """The rollout policy's epsilon during episode ``episode`` (counted from 0)."""
        return max(self.epsilon_min, self.epsilon * self.epsilon_decay ** episode)

    @property
    def cached_anets(self) -> int:
        """K, the number of ANETs a full run caches (the untrained one included)."""
        return self.episodes // self.save_every + 1

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["hidden_layers"] = list(self.hidden_layers)
        return out


FIELDS = {f.name: f for f in dataclasses.fields(HexConfig)}


def load_config(path=None, overrides: Mapping[str, Any] | None = None) -> HexConfig:
    """The defaults, updated by the TOML file at ``path`` (if any), then by ``overrides`` (the flags: a
    value or its command-line text, ``"12"``, ``"true"``, ``"64,64"``; ``None``: not given). A value must be
    of its field's kind (``azcourse.run_config.coerce_value``).

    Raises:
        ConfigError: unreadable file, unknown key, wrong kind of value, or a value out of range.
    """
    return load_dataclass(HexConfig, path, overrides, noun="parameter")


def to_toml(config: HexConfig) -> str:
    """``config`` as TOML text that ``load_config`` reads back to an equal config."""
    return toml_text(config.to_dict())
