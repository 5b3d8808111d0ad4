"""A class of part 1 (``ttt1_mcts``) with planted copies, for the similarity tests and benchmark.

Honest students write each of the six answers on their own: the reference, the reference with one of its
realistic mistakes (``tests/student_mistakes.py``'s patches), or one of two other correct implementations
written here (``ALTERNATIVES``, some with a helper function); then each makes the small choices people
make differently (``REWRITES``: ``x = x + y`` for ``x += y``, ``np.sum(a)`` for ``a.sum()``, a result
named before it is returned, a sanity assert), each at each place with even odds. Their written answers
are sentences chosen from a pool with words of their own (``PROSE``). Two honest students may well
write the same function the same way: what they cannot share by chance is all of them.

A planted copy takes another student's answers and disguises them: renamed variables, other comments
and blank lines, the functions of a cell in another order (``disguise``). ``class_notebooks`` builds the
whole class: {student: notebook} (the release notebook with the answers typed in) and the planted pairs.
"""
import ast
import random
import re
from functools import cache

import nbformat

from autograder.grading_config import REPO_ROOT
from student_mistakes import MISTAKES, reference_source

ASSIGNMENT = "ttt1_mcts"
FUNCTIONS = ("get_next_state", "get_reward", "select_action", "get_action_prob", "expand_node", "search_iter")
STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()"

# Other correct implementations: the body of the function, and a helper defined in the same cell (or "").
ALTERNATIVES = {
    "get_next_state": [
        ("""    if board[action]:
        raise ValueError("that square is taken")
    new = np.array(board, copy=True)
    new[action] = 1
    return new
""", ""),
        ("""    assert 0 <= action < 9
    if board[action] != 0:
        raise ValueError(f"illegal move {action}")
    return np.where(np.arange(9) == action, 1, board).astype(board.dtype)
""", ""),
    ],
    "get_reward": [
        ("""    totals = [line_total(board, line) for line in WIN_LINES]
    if 3 in totals:
        return 1, True
    if -3 in totals:
        return -1, True
    if np.all(board != 0):
        return 0, True
    return 0, False
""", """def line_total(cells, line):
    return sum(int(cells[i]) for i in line)
"""),
        ("""    grid = board.reshape(3, 3)
    sums = np.concatenate([grid.sum(axis=0), grid.sum(axis=1), [np.trace(grid), np.trace(np.fliplr(grid))]])
    if sums.max() == 3:
        return 1, True
    if sums.min() == -3:
        return -1, True
    return 0, bool((board != 0).all())
""", ""),
    ],
    "select_action": [
        ("""    n_s = tree.N[node]
    if c_base is None:
        c = c_init
    else:
        c = np.log((1 + n_s + c_base) / c_base) + c_init
    u = c * tree.P_sa[node] * np.sqrt(n_s) / (1 + tree.N_sa[node])
    scores = np.where(tree.valid[node], tree.Q_sa[node] + u, -np.inf)
    return int(np.argmax(scores))
""", ""),
        ("""    parent = tree.N[node]
    c = c_init if c_base is None else c_init + math.log((1 + parent + c_base) / c_base)
    best, best_score = -1, -math.inf
    for a in range(9):
        if not tree.valid[node][a]:
            continue
        s = puct_score(tree.Q_sa[node][a], tree.P_sa[node][a], parent, tree.N_sa[node][a], c)
        if s > best_score:
            best, best_score = a, s
    return best
""", """def puct_score(q, p, n_parent, n_child, c):
    return q + c * p * math.sqrt(n_parent) / (1 + n_child)
"""),
    ],
    "get_action_prob": [
        ("""    counts = tree.N_sa[node].astype(float)
    if temperature == 0:
        best = np.argmax(counts)
        return np.eye(ACTION_DIM)[best]
    if math.isinf(temperature):
        legal = tree.valid[node].astype(float)
        return legal / np.sum(legal)
    counts = counts / np.max(counts)
    powered = np.power(counts, 1 / temperature)
    return powered / np.sum(powered)
""", ""),
        ("""    visits = np.asarray(tree.N_sa[node], dtype=np.float64)
    probs = np.zeros(ACTION_DIM)
    if temperature == 0:
        probs[int(visits.argmax())] = 1
    elif temperature == float("inf"):
        probs = tree.valid[node] / np.count_nonzero(tree.valid[node])
    else:
        logits = np.log(np.maximum(visits, 1e-300)) / temperature
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
    return probs
""", ""),
    ],
    "expand_node": [
        ("""    index = tree.add(board)
    legal = tree.valid[index]
    p = prior * legal
    if p.sum() > 0:
        p = p / p.sum()
    else:
        p = legal / legal.sum()
    tree.P_sa[index] = p
    tree.N[index] = 1
    return index
""", ""),
        ("""    node = tree.add(board)
    mask = tree.valid[node].astype(bool)
    probs = np.zeros(ACTION_DIM)
    probs[mask] = prior[mask]
    total = float(np.sum(probs))
    probs = probs / total if total > 0 else mask / np.sum(mask)
    tree.P_sa[node], tree.N[node] = probs, 1
    return node
""", ""),
    ],
    "search_iter": [
        ("""    simulate(tree, root, tree.state[root], model, c_init, c_base)
""", """def simulate(tree, node, board, model, c_init, c_base):
    action = select_action(tree, node, c_init, c_base)
    child_board = flip_board(get_next_state(board, action))
    child = tree.find(child_board)
    if child >= 0:
        value = -simulate(tree, child, child_board, model, c_init, c_base)
    else:
        reward, done = get_reward(child_board)
        if done:
            value = -reward
        else:
            prior, leaf_value = model(child_board)
            expand_node(tree, child_board, prior)
            value = -leaf_value
    tree.N[node] += 1
    tree.N_sa[node, action] += 1
    tree.W_sa[node, action] += value
    tree.Q_sa[node, action] = tree.W_sa[node, action] / tree.N_sa[node, action]
    return value
"""),
        ("""    visited = []
    current, state = root, tree.state[root]
    while True:
        a = select_action(tree, current, c_init, c_base)
        visited.append((current, a))
        state = flip_board(get_next_state(state, a))
        nxt = tree.find(state)
        if nxt < 0:
            break
        current = nxt
    leaf_value, terminal = get_reward(state)
    if not terminal:
        prior, leaf_value = model(state)
        expand_node(tree, state, prior)
    sign = -1
    for n, a in visited[::-1]:
        tree.N[n] += 1
        tree.N_sa[n, a] += 1
        tree.W_sa[n, a] += sign * leaf_value
        tree.Q_sa[n, a] = tree.W_sa[n, a] / tree.N_sa[n, a]
        sign = -sign
""", ""),
    ],
}

# Choices people make differently, each taken at each place it fits with even odds: (pattern, replacement).
REWRITES = [
    (re.compile(r"^([ ]*)([\w.]+(?:\[[^\]\n]+\])?) \+= (.+)$", re.M), r"\1\2 = \2 + \3"),
    (re.compile(r"\b([\w.]+(?:\[\w+\])?)\.sum\(\)"), r"np.sum(\1)"),
    (re.compile(r"^([ ]*)return ([^,\n()]+), ([^,\n()]+)$", re.M), r"\1return (\2, \3)"),
    (re.compile(r"^([ ]*)return (\w+) / (.+)$", re.M), r"\1result = \2 / \3\n\1return result"),
    (re.compile(r"\b1\.0\b"), "1"),
    (re.compile(r"^([ ]*)if (\w+(?:\[\w+\])?) != 0:$", re.M), r"\1if \2:"),
    (re.compile(r"\bmath\.(sqrt|log|isinf)\("), r"np.\1("),
    (re.compile(r"\bnp\.zeros\(ACTION_DIM\)"), "np.zeros(9)"),
    (re.compile(r"\b(\w+)\.copy\(\)"), r"np.copy(\1)"),
    (re.compile(r"\breversed\((\w+)\)"), r"\1[::-1]"),
    (re.compile(r"\brange\(9\)"), "range(len(tree.valid[node]))"),
    (re.compile(r"\btree\.(N|N_sa|W_sa|Q_sa)\[(\w+), (\w+)\]"), r"tree.\1[\2][\3]"),
    (re.compile(r"^([ ]*)(\w+) = (.+) if (.+) else (.+)$", re.M), r"\1if \4:\n\1    \2 = \3\n\1else:\n\1    \2 = \5"),
]
COMMENTS = ["# as in the lecture", "# TODO tidy up", "# the tricky part", "# checked by hand", "# see the docstring"]

# Written answers: per question, sentences whose {slots} each student fills in their own words.
PROSE = {
    "q1": ["The winning move has a value of {one}, so its Q term {beats} the others after a few visits.",
           "The exploration term {keeps} some visits for the other moves because it grows with {root}.",
           "As num_sims grows the {share} of the winning move {rises} towards one.",
           "Moves that were {rarely} visited get a large U, which is why they are {still} tried."],
    "q2": ["Q is the mean of the backed-up values, so it {averages} every simulation through the move.",
           "The first visits {mix} in values of other positions, which {pull} Q below one.",
           "With more simulations the {early} values matter less and Q {approaches} one without reaching it."],
    "q3": ["A larger c makes the search {explore} more, so the centre gets {fewer} of the visits.",
           "With a small c the search {trusts} Q and {concentrates} on the centre."],
    "q4": ["The number comes from the {toy} model, which {returns} a value of 0.1 for those positions.",
           "The sign {flips} because each level of the tree {sees} the value from the other player's side."],
}
WORDS = {
    "one": ["one", "+1", "1", "plus one"], "beats": ["beats", "dominates", "is above", "outgrows"],
    "keeps": ["keeps", "reserves", "leaves", "saves"], "root": ["the parent's visits", "sqrt(N)", "N(s)",
                                                               "the root visit count"],
    "share": ["share", "fraction", "proportion", "part"], "rises": ["rises", "goes", "climbs", "moves"],
    "rarely": ["rarely", "seldom", "hardly", "not often"], "still": ["still", "sometimes", "occasionally", "also"],
    "averages": ["averages", "takes the mean of", "combines", "mixes"], "mix": ["mix", "bring", "add", "put"],
    "pull": ["pull", "drag", "push", "keep"], "early": ["early", "first", "initial", "starting"],
    "approaches": ["approaches", "tends to", "gets close to", "nears"], "explore": ["explore", "spread", "wander",
                                                                                   "try other moves"],
    "fewer": ["fewer", "a smaller share", "less", "a lower fraction"], "trusts": ["trusts", "follows", "believes",
                                                                                 "relies on"],
    "concentrates": ["concentrates", "focuses", "piles its visits", "stays"], "toy": ["toy", "fake", "simple",
                                                                                     "dummy"],
    "returns": ["returns", "gives", "outputs", "assigns"], "flips": ["flips", "changes", "alternates", "switches"],
    "sees": ["sees", "reports", "holds", "stores"],
}
NAMES = ["tmp", "val", "res", "out", "x", "y", "k", "acc", "thing", "my_var", "cur", "nxt_one", "item", "w"]


@cache
def release():
    return nbformat.read(REPO_ROOT / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)


def body_of(source: str, function: str) -> str:
    """The lines of `function` in `source` after its docstring."""
    definition = next(node for node in ast.parse(source).body
                      if isinstance(node, ast.FunctionDef) and node.name == function)
    lines = source.splitlines()
    return "\n".join(lines[definition.body[0].end_lineno:definition.end_lineno]) + "\n"


def rewrite(code: str, rng: random.Random) -> str:
    """`code` with each of ``REWRITES`` made at each place it fits with probability 1/2."""
    for pattern, replacement in REWRITES:
        code = pattern.sub(lambda m: m.expand(replacement) if rng.random() < 0.5 else m.group(0), code)
    return code


def honest_answer(function: str, rng: random.Random) -> tuple[str, str]:
    """(body, helper) of one student's own answer of `function`."""
    choice = rng.random()
    if choice < 0.3:
        return body_of(reference_source(function), function), ""
    if choice < 0.5:
        label = rng.choice(sorted(MISTAKES[function]))
        return body_of(MISTAKES[function][label], function), ""
    return rng.choice(ALTERNATIVES[function])


def honest_prose(question: str, rng: random.Random) -> str:
    sentences = rng.sample(PROSE[question], k=rng.randint(1, len(PROSE[question])))
    return " ".join(re.sub(r"\{(\w+)\}", lambda m: rng.choice(WORDS[m.group(1)]), s) for s in sentences)


def honest_student(rng: random.Random) -> dict:
    """{grade_id: (body, helper, helper first?) or text}: one honest student's answers."""
    answers = {}
    for function in FUNCTIONS:
        body, helper = honest_answer(function, rng)
        answers[function] = (rewrite(body, rng), rewrite(helper, rng), rng.random() < 0.5)
    for question in PROSE:
        answers[question] = honest_prose(question, rng)
    return answers


def disguise(answers: dict, rng: random.Random, functions=FUNCTIONS) -> dict:
    """A copy of `answers`' `functions` (the others written honestly): its local names renamed, comments and
    blank lines added, each helper moved to the other side of its function; the written answers copied
    with a few words changed."""
    copy = honest_student(rng)
    for question in PROSE:
        text = answers[question]
        for words in WORDS.values():
            for word in words:
                if re.search(rf"\b{re.escape(word)}\b", text) and rng.random() < 0.3:
                    text = re.sub(rf"\b{re.escape(word)}\b", rng.choice(words), text, count=1)
        copy[question] = text
    for function in functions:
        body, helper, helper_first = answers[function]
        names = sorted({node.id for code in (f"def f():\n{body}", helper) for node in ast.walk(ast.parse(code))
                        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)})
        for old, new in zip(names, rng.sample(NAMES, k=min(len(names), len(NAMES)))):
            body = re.sub(rf"(?<!\.)\b{old}\b", new + "_", body)
            helper = re.sub(rf"(?<!\.)\b{old}\b", new + "_", helper)
        lines = body.splitlines()
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(lines) + 1)
            indent = re.match(r"[ ]*", lines[min(at, len(lines) - 1)]).group(0)
            lines.insert(at, rng.choice(["", indent + rng.choice(COMMENTS)]))
        copy[function] = ("\n".join(lines) + "\n", helper, not helper_first)
    return copy


def notebook(answers: dict):
    """The release notebook with `answers` typed into its answer cells."""
    nb = nbformat.reads(nbformat.writes(release()), as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in FUNCTIONS:
            body, helper, helper_first = answers[grade_id]
            source = cell.source.replace(STUB, body.rstrip("\n"))
            if helper:
                head = f"def {grade_id}("
                at = source.index(head)
                source = (source[:at] + helper + "\n\n" + source[at:]) if helper_first else (
                    source + "\n\n\n" + helper)
            ast.parse(source)  # every answer of the corpus is Python
            cell.source = source
        elif grade_id in PROSE:
            cell.source = answers[grade_id]
    return nb


def class_notebooks(size: int, seed: int = 0) -> tuple[dict, list]:
    """({student: notebook} of `size` students, [(original, copy)] of the planted pairs): one in 20 students
    copies another (all six answers, or four of them, or only the written answers)."""
    rng = random.Random(seed)
    answers, planted = {}, []
    for number in range(size):
        student = f"s{number:04d}"
        if number % 20 == 19:
            original = f"s{number - rng.randint(1, 18):04d}"
            kind = (number // 20) % 3
            functions = FUNCTIONS if kind == 0 else FUNCTIONS[:4] if kind == 1 else ()
            answers[student] = disguise(answers[original], rng, functions)
            planted.append((original, student))
        else:
            answers[student] = honest_student(rng)
    return {student: notebook(a) for student, a in answers.items()}, planted
