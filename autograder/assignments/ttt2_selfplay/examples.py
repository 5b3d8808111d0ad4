"""Example submissions of part 2 (tic-tac-toe self-play and training), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
from ...corpus import Case, forgeries, shipped_solution, simple, source_solutions

TESTS = ("test_train_step", "test_match_average")
T2 = set(TESTS)
DEMO = ('full', 'blank', 'partial')

WRONG_MATCH_AVERAGE = '''
def match_average(agent1, agent2, num_games=200):
    return (100.0, 0.0, 0.0)
'''



# Issue 31: forged submissions get what their own code earns and a flag saying what and where.
FORGERIES = forgeries(
    "ttt2_selfplay", T2, "match_average", '__import__("azcourse.core.arena", fromlist=["play_match"]).play_match',
    "train_step",
    computed=("match_average", "def match_average(agent1, agent2, num_games=200):", "azcourse.core.arena",
              "play_match", "_helper(agent1, agent2, num_games)"),
    framed=("train_step", "def train_step(state, boards, target_pis, target_values):", "train_calls",
            'g["train_calls"](train_step, state, [(boards, target_pis, target_values)])[0:2]'))


def cases() -> list[Case]:
    return [
        simple("full", "ttt2_selfplay", T2),
        simple("blank", "ttt2_selfplay", set(), blank=tuple(source_solutions("ttt2_selfplay"))),
        simple("partial", "ttt2_selfplay", {"test_train_step"}, extra={"match_average": WRONG_MATCH_AVERAGE}),
        # the solutions notebook shows part 1's answers in the locked cell that the release fills by an import
        Case("shipped_solution", "ttt2_selfplay", shipped_solution("ttt2_selfplay"), set(TESTS),
             problems=["locked cell part1_solutions was edited (the grader uses the original)"]),
        *FORGERIES,
    ]
