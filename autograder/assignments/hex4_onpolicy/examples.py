"""Example submissions of part 4 (Hex, on-policy MCTS), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
from ...corpus import Case, as_distributed, forgeries, shipped_solution, simple

TESTS = ("test_winner", "test_tree_policy", "test_rollout", "test_legal_distribution", "test_policy_loss",
         "test_train_step", "test_topp")
HEX4 = set(TESTS)
# A Hex submission takes 35-40 s to grade (its JAX checks compile), so the demo shows its full answer only.
DEMO = ('full',)

WINNER_OTHER_DIAGONAL = '''
def winner(board):
    n = board.shape[0]
    for player in (1, 2):
        stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        seen = set(stack)
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1)):  # the wrong pair of diagonals
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
'''

FORGED_PLAY_GAME = '''
def play_game(agent_1, agent_2, size, show_moves=False):
    """Replaces the provided play_game: each agent is shown the empty board (so every opening looks
    played as the protocol says), and the opener is declared the winner without a game."""
    board = empty_board(size)
    agent_2(place(board, int(agent_1(board, 1)), 1), 2)
    return 1
'''

# A correct loss that first makes XLA compile a program of 20,000 operations (a Python loop unrolled inside
# jax.jit), anew for every shape: minutes of compilation per call (1,000 iterations take 7 s, 4,000 take
# 67 s). The policy_loss test cell's 60 s budget stops it; without the visible test passed, the training
# cell does not run it again.
COMPILE_BOMB = """
_correct_policy_loss = policy_loss


@jax.jit
def _unrolled(a):
    for _ in range(10_000):
        a = jnp.sin(a) + a
    return a


def policy_loss(logits, x, target):
    _unrolled(target)
    return _correct_policy_loss(logits, x, target)
"""



# Issue 31: forged submissions get what their own code earns and a flag saying what and where.
FORGERIES = forgeries(
    "hex4_onpolicy", HEX4, "winner", '__import__("azcourse.hex.game", fromlist=["board_winner"]).board_winner',
    "tree_policy",
    computed=("policy_loss", "def policy_loss(logits, x, target):", "azcourse.hex.anet", "masked_cross_entropy",
              "_helper(logits, x, target)"),
    framed=("winner", "def winner(board):", "board_winner", 'g["board_winner"](board)'),
    needs_failing=("test_rollout", "test_topp"))


def cases() -> list[Case]:
    return [
        simple("full", "hex4_onpolicy", HEX4),
        # the release as shipped is the blank submission (the same cells as every answer left blank)
        Case("as_distributed", "hex4_onpolicy", as_distributed("hex4_onpolicy"), set()),
        Case("shipped_solution", "hex4_onpolicy", shipped_solution("hex4_onpolicy"), set(TESTS)),
        # The rollout and TOPP probes put a correct winner in place (and test_rollout's visible test stops at
        # "fix winner first"), so only test_winner fails. With the wrong diagonals a full board still has
        # exactly one chain, so every game of the demo and training cells ends.
        simple("partial_winner", "hex4_onpolicy", HEX4 - {"test_winner"}, extra={"winner": WINNER_OTHER_DIAGONAL}),
        # Hostile: play_game (a provided function) replaced so that the visible TOPP tests pass without a game
        # being played; the hidden judge compares the table with the games the grader's agents really play.
        simple("forged_games", "hex4_onpolicy", HEX4 - {"test_topp"}, extra={"topp": FORGED_PLAY_GAME}),
        # Hostile or hapless: a loss whose compilation never ends costs its own points only, within minutes.
        simple("compile_bomb", "hex4_onpolicy", HEX4 - {"test_policy_loss"}, extra={"policy_loss": COMPILE_BOMB},
               flags=["(test_policy_loss): compilation or execution took longer than 60 s"]),
        *FORGERIES,
    ]
