"""Tests of Azul_Visuals: the figure (texts on the axes, PNG output), the terminal text and headless imports."""
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

import Azul_Simulator as A
import Azul_Visuals as V

ROOT = Path(__file__).resolve().parents[1]
NAMES = {0: "You", 1: "Model"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _play(seed, stop):
    """Random play from a seeded new game until ``stop(board)`` or the game ends; returns the board."""
    rng = np.random.default_rng(seed)
    board = A.init_board(rng)
    while not stop(board) and not A.get_reward(board)[1]:
        board = A.get_next_state(board, rng.choice(np.flatnonzero(A.get_valid_mask(board))), rng)
    return board


def _boards():
    return {
        "fresh": A.init_board(np.random.default_rng(0)),
        "mid-game": _play(1, lambda b: A.AzulState.decode(b).round == 2
                          and A.AzulState.decode(b).factories.sum() == 12),
        "noop-pending": _play(2, lambda b: A.get_valid_mask(b)[A.NOOP]),
        "game-over": _play(3, lambda b: False),
    }


BOARDS = _boards()


def _hand_built():
    """Round 4, seat 1 ("Model") to move; seat 1 took the marker; see the expected text below."""
    seat0 = A.PlayerBoard(score=12, pattern=np.zeros((5, 5), int), wall=np.zeros((5, 5), bool),
                          floor=np.array([0, 2, 0, 0, 0]), has_marker=False, is_starter=True)
    seat0.pattern[0, 0] = 1  # line 1: B (full)
    seat0.pattern[2, 2] = 2  # line 3: R R
    seat0.wall[0, 1] = seat0.wall[1, 0] = True  # Y in row 1, W in row 2
    seat1 = A.PlayerBoard(score=7, pattern=np.zeros((5, 5), int), wall=np.zeros((5, 5), bool),
                          floor=np.array([0, 0, 1, 0, 0]), has_marker=True, is_starter=False)
    seat1.pattern[4, 3] = 3  # line 5: D D D
    seat1.wall[2, 2] = True  # B in row 3
    factories = np.zeros((5, 5), int)
    factories[0] = [2, 1, 1, 0, 0]
    factories[2] = [0, 0, 0, 2, 2]
    state = A.AzulState(bag=np.full(5, 6), lid=np.ones(5, int), factories=factories,
                        centre=np.array([0, 2, 0, 1, 0]), marker_in_centre=False, round=4, seat=1,
                        game_over=False, players=(seat1, seat0))
    return state.encode()


EXPECTED_TOP = [
    "Round 4: Model to move",
    "Bag 30 (B6 Y6 R6 D6 W6)   Lid 5 (B1 Y1 R1 D1 W1)",
    "1: B B Y R   2: -   3: D D W W   4: -   5: -",
    "C: Y Y D",
    "",
]
EXPECTED_SEAT0 = [
    "  You: 12 points",
    "  1         B | b Y r d w",
    "  2       . . | W b y r d",
    "  3     . R R | d w b y r",
    "  4   . . . . | r d w b y",
    "  5 . . . . . | y r d w b",
    "  F  Y  Y  .  .  .  .  .  (-2)",
    "    -1 -1 -2 -2 -2 -3 -3",
]
EXPECTED_SEAT1 = [
    "> Model: 7 points  [to move]",
    "  1         . | b y r d w",
    "  2       . . | w b y r d",
    "  3     . . . | d w B y r",
    "  4   . . . . | r d w b y",
    "  5 . . D D D | y r d w b",
    "  F  1  R  .  .  .  .  .  (-2)",
    "    -1 -1 -2 -2 -2 -3 -3",
]


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def _text_x(fig, text):
    return [t.get_position()[0] for ax in fig.axes for t in ax.texts if t.get_text() == text]


# ----------------------------------------------------------------------------------------------
# Figure
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(BOARDS))
def test_plot_state_labels_and_png(name, tmp_path):
    board = BOARDS[name]
    state = A.AzulState.decode(board)
    fig = V.plot_state(board)
    assert isinstance(fig, Figure)
    width, height = fig.get_size_inches()
    assert width == 12 and height <= 7
    texts = _texts(fig)
    for label in ["1", "2", "3", "4", "5", "C (centre)", "F"]:
        assert label in texts
    assert texts.count("F") == 2
    for penalty, count in (("-1", 4), ("-2", 6), ("-3", 4)):
        assert texts.count(penalty) == count
    for seat in (0, 1):
        assert f"Score {state.by_seat(seat).score}" in texts
        assert f"Seat {seat}" in texts
    assert f"Bag: {state.bag.sum()}" in texts and f"Lid: {state.lid.sum()}" in texts
    assert f"round {state.round}" in texts[0].lower()
    path = tmp_path / f"{name}.png"
    fig.savefig(path)
    assert path.read_bytes().startswith(PNG_SIGNATURE) and path.stat().st_size > 10_000


def test_plot_status_lines():
    fresh = BOARDS["fresh"]
    texts = _texts(V.plot_state(fresh))
    assert texts[0] == f"Round 1: Seat {A.current_seat(fresh)} to move"
    assert texts.count("\u25b6 to move") == 1
    noop = BOARDS["noop-pending"]
    assert _texts(V.plot_state(noop))[0] == (
        f"Round {A.AzulState.decode(noop).round}: offer empty, Seat {A.current_seat(noop)} "
        "to play NOOP (wall-tiling, then refill)")


def test_plot_game_over_shows_result():
    board = BOARDS["game-over"]
    state = A.AzulState.decode(board)
    scores = [state.by_seat(s).score for s in (0, 1)]
    w = A.winner(scores, [state.by_seat(s).complete_rows() for s in (0, 1)])
    texts = _texts(V.plot_state(board, seat_names=NAMES))
    assert texts[0].startswith(f"Game over after round {state.round}: ")
    assert "\u25b6 to move" not in texts
    if w is None:
        assert "shared victory" in texts[0] and texts.count("shared victory") == 2
    else:
        verb = "win" if NAMES[w] == "You" else "wins"
        assert f"{NAMES[w]} {verb} {scores[w]}-{scores[1 - w]}" in texts[0]
        assert texts.count("\u2605 winner") == 1


def test_plot_hand_built_tiles_marker_and_floor():
    fig = V.plot_state(_hand_built(), seat_names=NAMES)
    texts = _texts(fig)
    assert "Score 12" in texts and "Score 7" in texts
    assert texts.count("floor: -2") == 2
    # Each letter: 2 walls x 5 cells, plus the tiles in factories, centre, pattern lines and floors.
    assert texts.count("B") == 10 + 2 + 1
    assert texts.count("Y") == 10 + 1 + 2 + 2
    assert texts.count("R") == 10 + 1 + 2 + 1
    assert texts.count("D") == 10 + 2 + 1 + 3
    assert texts.count("W") == 10 + 2
    # "1": factory label, two pattern-line labels, the marker on seat 1's floor, 5 lid counts of 1.
    assert texts.count("1") == 4 + 5
    assert (V.WIDTH - V.BOARD_W) + V.LINE_X in _text_x(fig, "1")  # first space of seat 1's floor


def test_seats_stay_in_place_when_the_turn_changes():
    board = _hand_built()
    for b, mover in ((board, 1), (A.flip_board(board), 0)):
        fig = V.plot_state(b, seat_names=NAMES)
        assert A.current_seat(b) == mover
        assert _text_x(fig, "You")[0] < V.WIDTH / 2 < _text_x(fig, "Model")[0]
        badge_x = _text_x(fig, "\u25b6 to move")[0]
        assert (badge_x > V.WIDTH / 2) == (mover == 1)


def test_plot_into_given_axes_with_title():
    fig = Figure(figsize=(8, 9))
    axes = fig.subplots(2, 1)
    assert V.plot_state(BOARDS["fresh"], ax=axes[1], title="Start") is fig
    assert axes[1].get_title() == "Start" and not axes[0].texts and axes[1].texts


def test_board_figure_displays_as_png_in_notebooks():
    assert V.plot_state(BOARDS["fresh"])._repr_png_().startswith(PNG_SIGNATURE)


# ----------------------------------------------------------------------------------------------
# Text
# ----------------------------------------------------------------------------------------------
def test_render_text_hand_built_position():
    lines = V.render_text(_hand_built(), color=False, seat_names=NAMES).split("\n")
    assert lines[:5] == EXPECTED_TOP
    block = lines[5:13]
    split = block[0].index("> Model")
    assert [x[:split].rstrip() for x in block] == EXPECTED_SEAT0
    assert [x[split:] for x in block] == EXPECTED_SEAT1
    assert "first-player marker" in lines[13] and len(lines) == 14


def test_render_text_states():
    assert V.render_text(BOARDS["fresh"], color=False).splitlines()[3] == "C: 1"
    noop = V.render_text(BOARDS["noop-pending"], color=False)
    assert "NOOP" in noop.splitlines()[0] and "1: -   2: -   3: -   4: -   5: -" in noop
    over = V.render_text(BOARDS["game-over"], color=False).splitlines()[0]
    assert over.startswith("Game over after round")


def test_render_text_color_adds_only_ansi_escapes():
    board = BOARDS["mid-game"]
    plain = V.render_text(board, color=False)
    colored = V.render_text(board, color=True)
    assert "\x1b[" not in plain and "\x1b[97;44mB\x1b[0m" in colored
    assert V._ANSI.sub("", colored) == plain


class _FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_color_auto_detection(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert V.color_supported(io.StringIO()) is False
    assert V.color_supported(_FakeTTY()) is True
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert "\x1b[" not in V.render_text(BOARDS["mid-game"])
    monkeypatch.setattr(sys, "stdout", _FakeTTY())
    assert "\x1b[" in V.render_text(BOARDS["mid-game"])
    monkeypatch.setenv("TERM", "dumb")
    assert V.color_supported(_FakeTTY()) is False
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("NO_COLOR", "1")
    assert V.color_supported(_FakeTTY()) is False


def test_print_state(capsys):
    V.print_state(BOARDS["fresh"], color=False, seat_names=NAMES)
    assert capsys.readouterr().out == V.render_text(BOARDS["fresh"], color=False, seat_names=NAMES) + "\n"


# ----------------------------------------------------------------------------------------------
# Imports
# ----------------------------------------------------------------------------------------------
def _run(code):
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_engine_import_does_not_load_matplotlib():
    out = _run("import sys, Azul_Simulator\n"
               "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))")
    assert out == "[]"


def test_visuals_work_headless_without_pyplot(tmp_path):
    png = tmp_path / "board.png"
    out = _run("import sys, numpy as np, Azul_Simulator as A, Azul_Visuals as V\n"
               f"V.plot_state(A.init_board(np.random.default_rng(0))).savefig({str(png)!r})\n"
               "print('matplotlib.pyplot' in sys.modules)")
    assert out == "False"
    assert png.read_bytes().startswith(PNG_SIGNATURE)
