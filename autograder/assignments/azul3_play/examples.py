"""Example submissions of part 3 (Azul), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
from ...corpus import Case, as_distributed, forgeries, shipped_solution, simple

TESTS = ("test_decode_move", "test_legal_takes", "test_masked_policy", "test_arena")
AZ3 = set(TESTS)
DEMO = ('full', 'partial_wall')

LEGAL_TAKES_WITHOUT_WALL = '''
def legal_takes(state):
    me = state.players[0]
    sources = np.vstack([state.centre, state.factories])
    mask = np.zeros((6, 5, 6), dtype=bool)
    for source in range(6):
        for colour in range(5):
            if sources[source, colour] == 0:
                continue
            mask[source, colour, 5] = True
            for row in range(5):
                held = me.pattern[row]
                # forgets that a colour already on wall row `row` may not go to pattern line `row`
                mask[source, colour, row] = held.sum() == 0 or (held[colour] > 0 and held.sum() < row + 1)
    return mask.reshape(-1)
'''

WRAPPERS = {  # one-line wrappers of the engine's helpers, which the Azul notebook forbids
    "decode_move": "def decode_move(code):\n    return string_to_action(code)\n",
    "legal_takes": "def legal_takes(state):\n    return get_valid_mask(state.encode())[:180]\n",
    "arena": '''
from azcourse.azul.game import Azul
from azcourse.core.arena import FunctionAgent, play_match
def arena(agent_a, agent_b, num_games, seed):
    r = play_match(Azul, lambda rng: FunctionAgent(agent_a, rng), lambda rng: FunctionAgent(agent_b, rng),
                   num_games, seed, paired_deals=False, workers=1, progress=False)
    return {"wins": r.wins / num_games, "draws": r.draws / num_games, "losses": r.losses / num_games,
            "mean_score_diff": r.mean_score_a - r.mean_score_b}
''',
}



# Issue 31: forged submissions get what their own code earns and a flag saying what and where.
FORGERIES = forgeries(
    "azul3_play", AZ3, "decode_move", '__import__("Azul_Simulator").string_to_action', "masked_policy",
    computed=("legal_takes", "def legal_takes(state):", "Azul_Simulator", "get_valid_mask",
              "_helper(state.encode())[:180]"),
    framed=("decode_move", "def decode_move(code):", "az", 'g["az"].string_to_action(code)'))


def cases() -> list[Case]:
    return [
        simple("full", "azul3_play", AZ3),
        simple("partial_wall", "azul3_play", AZ3 - {"test_legal_takes"},
               extra={"legal_takes": LEGAL_TAKES_WITHOUT_WALL}),
        Case("as_distributed", "azul3_play", as_distributed("azul3_play"), set()),
        Case("shipped_solution", "azul3_play", shipped_solution("azul3_play"), set(TESTS)),
        simple("wrappers", "azul3_play", {"test_legal_takes", "test_masked_policy", "test_arena"}, extra=WRAPPERS,
               flags=["arena calls a helper the notebook forbids: play_match",
                      "decode_move calls a helper the notebook forbids: string_to_action",
                      "legal_takes calls a helper the notebook forbids: get_valid_mask"]),
        *FORGERIES,
    ]
