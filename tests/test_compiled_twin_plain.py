"""The compiled search's twin as plain Python (``NUMBA_DISABLE_JIT=1``, a subprocess): the generic search's games,
bit for bit, for every setting the twin implements on small boards; and every setting it does not implement,
refused by name wherever the compiled path can be chosen (quick tier: no compilation)."""
from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from azcourse.alphazero.compiled_search import Lockstep, play_games, refuse_unsupported, rules_for
from azcourse.alphazero.config import AlphaZeroConfig, ConfigError
from azcourse.alphazero.train import train
from azcourse.alphazero.workers import SelfPlayWorker
from azcourse.core.mcts import MCTSConfig
from azcourse.registry import make_game

from compiled_twin import PLAIN_CASES, dyadic_net

HERE = pathlib.Path(__file__).parent


def test_the_plain_python_twin_plays_the_generic_games():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, str(HERE / "compiled_twin.py")], env=env, capture_output=True, text=True,
                          timeout=300, cwd=HERE.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(found) == set(PLAIN_CASES)
    assert found == {case: "same" for case in PLAIN_CASES}, found


PUCT = dict(simulations=8, tree_policy="puct")
REFUSED = [
    (dict(simulations=8, tree_policy="uct"), "tree_policy = 'uct'"),
    (dict(PUCT, fpu_reduction=0.1), "fpu_reduction = 0.1"),
    (dict(PUCT, time_limit=0.5), "time_limit = 0.5 s"),
]


@pytest.mark.parametrize("values, name", REFUSED)
def test_each_setting_the_twin_lacks_is_refused_by_name(values, name):
    config = MCTSConfig(**values)
    game = make_game("hex3")
    for attempt in (lambda: refuse_unsupported(config, game), lambda: Lockstep(rules_for(game), config, 2),
                    lambda: play_games(game, dyadic_net(game).forward, config, 0, [np.random.default_rng(0)])):
        with pytest.raises(ConfigError, match=f"does not implement {name}"):
            attempt()


def test_a_game_without_compiled_rules_is_refused_with_the_settings():
    with pytest.raises(ConfigError, match="not 'tictactoe'"):
        refuse_unsupported(MCTSConfig(**PUCT), make_game("tictactoe"))
    refuse_unsupported(MCTSConfig(**PUCT, c_base=math.inf), make_game("othello4"))  # implemented: no error


def test_the_trainer_and_its_workers_refuse_before_any_game(tmp_path):
    with pytest.raises(ConfigError, match="not 'tictactoe'"):
        SelfPlayWorker(AlphaZeroConfig(game="tictactoe", search_path="compiled").to_dict())
    first_play_urgency = AlphaZeroConfig(game="hex3", search_path="compiled", search={"fpu_reduction": 0.1})
    with pytest.raises(ConfigError, match="does not implement fpu_reduction = 0.1"):
        SelfPlayWorker(first_play_urgency.to_dict())
    with pytest.raises(ConfigError, match="does not implement fpu_reduction = 0.1"):
        train(first_play_urgency, tmp_path / "run", show_progress=False)
    assert not (tmp_path / "run").exists()
