"""The learning curve of a run (``azcourse.alphazero.curve``) and the networks at real sizes by name.

The figure is drawn from ``curve.csv`` alone (a synthetic log here); ``evaluate`` plays a tiny run's kept
checkpoints against OpenSpiel's MCTS once each; ``load_agent("othello8")`` and the Othello and Hex
players pick a network up by name (a tiny untrained checkpoint in a temporary ``ckpts/``), and ``play.py``
plays the shipped 8x8 network. Seconds each.
"""
import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from azcourse.alphazero import checkpoints
from azcourse.alphazero.__main__ import main
from azcourse.alphazero.agent import load_agent
from azcourse.alphazero.config import AlphaZeroConfig
from azcourse.alphazero.curve import CURVE_FIELDS, CURVE_FILE, FIGURE_FILE, draw, evaluate, read_rows
from azcourse.alphazero.train import train

ROOT = Path(__file__).resolve().parents[1]
# two budgets, the rows out of order: the figure sorts each line by training time
SYNTHETIC = [(10, 600.0, 200, 2000, 0.25, 0.11, 0.47), (0, 0.0, 200, 2000, 0.0, 0.0, 0.16),
             (20, 1250.5, 200, 2000, 0.575, 0.36, 0.76), (0, 0.0, 200, 200, 0.1, 0.03, 0.30),
             (20, 1250.5, 200, 200, 0.9, 0.70, 0.97)]


def write_curve(run_dir, rows):
    with (run_dir / CURVE_FILE).open("w", newline="") as f:
        writer = csv.DictWriter(f, CURVE_FIELDS)
        writer.writeheader()
        for iteration, wall_s, sims, opponent, score, low, high in rows:
            writer.writerow({key: 0 for key in CURVE_FIELDS} | {
                "opponent": "openspiel", "iteration": iteration, "wall_s": wall_s, "simulations": sims, "opponent_simulations": opponent,
                "games": 20, "score": score, "score_low": low, "score_high": high})


def test_the_figure_is_drawn_from_the_curve_log(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no evaluation"):
        draw(tmp_path)
    write_curve(tmp_path, SYNTHETIC)
    figure = draw(tmp_path)
    assert (tmp_path / FIGURE_FILE).read_bytes().startswith(b"\x89PNG")
    (axes,) = figure.axes
    lines = {container.get_label(): container.lines[0] for container in axes.containers}
    assert len(lines) == 2
    for opponent in (200, 2000):
        rows = sorted((r for r in SYNTHETIC if r[3] == opponent), key=lambda r: r[1])
        (line,) = [line for label, line in lines.items() if f"@{opponent} (" in label]
        np.testing.assert_allclose(np.asarray(line.get_xdata(), float), [r[1] / 60 for r in rows])
        np.testing.assert_allclose(np.asarray(line.get_ydata(), float), [100 * r[4] for r in rows])
    bars = {container.get_label(): container.lines[2][0].get_segments() for container in axes.containers}
    (segments,) = [s for label, s in bars.items() if "@2000 (" in label]
    np.testing.assert_allclose([[seg[0][1], seg[1][1]] for seg in segments], [[0, 16], [11, 47], [36, 76]])


def test_evaluate_plays_each_kept_checkpoint_once_and_logs_its_training_time(tmp_path, capsys):
    pytest.importorskip("pyspiel")
    run_dir = tmp_path / "run"
    tiny = AlphaZeroConfig(search=dict(simulations=4), game="tictactoe", iterations=1, games_per_iteration=2,
                           train_steps=0, batch_size=8, hidden=(8,), checkpoint_every=1)
    train(tiny, run_dir, show_progress=False)
    rows = evaluate(run_dir, games=4, simulations=4, opponent_simulations=4, progress=False)
    assert [row["iteration"] for row in rows] == [0, 1]
    log_wall = float(list(csv.DictReader((run_dir / "log.csv").open()))[0]["wall_s"])
    assert [row["wall_s"] for row in rows] == [0.0, log_wall]
    for row in rows:
        assert row["wins"] + row["draws"] + row["losses"] == 4 == row["games"]
        assert row["first_wins"] + row["second_wins"] == row["wins"]
        assert row["score_low"] <= row["score"] <= row["score_high"]
    assert evaluate(run_dir, games=4, simulations=4, opponent_simulations=4, progress=False) == []
    (only,) = evaluate(run_dir, games=2, simulations=4, opponent_simulations=8, progress=False, every=2)
    assert only["iteration"] == 0
    assert read_rows(run_dir / CURVE_FILE)[:2] == rows and len(read_rows(run_dir / CURVE_FILE)) == 3
    assert main(["curve", str(run_dir), "--games", "0"]) == 0
    assert capsys.readouterr().out.strip().endswith(FIGURE_FILE)
    assert main(["curve", str(tmp_path / "nothing"), "--games", "0"]) == 2


@pytest.mark.slow
def test_a_curve_against_the_classical_yardstick_joins_a_log_written_before_the_opponent_column(tmp_path):
    """``--opponent classical:<depth>``: each pair of games after the same random opening, recorded as its own
    line; an older curve.csv (no ``opponent`` column: OpenSpiel's rows) keeps its rows and gains the column."""
    run_dir = tmp_path / "run"
    tiny = AlphaZeroConfig(search=dict(simulations=4), game="othello6", iterations=1, games_per_iteration=2,
                           train_steps=0, batch_size=8, hidden=(8,), checkpoint_every=1)
    train(tiny, run_dir, show_progress=False)
    old_fields = [key for key in CURVE_FIELDS if key != "opponent"]
    with (run_dir / CURVE_FILE).open("w", newline="") as f:
        writer = csv.DictWriter(f, old_fields)
        writer.writeheader()
        writer.writerow({key: 0 for key in old_fields} | {"simulations": 4, "opponent_simulations": 2000,
                                                          "games": 2, "score": 0.5, "score_low": 0.1, "score_high": 0.9})
    rows = evaluate(run_dir, games=2, simulations=4, progress=False, opponent="classical:1")
    assert [(row["iteration"], row["opponent"], row["opponent_simulations"]) for row in rows] == \
        [(0, "classical:1", 0), (1, "classical:1", 0)]
    assert all(row["wins"] + row["draws"] + row["losses"] == 2 for row in rows)
    kept = list(csv.DictReader((run_dir / CURVE_FILE).open()))
    assert [row["opponent"] for row in kept] == ["openspiel", "classical:1", "classical:1"]
    assert evaluate(run_dir, games=2, simulations=4, progress=False, opponent="classical:1") == []
    labels = {container.get_label() for container in draw(run_dir).axes[0].containers}
    assert labels == {"network @4 vs OpenSpiel MCTS @2000 (2 games a point)",
                      "network @4 vs classical:1 (2 games a point)"}
    with pytest.raises(ValueError, match="classical:<depth>"):
        evaluate(run_dir, games=2, simulations=4, progress=False, opponent="classical")


@pytest.fixture
def tiny_ckpts(tmp_path, monkeypatch):
    """A temporary ``ckpts/`` holding untrained Gumbel MLPs named ``othello8`` and ``hex7``."""
    monkeypatch.setattr(checkpoints, "CKPT_ROOT", tmp_path)
    for game in ("othello8", "hex7"):
        train(AlphaZeroConfig(search=dict(simulations=8, root_policy="gumbel"), game=game, iterations=0, hidden=(8,)),
              tmp_path / game, show_progress=False)
    return tmp_path


def test_the_real_size_networks_load_by_name_and_play(tiny_ckpts):
    from azcourse.alphazero.agent import shipped_agent
    from azcourse.core.arena import play_match
    from azcourse.hex.checkpoints import alphazero_checkpoint
    from azcourse.hex.game import Hex
    from azcourse.othello.agents import make_opponent
    from azcourse.othello.game import Othello

    agent = load_agent("othello8", simulations=4)
    assert agent.game.name == "othello8" and agent.mcts.config.root_policy == "gumbel"
    rng = np.random.default_rng(0)
    othello = Othello(8)
    assert othello.legal_mask(othello.initial_state(rng))[agent.choose(othello.initial_state(rng))]
    board = lambda rng: make_opponent("alphazero", othello, rng, 4)  # noqa: E731  play.py's Othello player
    randomly = lambda rng: make_opponent("random", othello, rng)  # noqa: E731
    assert play_match(lambda: othello, board, randomly, games=2, progress=False).games == 2
    hex_agent = shipped_agent(Hex(7), rng, 4, alphazero_checkpoint(Hex(7)))  # play.py's Hex player
    assert hex_agent.game.name == "hex7" and hex_agent.mcts.config.root_policy == "gumbel"
    assert load_agent("hex7").mcts.config.simulations == 8  # the card's budget


@pytest.mark.parametrize("game, size, network", [("othello", "8", "othello8"), ("hex", "7", "hex7")])
def test_play_py_plays_the_shipped_network(game, size, network):
    if not (ROOT / "ckpts" / network / "best" / "card.json").is_file():
        pytest.skip(f"no ckpts/{network}")
    done = subprocess.run([sys.executable, "play.py", game, "--size", size, "--opponent", "alphazero", "--second",
                           "--simulations", "20", "--seed", "0"], input="quit\n", capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stderr == "" and done.stdout.count("alphazero plays ") == 1, done.stdout
