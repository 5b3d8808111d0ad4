"""The semester's commands as the README and docs/autograder.md give them: one block, in order, each
line a command the CLI accepts (each command's behaviour has its own tests: test_deadlines,
test_collect, test_grading_ray, test_rejudge, test_export_lms, test_class_report, ...)."""
import json
import re
import shlex

import pytest

from autograder.__main__ import build_parser
from autograder.grading_config import REPO_ROOT

STEPS = ["build", "add-students", "deadlines", "collect", "autograde", "rejudge", "feedback", "export", "report"]
PROGRAM = [".venv/bin/python", "-m", "autograder"]


def semester_block(path) -> str:
    """The fenced bash block after the file's "**A semester, in order**"."""
    return re.search(r"\*\*A semester, in order\.?\*\*.*?```bash\n(.*?)```", path.read_text(), re.S).group(1)


def commands(block: str) -> list[list[str]]:
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_readme_and_the_docs_give_the_same_semester():
    assert semester_block(REPO_ROOT / "README.md") == semester_block(REPO_ROOT / "docs" / "autograder.md")


def test_each_step_once_in_the_order_of_a_term():
    lines = commands(semester_block(REPO_ROOT / "README.md"))
    assert all(line[:3] == PROGRAM for line in lines), lines
    assert [line[3] for line in lines] == STEPS


@pytest.mark.parametrize("line", commands(semester_block(REPO_ROOT / "README.md")), ids=lambda line: line[3])
def test_each_line_is_a_command_the_cli_accepts(line):
    args = build_parser().parse_args(line[3:])  # argparse exits (SystemExit 2) on an unknown option
    assert args.command == line[3]


def test_the_rejudged_test_exists_in_its_assignment():
    line = next(line for line in commands(semester_block(REPO_ROOT / "README.md")) if line[3] == "rejudge")
    assignment, grade_id = line[4], line[line.index("--test") + 1]
    notebook = json.loads((REPO_ROOT / "assignments" / assignment / f"{assignment}.ipynb").read_text())
    ids = {cell["metadata"].get("nbgrader", {}).get("grade_id") for cell in notebook["cells"]}
    assert grade_id in ids
