"""Example submissions of part 6 (Tak and AlphaZero), each with the exact grade it must get.

``cases()`` is this assignment's part of the grading corpus (``autograder/corpus.py`` finds it by
folder); ``TESTS`` are its graded test cells; ``DEMO`` names the cases that ``python -m autograder demo``
grades.
"""
from ...corpus import Case, as_distributed, forgeries, shipped_solution, simple

TESTS = ("test_stack_moves", "test_has_road", "test_exploration_rate", "test_puct_select", "test_add_dirichlet_noise",
         "test_alphazero_loss", "test_win_rate_interval")
TAK6 = set(TESTS)
# One Tak submission in the demo: the full answer (its matches and JAX loss make it one of the slower ones).
DEMO = ("full",)

# The carry limit forgotten: a stack taller than the board moves all its stones.
CARRY_LIMIT_IGNORED = '''
def stack_moves(board, square):
    n = math.isqrt(len(board))
    stack = board[square]
    if not stack:
        return []

    def drop_sequences(count, squares):
        if count == 0:
            return [()]
        if squares == 0:
            return []
        return [(first, *rest) for first in range(1, count + 1) for rest in drop_sequences(count - first, squares - 1)]

    capstone = stack[-1] >> 1 == CAP
    rank, file = divmod(square, n)
    moves = []
    for direction, (dr, df) in enumerate(STEPS):
        line, r, f = [], rank + dr, file + df
        while 0 <= r < n and 0 <= f < n:
            line.append(r * n + f)
            r, f = r + dr, f + df
        free = 0
        while free < len(line) and (not board[line[free]] or board[line[free]][-1] >> 1 == FLAT):
            free += 1
        flattens = capstone and free < len(line) and board[line[free]][-1] >> 1 == WALL
        for count in range(1, len(stack) + 1):
            moves += [(direction, drops) for drops in drop_sequences(count, free)]
            if flattens:
                moves += [(direction, drops + (1,)) for drops in drop_sequences(count - 1, free) if len(drops) == free]
    return moves
'''

# The course report's exploration rate: c_init inside the logarithm (a negative rate).
REPORTS_RATE = '''
def exploration_rate(visits, c_init, c_base):
    return math.log((1 + visits + c_init) / c_base)
'''

# The L2 term over the kernels only, as the course pack's own trainer has it: the biases left out.
KERNELS_ONLY = '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.mean((z - v) ** 2)
    log_p = jax.nn.log_softmax(jnp.where(legal, logits, -1e9), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(jnp.where(legal, pi * log_p, 0.0), axis=-1))
    l2 = c * sum(jnp.sum(layer["kernel"] ** 2) for layer in params.values())
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
'''



# Issue 31: forged submissions get what their own code earns and a flag saying what and where.
FORGERIES = forgeries(
    "tak6_alphazero", TAK6, "exploration_rate",
    '__import__("azcourse.core.mcts", fromlist=["puct_exploration_rate"]).puct_exploration_rate', "stack_moves",
    computed=("win_rate_interval", "def win_rate_interval(wins, draws, losses, z=1.96):", "azcourse.core.arena",
              "wilson_interval", "_helper(wins, draws, losses, z)"),
    framed=("exploration_rate", "def exploration_rate(visits, c_init, c_base):", "puct_exploration_rate",
            'g["puct_exploration_rate"](visits, c_init, c_base)'),
    needs_failing=("test_puct_select",))


def cases() -> list[Case]:
    return [
        simple("full", "tak6_alphazero", TAK6),
        # the release as shipped is the blank submission (the same cells as every answer left blank)
        Case("as_distributed", "tak6_alphazero", as_distributed("tak6_alphazero"), set()),
        Case("shipped_solution", "tak6_alphazero", shipped_solution("tak6_alphazero"), set(TESTS)),
        simple("carry_limit", "tak6_alphazero", TAK6 - {"test_stack_moves"}, extra={"stack_moves": CARRY_LIMIT_IGNORED}),
        # puct_select's visible test stops at "fix exploration_rate first" and its hidden test runs it with a
        # correct rate: only test_exploration_rate fails.
        simple("reports_rate", "tak6_alphazero", TAK6 - {"test_exploration_rate"},
               extra={"exploration_rate": REPORTS_RATE}),
        simple("kernels_only", "tak6_alphazero", TAK6 - {"test_alphazero_loss"}, extra={"alphazero_loss": KERNELS_ONLY}),
        *FORGERIES,
    ]
