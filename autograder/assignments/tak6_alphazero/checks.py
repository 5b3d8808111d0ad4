"""Hidden tests of part 6 (Tak and AlphaZero): cases, data shapes and judges (see ``ttt1_mcts/checks.py``).

The probes are in ``tak6_alphazero/probes.py``, the only part of these tests that enters the sandbox; the
reference is ``assignments/tak6_alphazero/tak6_alphazero.ipynb``. The pack's Tak engine is the rules'
source of truth: ``tests/test_tak_notebook_checks.py`` checks that the reference agrees with it on every case.
"""
import math

import numpy as np

from azcourse.tak.game import DIRECTIONS, Tak, square_name

from ..._probe_util import short
from ..._report import compare_all, failure, indent
from .probes import PROBES
from ...probe_schema import REF, Bool, Either, Int, ListOf, Num, Record, Str, per_case
from ...probes import run_check

SEED = 20261125
REFERENCE = ("tak6_alphazero", "tak6_alphazero")  # (assignment, notebook) of the reference solution
SIZES = range(3, 7)
FLAT, WALL, CAP = 0, 1, 2
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
# The course pack's helpers that do a graded function's whole job: a solution reaching one is flagged.
FORBIDDEN_HELPERS = {
    "stack_moves": {"legal_actions", "legal_mask", "_tables", "reachable", "flattening", "_problem", "compositions"},
    "has_road": {"_road", "has_road"},
    "exploration_rate": {"puct_exploration_rate"},
    "puct_select": {"_select"},
    "add_dirichlet_noise": {"clean_prior"},
    "alphazero_loss": {"make_loss", "make_train_steps", "training_for"},
    "win_rate_interval": {"wilson_interval", "interval", "intervals"},
}


def board_code(board) -> str:
    """The board as the notebook's stacks(...) call (paste it into a cell to try)."""
    n = math.isqrt(len(board))

    def text(stack):
        if not stack:
            return "x"
        return "".join(str((c & 1) + 1) for c in stack) + ("", "S", "C")[stack[-1] >> 1]
    rows = [" ".join(text(board[r * n + f]) for f in range(n)) for r in range(n - 1, -1, -1)]
    return "stacks(" + ", ".join(f'"{row}"' for row in rows) + ")"


def _board_block(board) -> str:
    n = math.isqrt(len(board))
    rows = board_code(board)[len("stacks("):-1].replace('"', "").split(", ")
    lines = [f"{n - i} {' '.join(cell.rjust(4) for cell in row.split())}" for i, row in enumerate(rows)]
    lines.append("  " + " ".join(letter.rjust(4) for letter in "abcdef"[:n]))
    return f"{indent(chr(10).join(lines))}\n    (stacks bottom to top: 1 White, 2 Black; S wall, C capstone on top)\n" \
           f"    as code: {board_code(board)}"


def random_positions(size: int, count: int, rng, stack_bias: float = 0.7) -> list:
    """Boards of random games of the pack's Tak (stack moves preferred, so stacks grow tall)."""
    game = Tak(size)
    boards = []
    while len(boards) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(boards) < count:
            if state.ply >= 2 and rng.random() < 0.3:
                boards.append(state.board)
            legal = game.legal_actions(state)
            moves = [a for a in legal if a >= game.placements]
            pool = moves if moves and rng.random() < stack_bias else legal
            state = game.next_state(state, int(pool[rng.integers(len(pool))]))
    return boards


def random_board(size: int, rng, empty: float = 0.3, tall: int = 8) -> tuple:
    """A board of random stacks (flats below, any kind on top), not necessarily reachable in a game."""
    board = []
    for _ in range(size * size):
        if rng.random() < empty:
            board.append(())
            continue
        stack = [int(c) for c in rng.integers(0, 2, size=int(rng.integers(1, tall + 1)))]
        stack[-1] += 2 * int(rng.choice([FLAT, FLAT, WALL, CAP]))
        board.append(tuple(stack))
    return tuple(board)


# ---------------------------------------------------------------- stack_moves

def _capstone_boards(size: int, rng) -> list:
    """(board, square): a capstone stack facing a wall 1 to n-1 squares away, flats or nothing between."""
    out = []
    for _ in range(6):
        board = [()] * (size * size)
        square = int(rng.integers(size * size))
        rank, file = divmod(square, size)
        stack = [int(c) for c in rng.integers(0, 2, size=int(rng.integers(1, size + 3)))]
        stack[-1] += 2 * CAP
        board[square] = tuple(stack)
        direction = int(rng.integers(4))
        dr, df = STEPS[direction]
        line = [(rank + dr * k) * size + file + df * k for k in range(1, size)
                if 0 <= rank + dr * k < size and 0 <= file + df * k < size]
        if not line:
            continue
        at = int(rng.integers(len(line)))
        for target in line[:at]:
            if rng.random() < 0.5:
                board[target] = (int(rng.integers(2)),)
        board[line[at]] = tuple(int(c) for c in rng.integers(0, 2, size=int(rng.integers(1, 3))))
        board[line[at]] = board[line[at]][:-1] + (board[line[at]][-1] + 2 * WALL,)
        for other in rng.choice(size * size, size=size, replace=False):
            if not board[other] and rng.random() < 0.5:
                board[other] = (int(rng.integers(2)) + 2 * int(rng.integers(3)),)
        out.append((tuple(board), square))
    return out


def cases_stack_moves() -> list:
    """Every stack of positions of random games of every size, random boards (walls and capstones on top,
    tall stacks), and capstones facing walls."""
    rng = np.random.default_rng(SEED)
    cases = []
    for size in SIZES:
        for board in random_positions(size, 12, rng):
            cases += [{"board": board, "square": s} for s, stack in enumerate(board) if stack]
        for _ in range(10):
            board = random_board(size, rng)
            cases += [{"board": board, "square": s} for s in rng.choice(size * size, size=4, replace=False)]
        cases += [{"board": board, "square": square} for board, square in _capstone_boards(size, rng)]
    return [{"board": [list(s) for s in case["board"]], "square": int(case["square"])} for case in cases]


def _move_text(move: str, square: int, n: int) -> str:
    direction, drops = move.split(":")
    drops = tuple(int(k) for k in drops.split(",")) if drops else ()
    count = sum(drops)
    return (f"{count if count != 1 else ''}{square_name(n, square)}{DIRECTIONS[int(direction)]}"
            f"{''.join(map(str, drops)) if len(drops) != 1 else ''}")


def _why_illegal(board, square: int, move: str) -> str:
    """The rule a returned move breaks (for the first one shown)."""
    n = math.isqrt(len(board))
    direction, drops = move.split(":")
    drops = [int(k) for k in drops.split(",")] if drops else []
    stack = board[square]
    if not drops or min(drops) < 1:
        return "each square passed gets at least one stone"
    if sum(drops) > n:
        return f"it carries {sum(drops)} stones: the carry limit is the board size, {n}"
    if sum(drops) > len(stack):
        return f"it carries {sum(drops)} stones from a stack of {len(stack)}"
    rank, file = divmod(square, n)
    dr, df = STEPS[int(direction)]
    for k, dropped in enumerate(drops, start=1):
        r, f = rank + dr * k, file + df * k
        if not (0 <= r < n and 0 <= f < n):
            return "it runs off the board"
        target = board[r * n + f]
        top = target[-1] >> 1 if target else FLAT
        if top == CAP:
            return f"it drops onto the capstone on {square_name(n, r * n + f)}: nothing moves onto a capstone"
        if top == WALL:
            if stack[-1] >> 1 != CAP:
                return f"it drops onto the wall on {square_name(n, r * n + f)}: only a capstone flattens a wall"
            if k != len(drops):
                return f"it goes past the wall on {square_name(n, r * n + f)}"
            if dropped != 1:
                return (f"it drops {dropped} stones onto the wall on {square_name(n, r * n + f)}: the capstone flattens "
                        "a wall only alone (last drop 1)")
    return "it is not a move of this stack"


def judge_stack_moves(cases: list, expected: list, outputs: list) -> None:
    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if want != got]
    if not bad:
        return
    i = bad[0]
    case, want, got = cases[i], expected[i], outputs[i]
    board = tuple(tuple(s) for s in case["board"])
    n, square = math.isqrt(len(board)), case["square"]
    head = f"{_board_block(board)}\n  stack_moves(board, {square}): the stack on {square_name(n, square)}"
    if isinstance(got, str) or isinstance(want, str):
        detail = f"  expected: {short(want)}\n  got:      {short(got)}"
    else:
        names = lambda moves: sorted({_move_text(m, square, n) for m in moves})  # noqa: E731
        repeated = sorted({_move_text(m, square, n) for m in got if got.count(m) > 1})
        missing = names(set(want) - set(got))
        extra = sorted(set(got) - set(want))
        lines = [f"  expected {len(want)} moves, got {len(got)}"]
        if missing:
            lines.append(f"  legal but not returned: {short(missing)}")
        if extra:
            lines.append(f"  returned but not legal: {short(names(extra))}")
            lines.append(f"  {_move_text(extra[0], square, n)} is illegal: {_why_illegal(board, square, extra[0])}")
        if repeated:
            lines.append(f"  returned more than once: {short(repeated)}")
        lines.append("  (moves in Portable Tak Notation: count, square, direction + - > <, drops)")
        detail = "\n".join(lines)
    raise failure("stack_moves", len(bad), len(cases), f"{head}\n{detail}")


def check_stack_moves(fn) -> None:
    run_check(__name__, "stack_moves", fn)


# ---------------------------------------------------------------- has_road

def _road_like(size: int, rng) -> tuple:
    """A random walk of one colour's flats across the board, with some squares spoiled (walls, the other
    colour on top, a gap) and diagonal steps now and then."""
    colour = int(rng.integers(2))
    board = [()] * (size * size)
    horizontal = rng.random() < 0.5
    r, f = (int(rng.integers(size)), 0) if horizontal else (0, int(rng.integers(size)))
    for _ in range(3 * size):
        board[r * size + f] = tuple(int(c) for c in rng.integers(0, 2, size=int(rng.integers(0, 3)))) + (colour,)
        if rng.random() < 0.15:
            board[r * size + f] = board[r * size + f][:-1] + (colour + 2 * CAP,)
        step = rng.random()
        if step < 0.5:
            r, f = (r, f + 1) if horizontal else (r + 1, f)
        elif step < 0.8:
            delta = int(rng.choice([-1, 1]))
            r, f = (r + delta, f) if horizontal else (r, f + delta)
        else:
            delta = int(rng.choice([-1, 1]))
            r, f = (r + delta, f + 1) if horizontal else (r + 1, f + delta)  # a diagonal step
        r, f = min(max(r, 0), size - 1), min(max(f, 0), size - 1)
        if (f == size - 1 if horizontal else r == size - 1) and rng.random() < 0.5:
            board[r * size + f] = (colour,)
            break
    if rng.random() < 0.6:
        spoiled = int(rng.choice([s for s, stack in enumerate(board) if stack]))
        board[spoiled] = board[spoiled] + (int(rng.choice([colour + 2 * WALL, 1 - colour, 1 - colour + 2 * WALL])),)
    return tuple(board)


def cases_has_road() -> list:
    rng = np.random.default_rng(SEED + 1)
    boards = []
    for size in SIZES:
        boards.append(((),) * (size * size))
        boards += random_positions(size, 20, rng, stack_bias=0.3)
        boards += [random_board(size, rng, empty=0.2, tall=3) for _ in range(20)]
        boards += [_road_like(size, rng) for _ in range(40)]
    return [{"board": [list(s) for s in board], "colour": colour} for board in boards for colour in (0, 1)]


def judge_has_road(cases: list, expected: list, outputs: list) -> None:
    def describe(case):
        board = tuple(tuple(s) for s in case["board"])
        n = math.isqrt(len(board))
        colour = case["colour"]
        mine = [square_name(n, s) for s, st in enumerate(board) if st and st[-1] in (colour, colour + 2 * CAP)]
        return (f"{_board_block(board)}\n  has_road(board, colour={colour}) ({'White' if colour == 0 else 'Black'}); "
                f"its road squares (a flat or capstone of its own on top): {', '.join(mine) or 'none'}\n"
                "  (a road joins the left and right edges, or the bottom and top edges, in orthogonal steps)")
    compare_all("has_road", cases, expected, outputs, lambda e, g: e == g, describe)


def check_has_road(fn) -> None:
    run_check(__name__, "has_road", fn)


# ---------------------------------------------------------------- exploration_rate

def cases_exploration_rate() -> list:
    rng = np.random.default_rng(SEED + 2)
    cases = [{"visits": v, "c_init": 1.25, "c_base": 19652.0} for v in (1, 2, 50, 800, 19651, 100000)]
    for i in range(60):
        cases.append({"visits": int(rng.integers(1, 10 ** int(rng.integers(1, 6)))),
                      "c_init": float(np.round(rng.uniform(0, 3), 3)) if i % 5 else 0.0,
                      "c_base": float([1.0, 5.0, 10.0, 100.0, 19652.0, float(np.round(rng.uniform(0.5, 50), 2))][i % 6])})
    return cases


def judge_exploration_rate(cases: list, expected: list, outputs: list) -> None:
    def same(want, got) -> bool:
        return isinstance(got, float) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if not same(want, got)]
    if bad:
        i = bad[0]
        case, got = cases[i], outputs[i]
        v, ci, cb = case["visits"], case["c_init"], case["c_base"]
        slips = {"the report's formula log((1 + N(s) + c_init) / c_base), c_init inside the logarithm":
                 math.log((1 + v + ci) / cb),
                 "without the + c_init": math.log((1 + v + cb) / cb),
                 "log((N(s) + c_base) / c_base) + c_init (the 1 + left out)": math.log((v + cb) / cb) + ci,
                 "a log in base 10": math.log10((1 + v + cb) / cb) + ci,
                 "the constant c_init (no growth with the visits)": ci}
        detail = f"  expected: {expected[i]!r}\n  got:      {short(got)}"
        found = [why for why, value in slips.items() if isinstance(got, float) and math.isclose(got, value, rel_tol=1e-9)]
        if found:
            detail += f"\n  which is {found[0]}"
        raise failure("exploration_rate", len(bad), len(cases),
                      f"  exploration_rate(visits={v}, c_init={ci}, c_base={cb})\n"
                      f"  rule: C(s) = log((1 + N(s) + c_base) / c_base) + c_init (natural log)\n{detail}")


def check_exploration_rate(fn) -> None:
    run_check(__name__, "exploration_rate", fn)


# ---------------------------------------------------------------- puct_select

def cases_puct_select(n: int = 300) -> list:
    rng = np.random.default_rng(SEED + 3)
    cases = []
    for i in range(n):
        k = int(rng.integers(1, 30))
        counts = rng.integers(0, 40, size=k) if i % 3 else rng.integers(0, 3, size=k)
        if i % 10 == 4:
            counts[:] = 0
        totals = np.where(counts > 0, np.round(counts * rng.uniform(-1, 1, size=k), 3), 0.0)
        prior = rng.dirichlet(np.full(k, [0.3, 1.0, 3.0][i % 3]))
        if i % 10 == 7:
            prior[:] = 1 / k
        c_base = [19652.0, 1.0, 5.0, 50.0][i % 4]
        cases.append({"counts": counts.astype(np.int64), "totals": totals.astype(np.float64), "prior": prior,
                      "visits": int(1 + counts.sum()), "c_init": [1.25, 0.5, 2.0, 0.0][(i // 4) % 4], "c_base": c_base,
                      "unvisited_value": [0.0, 0.0, -1.0, 0.5][(i // 2) % 4]})
    return cases


def puct_scores(case) -> np.ndarray:
    counts = case["counts"].astype(np.float64)
    q = np.where(counts > 0, case["totals"] / np.maximum(counts, 1), case["unvisited_value"])
    rate = math.log((1 + case["visits"] + case["c_base"]) / case["c_base"]) + case["c_init"]
    return q + rate * case["prior"] * math.sqrt(case["visits"]) / (1 + counts)


def _same_move_before(case, move: int) -> int | None:
    """The first move before `move` with the same N, W and P (so exactly the same score), if any."""
    same = np.flatnonzero((case["counts"][:move] == case["counts"][move]) & (case["totals"][:move] == case["totals"][move])
                          & (case["prior"][:move] == case["prior"][move]))
    return int(same[0]) if len(same) else None


def judge_puct_select(cases: list, expected: list, outputs: list) -> None:
    changed = [i for i, got in enumerate(outputs) if got["changed"]]
    if changed:
        raise failure("puct_select", len(changed), len(cases), "  puct_select changed counts, totals or prior: compute on "
                      "new arrays")

    def acceptable(case, got) -> bool:
        if not isinstance(got, int) or not 0 <= got < len(case["counts"]):
            return False
        scores = puct_scores(case)
        top = scores.max()
        return scores[got] >= top - 1e-9 * (1 + abs(top)) and _same_move_before(case, got) is None

    bad = [i for i, (case, got) in enumerate(zip(cases, outputs)) if not acceptable(case, got["choice"])]
    if bad:
        i = bad[0]
        case, got = cases[i], outputs[i]["choice"]
        scores = puct_scores(case)
        table = [f"move {a}: N = {int(case['counts'][a])}, W = {case['totals'][a]:+.3f}, P = {case['prior'][a]:.4f}, "
                 f"score {scores[a]:.5f}" for a in range(min(len(scores), 12))]
        if len(scores) > 12:
            table.append(f"... ({len(scores)} moves; the best is move {int(np.argmax(scores))})")
            if isinstance(got, int) and 12 <= got < len(scores):
                table.append(f"move {got}: N = {int(case['counts'][got])}, W = {case['totals'][got]:+.3f}, "
                             f"P = {case['prior'][got]:.4f}, score {scores[got]:.5f}")
        rate = math.log((1 + case["visits"] + case["c_base"]) / case["c_base"]) + case["c_init"]
        rule = (f"the largest Q + C(s) P sqrt(N(s)) / (1 + N(s, a)), Q = W / N (unvisited_value = "
                f"{case['unvisited_value']} where N = 0), C(s) = {rate:.4f}; ties to the lowest index")
        raise failure("puct_select", len(bad), len(cases),
                      f"  puct_select(counts, totals, prior, visits={case['visits']}, c_init={case['c_init']}, "
                      f"c_base={case['c_base']}, unvisited_value={case['unvisited_value']}) with\n"
                      f"{indent(chr(10).join(table))}\n  rule: {rule}\n  expected: {expected[i]['choice']}\n"
                      f"  got:      {short(got)}")


def check_puct_select(fn) -> None:
    run_check(__name__, "puct_select", fn)


# ---------------------------------------------------------------- add_dirichlet_noise

def cases_add_dirichlet_noise(n: int = 60) -> list:
    rng = np.random.default_rng(SEED + 4)
    cases = []
    for i in range(n):
        actions = [9, 126, 20][i % 3]
        k = 1 if i % 15 == 0 else int(rng.integers(2, actions + 1))
        legal = np.zeros(actions, dtype=bool)
        legal[rng.choice(actions, size=k, replace=False)] = True
        prior = rng.dirichlet(np.full(actions, 0.5))
        if i % 4 == 1:
            prior = np.where(legal, prior, 0.0)
            prior /= prior.sum()
        cases.append({"prior": prior, "legal": legal, "alpha": [0.03, 0.3, 0.5, 1.0, 2.0][i % 5],
                      "fraction": [0.25, 0.0, 0.5, 1.0, 0.25, 0.1][i % 6], "seed": int(SEED + i)})
    return cases


def judge_add_dirichlet_noise(cases: list, expected: list, outputs: list) -> None:
    def head(case):
        return (f"  add_dirichlet_noise(prior, legal, alpha={case['alpha']}, fraction={case['fraction']}, rng) with "
                f"{len(case['prior'])} actions, {int(case['legal'].sum())} of them legal "
                f"(the prior puts {float(case['prior'][case['legal']].sum()):.4f} on the legal ones)")
    changed = [i for i, got in enumerate(outputs) if got["changed"]]
    if changed:
        raise failure("add_dirichlet_noise", len(changed), len(cases),
                      f"{head(cases[changed[0]])}\n  it changed prior or legal: build a new array")
    bad = []
    for i, (case, want, got) in enumerate(zip(cases, expected, outputs)):
        value = got["prior"]
        if isinstance(value, str) or isinstance(want["prior"], str):
            problem = None if value == want["prior"] else f"expected an array of {len(case['prior'])} float64, got: {value}"
        elif np.any(np.asarray(value)[~case["legal"]] != 0):
            problem = "illegal actions got probability: the noise and the prior go to the legal actions only (0 elsewhere)"
        elif got["next_draw"] != want["next_draw"]:
            problem = (f"the random generator was used differently: draw the noise with exactly one call "
                       f"rng.dirichlet(np.full(k, alpha)), k = {int(case['legal'].sum())} legal actions, and nothing else")
        elif not np.allclose(value, want["prior"], rtol=1e-9, atol=1e-12):
            problem = _noise_slip(case, np.asarray(value))
        else:
            problem = None
        if problem:
            bad.append((i, problem))
    if bad:
        i, problem = bad[0]
        raise failure("add_dirichlet_noise", len(bad), len(cases), f"{head(cases[i])}\n  {problem}")


def _noise_slip(case, got: np.ndarray) -> str:
    legal, prior = case["legal"], case["prior"].astype(np.float64)
    noise = np.random.default_rng(case["seed"]).dirichlet(np.full(int(legal.sum()), case["alpha"]))
    f = case["fraction"]
    right = np.zeros(len(prior))
    right[legal] = (1 - f) * prior[legal] / prior[legal].sum() + f * noise
    slips = {"the prior's legal entries not renormalised (they sum to less than 1)": (1 - f) * prior[legal] + f * noise,
             "the weights swapped: fraction * prior + (1 - fraction) * noise": f * prior[legal] / prior[legal].sum() + (1 - f) * noise,
             "the mixture renormalised after mixing an unrenormalised prior": None}
    unnormalised = (1 - f) * prior[legal] + f * noise
    slips["the mixture renormalised after mixing an unrenormalised prior"] = unnormalised / unnormalised.sum()
    text = (f"expected (legal entries): {np.round(right[legal][:8], 5).tolist()}{' ...' if legal.sum() > 8 else ''}\n"
            f"  got:                      {np.round(got[legal][:8], 5).tolist()}{' ...' if legal.sum() > 8 else ''}\n"
            f"  sum of the result: {got.sum():.6f}")
    for why, value in slips.items():
        if np.allclose(got[legal], value, rtol=1e-9, atol=1e-12):
            return f"{text}\n  which is {why}"
    return text + "\n  rule: (1 - fraction) * P + fraction * noise, P the legal prior renormalised to sum to 1"


def check_add_dirichlet_noise(fn) -> None:
    run_check(__name__, "add_dirichlet_noise", fn)


# ---------------------------------------------------------------- alphazero_loss

LOSS_BATCH, LOSS_HIDDEN = 12, (16,)


def cases_alphazero_loss() -> list:
    """A small network of the shipped shape's kind (biases made non-zero) on positions of random 3x3 games,
    with visit-like targets over the legal actions; one shape for all cases (each new shape costs the kernel
    XLA compilations)."""
    from azcourse.alphazero.flax_net import init_params
    from azcourse.alphazero.network import NetSpec

    game = Tak(3)
    spec = NetSpec(game.encoding_shape, game.action_space_size, (), LOSS_HIDDEN)
    rng = np.random.default_rng(SEED + 5)
    cases = []
    for k, c in enumerate((1e-3, 1e-4, 0.05, 0.0, 1e-2)):
        params = {layer: {name: np.asarray(value, np.float32) + (rng.normal(0, 0.2, np.shape(value)).astype(np.float32)
                                                                 if name == "bias" else 0)
                          for name, value in leaves.items()}
                  for layer, leaves in init_params(spec, k).items()}
        if k == 4:  # large logits: a numerically careless softmax overflows
            params["policy_head"]["kernel"] = params["policy_head"]["kernel"] * 60
        states = [s for s in _states(game, rng, LOSS_BATCH)]
        x = np.stack([game.encode(s) for s in states]).astype(np.float32)
        legal = np.stack([game.legal_mask(s) for s in states])
        pi = np.zeros(legal.shape, np.float32)
        for b, row in enumerate(legal):
            cells = np.flatnonzero(row)
            if b % 4 == 3:
                pi[b, rng.choice(cells)] = 1.0
            else:
                pi[b, cells] = rng.dirichlet(np.full(len(cells), 0.3))
        z = rng.choice(np.array([-1.0, 0.0, 1.0], np.float32), size=LOSS_BATCH, p=[0.45, 0.1, 0.45])
        cases.append({"encoding_shape": list(spec.encoding_shape), "actions": spec.actions, "hidden": list(LOSS_HIDDEN),
                      "params": params, "x": x, "pi": pi, "z": z, "legal": legal, "c": c})
    return cases


def _states(game, rng, count):
    out = []
    while len(out) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(out) < count:
            if rng.random() < 0.4:
                out.append(state)
            legal = game.legal_actions(state)
            state = game.next_state(state, int(legal[rng.integers(len(legal))]))
    return out


def _numpy_terms(case) -> dict:
    """The terms a slip would give, for the diagnosis: the right ones and the usual wrong ones."""
    from azcourse.alphazero.network import NetSpec, NumpyNet

    spec = NetSpec(tuple(case["encoding_shape"]), case["actions"], (), tuple(case["hidden"]))
    logits, v = NumpyNet(spec, case["params"]).forward(case["x"])
    logits, v = logits.astype(np.float64), v.astype(np.float64)
    pi, z, legal = case["pi"].astype(np.float64), case["z"].astype(np.float64), case["legal"]

    def log_softmax(a):
        a = a - a.max(axis=-1, keepdims=True)
        return a - np.log(np.exp(a).sum(axis=-1, keepdims=True))
    leaves = [np.asarray(value, np.float64) for layer in case["params"].values() for value in layer.values()]
    kernels = [np.asarray(layer["kernel"], np.float64) for layer in case["params"].values()]
    squares = sum(float(np.sum(leaf ** 2)) for leaf in leaves)
    c = case["c"]
    return {
        "value": {"the sum over the batch instead of the mean": np.sum((z - v) ** 2),
                  "the mean of |z - v| instead of the squares": np.mean(np.abs(z - v)),
                  "the root of the mean square": math.sqrt(np.mean((z - v) ** 2))},
        "policy": {"the softmax over ALL actions, illegal ones included": -np.mean(np.sum(pi * log_softmax(logits), -1)),
                   "the sum over the batch instead of the mean": -np.sum(pi * np.where(legal, log_softmax(np.where(legal, logits, -1e9)), 0)),
                   "the loss without its minus sign": np.mean(np.sum(pi * np.where(legal, log_softmax(np.where(legal, logits, -1e9)), 0), -1))},
        "l2": {"the kernels only (the biases left out)": c * sum(float(np.sum(k ** 2)) for k in kernels),
               "without the factor c": squares,
               "with a minus sign": -c * squares,
               "the mean of the squares instead of their sum": c * squares / sum(leaf.size for leaf in leaves),
               "the norm, not its square": c * math.sqrt(squares)},
    }


def judge_alphazero_loss(cases: list, expected: list, outputs: list) -> None:
    names = ("value", "policy", "l2")
    labels = {"value": "the value loss (terms[0])", "policy": "the policy loss (terms[1])", "l2": "the L2 term (terms[2])"}
    rules = {"value": "the mean over the batch of (z - v)^2",
             "policy": "the mean over the batch of -sum_a pi(a) log p(a), p the softmax over the LEGAL actions only",
             "l2": "c times the sum of the squares of every parameter, kernels and biases"}
    bad = []
    for i, (want, got) in enumerate(zip(expected, outputs)):
        if isinstance(got, str) or isinstance(want, str):
            if got != want:
                bad.append((i, f"expected (total, terms), but it {got}"))
            continue
        for k, name in enumerate(names):
            if not math.isclose(got["terms"][k], want["terms"][k], rel_tol=1e-4, abs_tol=1e-5):
                problem = (f"{labels[name]}: expected {want['terms'][k]:.6g}, got {got['terms'][k]:.6g}\n"
                           f"  rule: {rules[name]}")
                slips = [why for why, value in _numpy_terms(cases[i])[name].items()
                         if math.isclose(got["terms"][k], value, rel_tol=1e-4, abs_tol=1e-6)]
                if slips:
                    problem += f"\n  which is {slips[0]}"
                bad.append((i, problem))
                break
        else:
            if not math.isclose(got["total"], sum(got["terms"]), rel_tol=1e-4, abs_tol=1e-5):
                bad.append((i, f"the total {got['total']:.6g} is not the sum of the terms {np.round(got['terms'], 6).tolist()}"))
            elif not got["gradient_finite"]:
                bad.append((i, "the loss is right, but its gradient holds nan or inf: keep the illegal actions out with "
                               "jnp.where or a large finite negative logit (-1e9), not -inf"))
            elif not np.allclose(got["grad_norms"], want["grad_norms"], rtol=1e-3, atol=1e-6):
                bad.append((i, "the loss is right, but its gradient is not: compute every term with jax.numpy from "
                               f"params (no numpy, no stop_gradient); gradient norms per parameter array: expected "
                               f"{np.round(want['grad_norms'], 5).tolist()}, got {np.round(got['grad_norms'], 5).tolist()}"))
    if bad:
        i, problem = bad[0]
        case = cases[i]
        raise failure("alphazero_loss", len(bad), len(cases),
                      f"  alphazero_loss(params, apply_fn, x, pi, z, legal, c={case['c']}) on a batch of "
                      f"{len(case['z'])} positions of 3x3 games (a network with hidden layers {case['hidden']}, "
                      f"non-zero biases)\n  {problem}")


def check_alphazero_loss(fn) -> None:
    run_check(__name__, "alphazero_loss", fn)


# ---------------------------------------------------------------- win_rate_interval

def cases_win_rate_interval(n: int = 120) -> list:
    rng = np.random.default_rng(SEED + 6)
    cases = [{"wins": w, "draws": d, "losses": l, "z": 1.96}
             for w, d, l in [(0, 0, 0), (1, 0, 0), (0, 0, 1), (10, 0, 0), (0, 0, 10), (400, 0, 0), (50, 0, 50), (48, 4, 48),
                             (199, 1, 200), (0, 1, 0), (0, 400, 0)]]
    for i in range(n):
        games = int(rng.integers(1, [20, 200, 2000][i % 3]))
        w, d = sorted(rng.integers(0, games + 1, size=2))
        if i % 4 == 0:
            w, d = w, 0
        cases.append({"wins": int(w), "draws": int(d - w) if i % 4 else 0, "losses": int(games - d),
                      "z": [1.96, 1.96, 2.576, 1.645, 1.0][i % 5]})
    return cases


def wilson(s: float, n: int, z: float) -> list:
    centre = (s + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n))
    return [s, max(0.0, centre - half), min(1.0, centre + half)]


def judge_win_rate_interval(cases: list, expected: list, outputs: list) -> None:
    def same(want, got) -> bool:
        return isinstance(got, list) and np.allclose(got, want, rtol=0, atol=1e-9)
    bad = [i for i, (want, got) in enumerate(zip(expected, outputs)) if not same(want, got)]
    if bad:
        i = bad[0]
        case, got = cases[i], outputs[i]
        w, d, l, z = case["wins"], case["draws"], case["losses"], case["z"]
        n = w + d + l
        detail = f"  expected: {expected[i]}\n  got:      {short(got)}"
        if n and isinstance(got, list):
            s = (w + d / 2) / n
            half = z * math.sqrt(s * (1 - s) / n)
            slips = {"the normal approximation s +- z sqrt(s (1 - s) / n), not Wilson's interval":
                     [s, max(0.0, s - half), min(1.0, s + half)],
                     "the normal approximation, not clipped to [0, 1]": [s, s - half, s + half],
                     "draws counted as losses": wilson(w / n, n, z),
                     "draws counted as wins": wilson((w + d) / n, n, z),
                     "z = 1.96 whatever z is given": wilson(s, n, 1.96)}
            if w + l:
                slips["draws left out of the games (n = wins + losses)"] = wilson(w / (w + l), w + l, z)
            found = [why for why, value in slips.items() if np.allclose(got, value, rtol=0, atol=1e-9)]
            if found:
                detail += f"\n  which is {found[0]}"
        raise failure("win_rate_interval", len(bad), len(cases),
                      f"  win_rate_interval(wins={w}, draws={d}, losses={l}, z={z}): n = {n} games, score (wins + "
                      f"draws / 2) / n\n{detail}")


def check_win_rate_interval(fn) -> None:
    run_check(__name__, "win_rate_interval", fn)


JUDGES = {"stack_moves": judge_stack_moves, "has_road": judge_has_road, "exploration_rate": judge_exploration_rate,
          "puct_select": judge_puct_select, "add_dirichlet_noise": judge_add_dirichlet_noise,
          "alphazero_loss": judge_alphazero_loss, "win_rate_interval": judge_win_rate_interval}
NUM_OR_TEXT = Either(Num, Str)
SCHEMAS = {
    "stack_moves": per_case(Either(ListOf(Str, max_length=2000), Str)),
    "has_road": per_case(Either(Bool, Str)),
    "exploration_rate": per_case(NUM_OR_TEXT),
    "puct_select": per_case(Record(choice=Either(Int, Str), changed=Bool)),
    "add_dirichlet_noise": per_case(Record(prior=Either(ListOf(Num, REF), Str), next_draw=Num, changed=Bool)),
    "alphazero_loss": per_case(Either(Record(total=Num, terms=ListOf(Num, 3), grad_norms=ListOf(Num, REF),
                                             gradient_finite=Bool), Str)),
    "win_rate_interval": per_case(Either(ListOf(Num, 3), Str)),
}
assert set(PROBES) == set(JUDGES) == set(SCHEMAS)
