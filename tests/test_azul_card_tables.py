"""The Azul models' figures that people read come from the cards: the results table of README.md and
docs/azul_model.md (written by ``scripts/azul_arena_report.py``) and the strengths ``play.py azul --help``
gives each opponent (azcourse/azul_cli.py)."""
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report():
    spec = importlib.util.spec_from_file_location("azul_arena_report", ROOT / "scripts" / "azul_arena_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_tables_are_the_cards(report):
    table = report.card_table()
    assert len(table.splitlines()) == 2 + len(report.ROWS)  # every row of the report is recorded
    for path in report.TABLE_DOCS:
        text = path.read_text()
        assert report.with_table(text, table) == text, (
            f"{path.name}'s table differs from the cards: python scripts/azul_arena_report.py --plot-only")


def test_a_table_row_gives_score_and_win_intervals_from_the_card(report):
    row = report.card_table().splitlines()[2 + [f"{a} vs {b}" for a, b, _ in report.ROWS].index("strong vs yardstick:3")]
    card = report.recorded_rows()["strong vs yardstick:3"]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == str(card["games"]) and cells[2] == f"{card['wins']} / {card['draws']} / {card['losses']}"
    points = card["wins"] + card["draws"] / 2
    assert cells[3].startswith(f"{100 * points / card['games']:.1f}% (")
    low, high = map(float, re.fullmatch(r"[\d.]+% \(([\d.]+)-([\d.]+)\)", cells[3]).groups())
    assert low < 100 * points / card["games"] < high


def test_with_table_replaces_only_the_block_and_refuses_a_text_without_one(report):
    text = f"intro\n\n{report.TABLE_START}\n| old |\n{report.TABLE_END}\n\nafter\n"
    assert report.with_table(text, "| new |") == f"intro\n\n{report.TABLE_START}\n| new |\n{report.TABLE_END}\n\nafter\n"
    with pytest.raises(ValueError, match="no table block"):
        report.with_table("intro\n| old |\n", "| new |")


def test_play_help_strengths_are_the_cards(report):
    from azcourse.azul_cli import OPPONENTS

    rows = report.recorded_rows()
    cited = {"baseline": "baseline vs yardstick:3", "strong": "strong vs yardstick:3",
             "strong+search": "strong+search vs yardstick:3",
             "strong+search:800": "strong+search:200 vs yardstick:3",  # its help cites the 200-simulation row
             "strong+search:0.5s": "strong+search:0.5s vs yardstick:3"}
    for name, match in cited.items():
        row = rows[match]
        draws = "" if not row["draws"] else f" ({row['draws']} draw{'s' if row['draws'] > 1 else ''})"
        assert f"won {row['wins']} of {row['games']}{draws} against the" in OPPONENTS[name], (name, match)
