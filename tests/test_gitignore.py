"""Students' work and grades never end up in the repository: every place nbgrader or the pack writes
instructor outputs is git-ignored, at the course root and under autograder/, and nothing the pack
ships is."""
import shutil
import subprocess

import pytest

from autograder.grading_config import REPO_ROOT

pytestmark = pytest.mark.skipif(not shutil.which("git") or not (REPO_ROOT / ".git").exists(),
                                reason="needs git and a checkout")

OUTPUTS = ["grades.csv", "grades-final.csv", "autograder/demo/grades.csv", "downloaded/ttt1_mcts/archive/x.ipynb",
           "submitted/alice/ttt1_mcts/ttt1_mcts.ipynb", "autograder/submitted/alice/ttt1_mcts/ttt1_mcts.ipynb",
           "autograded/alice/ttt1_mcts/ttt1_mcts.ipynb", "feedback/alice/ttt1_mcts/ttt1_mcts.html",
           "autograder/feedback/alice/ttt1_mcts/ttt1_mcts.html", "gradebook.db", "autograder/gradebook.db",
           "gradebook.db-journal", ".nbgrader.log", "autograder/reports/ttt1_mcts/alice/ttt1_mcts.json",
           "dist/student/ttt1_mcts.zip", "ckpts/hex5/resume/state.msgpack",
           "exchange/azcourse/outbound/ttt1_mcts/ttt1_mcts.ipynb"]
SHIPPED = ["release/ttt1_mcts/ttt1_mcts.ipynb", "solutions/azul3_play/azul3_play.ipynb",
           "assignments/ttt2_selfplay/ttt2_selfplay.ipynb", "ckpts/azul_strong/card.json", "autograder/corpus.py",
           "requirements-student.txt", "azcourse/student_validate.py", "ckpts/hex5/anet_500/params.msgpack",
           "ckpts/hex5/training_log.csv", "ckpts/hex5/config.toml", "release/hex4_onpolicy/hex4_onpolicy.ipynb",
           "autograder/assignments/hex4_onpolicy/probes.py"]


def ignored(path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=REPO_ROOT).returncode == 0


@pytest.mark.parametrize("path", OUTPUTS)
def test_instructor_outputs_are_ignored(path):
    assert ignored(path), f"{path} would be committed by `git add -A`"


@pytest.mark.parametrize("path", SHIPPED)
def test_what_the_pack_ships_is_not_ignored(path):
    assert not ignored(path)
