"""Example submissions of part 2 (tic-tac-toe self-play and training), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
from ...corpus import Case, simple, source_solutions

TESTS = ("test_train_step", "test_match_average")
T2 = set(TESTS)
DEMO = ('full', 'blank', 'partial')

WRONG_MATCH_AVERAGE = '''
def match_average(agent1, agent2, num_games=200):
    return (100.0, 0.0, 0.0)
'''


def cases() -> list[Case]:
    return [
        simple("full", "ttt2_selfplay", T2),
        simple("blank", "ttt2_selfplay", set(), blank=tuple(source_solutions("ttt2_selfplay"))),
        simple("partial", "ttt2_selfplay", {"test_train_step"}, extra={"match_average": WRONG_MATCH_AVERAGE}),
    ]
