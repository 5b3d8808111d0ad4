"""Example submissions of part 5 (Othello planning), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
from ...corpus import Case, as_distributed, forgeries, own_helper, shipped_solution, simple

TESTS = ("test_flips", "test_legal_moves", "test_state_value", "test_value_move", "test_rollout_value",
         "test_monte_carlo_move", "test_simulate", "test_mcts_move", "test_win_rate_interval")
OTHELLO5 = set(TESTS)
# The full answer, and the planner of the tutorial this part re-creates (its rollouts start before the move).
DEMO = ("full", "tutorial_monte_carlo")

# The tutorial's Monte Carlo planner: every rollout starts from the current position, so the candidates'
# means differ by noise only. Its tournament still runs; only test_monte_carlo_move fails.
TUTORIAL_MONTE_CARLO = '''
def monte_carlo_move(game, state, predict, rng, top_k=3, rollouts=10, depth=5):
    me = game.to_move(state)
    prior = legal_prior(game, state, predict)
    candidates = sorted(np.flatnonzero(game.legal_mask(state)).tolist(), key=lambda a: (-prior[a], a))[:top_k]
    means = []
    for action in candidates:
        next_state = game.next_state(state, action)  # computed, then never used
        means.append(np.mean([rollout_value(game, state, me, predict, depth, rng) for _ in range(rollouts)]))
    return int(candidates[int(np.argmax(means))])
'''

# A draw scored as a loss, the tutorial's other fault.
DRAWS_AS_LOSSES = '''
def win_rate_interval(wins, draws, losses):
    z, n = 1.96, wins + draws + losses
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)
'''

# MCTS backing up every value from the leaf's side: the search plays on, weaker; only test_simulate fails
# (mcts_move is graded with a stand-in simulate).
NO_SIGN_CHANGE = '''
def simulate(root, game, predict, c_puct):
    node, path = root, []
    while node.expanded and not node.terminal:
        scores = node.Q() + c_puct * node.P * math.sqrt(1 + node.N.sum()) / (1 + node.N)
        action = int(np.argmax(np.where(node.legal, scores, -np.inf)))
        path.append((node, action))
        if action not in node.children:
            node.children[action] = Node(game, game.next_state(node.state, action))
        node = node.children[action]
    if node.terminal:
        value = float(game.returns(node.state)[node.player])
    else:
        node.P = legal_prior(game, node.state, predict)
        value = float(predict(node.state)[1])
    for parent, action in path:
        parent.N[action] += 1
        parent.W[action] += value
'''



# Issue 31: forged submissions get what their own code earns and a flag saying what and where; a helper of
# the student's own keeps full marks.
FORGERIES = forgeries(
    "othello5_planning", OTHELLO5, "state_value",
    '__import__("azcourse.core.planners", fromlist=["value_for"]).value_for', "flips",
    computed=("win_rate_interval", "def win_rate_interval(wins, draws, losses):", "azcourse.core.arena",
              "wilson_interval", "_helper(wins, draws, losses)"),
    framed=("state_value", "def state_value(game, state, player, predict):", "value_for",
            'g["value_for"](game, state, player, predict)'),
    needs_failing=("test_value_move", "test_rollout_value"))
OWN_HELPER = own_helper("othello5_planning", OTHELLO5, "win_rate_interval",
                        "def win_rate_interval(wins, draws, losses):", "statistics")


def cases() -> list[Case]:
    return [
        simple("full", "othello5_planning", OTHELLO5),
        # the release as shipped is the blank submission (the same cells as every answer left blank)
        Case("as_distributed", "othello5_planning", as_distributed("othello5_planning"), set()),
        Case("shipped_solution", "othello5_planning", shipped_solution("othello5_planning"), set(TESTS)),
        simple("tutorial_monte_carlo", "othello5_planning", OTHELLO5 - {"test_monte_carlo_move"},
               extra={"monte_carlo_move": TUTORIAL_MONTE_CARLO}),
        simple("draws_as_losses", "othello5_planning", OTHELLO5 - {"test_win_rate_interval"},
               extra={"win_rate_interval": DRAWS_AS_LOSSES}),
        simple("backup_without_sign", "othello5_planning", OTHELLO5 - {"test_simulate"},
               extra={"simulate": NO_SIGN_CHANGE}),
        *FORGERIES,
        OWN_HELPER,
    ]
