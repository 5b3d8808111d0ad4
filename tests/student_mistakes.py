"""Realistic wrong answers, at least three per TODO of every notebook (issues 12 and 49).

Each redefines one graded function the way a student really gets it wrong: a wrong term in a formula,
a forgotten mask, mutation of an input, tie-breaking, overflow, sign and viewpoint errors, missed rule
cases, seating and randomness protocols. ``tests/test_visible_tests.py`` runs every notebook's visible
tests with each of them in turn, and ``tests/test_hex_notebook_checks.py``,
``tests/test_othello_notebook_checks.py`` and ``tests/test_tak_notebook_checks.py`` check that each of
parts 4, 5 and 6 fails its hidden test too.

A wrong answer is a ``patch`` of the reference: text replacements in the reference's own source of the
function (its definition in the solution cell of that name in ``assignments/<nb>/<nb>.ipynb``, solution
markers stripped), applied when the answer is read. So it is always one slip in today's solution, never
a stale copy of an old one. A replaced text that the reference no longer holds the expected number of
times raises ``StaleMistake``, naming the function, the mistake and the text: when a reference changes,
its mistakes are noticed and rewritten for the new code, not silently tested against the old one. No
mistake is kept as a whole function of its own: each slip, even a different loop or formula, is an edit
of a few lines of the reference, and a copy would go stale as the old corpus of copies did.

A key of ``MISTAKES`` is the function's name; a name graded in two notebooks (``train_step``) is
qualified with its notebook the second time. ``MISTAKES[key][label]`` is the wrong answer's source,
``NOTEBOOK_OF`` gives each key's notebook, ``function_of`` its function, ``reference_source`` the
source the patches apply to, ``mistake`` defines one wrong answer in a copy of the reference namespace
and ``with_globals`` copies that namespace with some names replaced.
"""
import ast
import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from autograder.corpus import source_solutions


class StaleMistake(LookupError):
    """A patch that no longer fits the reference it was written for."""


@dataclass(frozen=True)
class Patch:
    """Replacements (old, new, count) applied in turn: `old` must occur exactly `count` times."""
    edits: tuple[tuple[str, str, int], ...]

    def __add__(self, other: "Patch") -> "Patch":
        return Patch(self.edits + other.edits)

    def applied(self, key: str, label: str) -> str:
        """The reference source of `key` with the edits made; StaleMistake if one does not fit."""
        source = reference_source(key)
        for old, new, count in self.edits:
            found = source.count(old)
            if found != count:
                raise StaleMistake(
                    f"the mistake {label!r} of {key} no longer fits the reference: {old!r} occurs {found} times "
                    f"in {function_of(key)} of assignments/{NOTEBOOK_OF[key]}/{NOTEBOOK_OF[key]}.ipynb, not {count}. "
                    "Rewrite the patch for the current reference.")
            source = source.replace(old, new)
        return source


def patch(old: str, new: str, count: int = 1) -> Patch:
    """Replace `old` by `new` in the reference; `old` occurs exactly `count` times (each is replaced)."""
    return Patch(((old, new, count),))


class _Answers(Mapping):
    """label -> source of one key's wrong answers, each patched from the current reference when read."""

    def __init__(self, key: str, patches: dict[str, Patch]):
        self.key, self.patches = key, patches

    def __getitem__(self, label: str) -> str:
        return self.patches[label].applied(self.key, label)

    def __iter__(self):
        return iter(self.patches)

    def __len__(self) -> int:
        return len(self.patches)


CORPUS = {
    # ------------------------------------------------------------------ ttt1_mcts
    "get_next_state": {
        "mutates the input board": patch("next_board = board.copy()", "next_board = board"),
        "marks -1 for the player to move": patch("next_board[action] = 1", "next_board[action] = -1"),
        "never refuses an occupied square": patch(
            '    if board[action] != 0:\n        raise ValueError(f"square {action} is already occupied")\n', ""),
        "refuses only the opponent's squares": patch("if board[action] != 0:", "if board[action] == -1:"),
        "returns a float board": patch(
            "    next_board = board.copy()\n    next_board[action] = 1\n    return next_board\n",
            "    return board + np.eye(9)[action]\n"),
    },
    "get_reward": {
        "misses the anti-diagonal": patch(
            "in WIN_LINES:", "in [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8)]:"),
        "a full board is never over": patch("return 0, 0 not in cells", "return 0, False"),
        "every line counts as a win": patch("return -1, True", "return 1, True"),
        "forgets the columns": patch("in WIN_LINES:", "in [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 4, 8), (2, 4, 6)]:"),
    },
    "select_action": {
        "no mask of illegal moves": patch(
            "legal = [a for a, ok in enumerate(tree.valid[node].tolist()) if ok]", "legal = range(len(q))"),
        "sqrt of the children's visits": patch("root_n = math.sqrt(n)", "root_n = math.sqrt(tree.N_sa[node].sum())"),
        "ignores c_base": patch(
            "c = c_init if c_base is None else math.log((1 + n + c_base) / c_base) + c_init", "c = c_init"),
        "ties go to the highest index": patch("return max(legal, key=", "return max(legal[::-1], key="),
        "divides by N(s,a) instead of 1 + N(s,a)": patch("/ (1 + visits[a])", "/ max(visits[a], 1e-9)"),
    },
    "get_action_prob": {
        "forgets the temperature": (
            patch("    if math.isinf(temperature):\n        return tree.valid[node] / tree.valid[node].sum()\n", "")
            + patch(" ** (1.0 / temperature)", "")),
        "temperature-0 ties go to the highest index": patch(
            "probs[np.argmax(visits)] = 1.0", "probs[len(visits) - 1 - np.argmax(visits[::-1])] = 1.0"),
        "no overflow guard at small temperature": patch(
            "    scaled = (visits / visits.max()) ** (1.0 / temperature)\n    return scaled / scaled.sum()\n",
            '    with np.errstate(over="ignore", invalid="ignore"):\n'
            "        scaled = visits ** (1.0 / temperature)\n"
            "        return scaled / scaled.sum()\n"),
        "infinite temperature spreads over every square": patch(
            "return tree.valid[node] / tree.valid[node].sum()", "return np.full(ACTION_DIM, 1 / ACTION_DIM)"),
    },
    "expand_node": {
        "renormalises the model's prior in place": patch(
            "    masked = np.where(valid, prior, 0.0)\n"
            "    total = masked.sum()\n"
            "    tree.P_sa[node] = masked / total if total > 0 else valid / valid.sum()\n",
            "    prior *= valid\n"
            "    total = prior.sum()\n"
            "    if total > 0:\n"
            "        prior /= total\n"
            "    tree.P_sa[node] = prior if total > 0 else valid / valid.sum()\n"),
        "no mask of illegal moves": patch("masked = np.where(valid, prior, 0.0)", "masked = prior"),
        "divides by zero legal mass": patch(
            "tree.P_sa[node] = masked / total if total > 0 else valid / valid.sum()",
            'with np.errstate(invalid="ignore", divide="ignore"):\n        tree.P_sa[node] = masked / total'),
        "leaves N(s) at 0": patch("    tree.N[node] = 1\n", ""),
    },
    "search_iter": {
        "never negates the value": patch(
            "        value = -value  # the mover in `node` is the opponent of the player to move below\n", ""),
        "negates only once, at the root": (
            patch("        value = -value  # the mover in `node` is the opponent of the player to move below\n", "")
            + patch(
                "    for node, action in reversed(path):\n",
                "    value = -value\n    for node, action in reversed(path):\n")),
        "does not flip the board": patch(
            "board = flip_board(get_next_state(board, action))", "board = get_next_state(board, action)"),
        "updates only the root's edge": patch(
            "        tree.N[node] += 1\n",
            "        if node != root:\n            continue\n        tree.N[node] += 1\n"),
        "forgets N(s)": patch("        tree.N[node] += 1\n", ""),
    },
    # ------------------------------------------------------------------ ttt2_selfplay
    "train_step": {
        "forgets the value loss": patch("return policy_loss + value_loss", "return policy_loss"),
        "policy loss on probabilities, squared": patch(
            "policy_loss = optax.softmax_cross_entropy(logits, target_pis).mean()",
            "policy_loss = jnp.mean(jnp.sum((jax.nn.softmax(logits) - target_pis) ** 2, axis=1))"),
        "sums over the batch": (
            patch("softmax_cross_entropy(logits, target_pis).mean()", "softmax_cross_entropy(logits, target_pis).sum()")
            + patch("value_loss = jnp.mean(", "value_loss = jnp.sum(")),
        "never applies the gradients": patch("return state.apply_gradients(grads=grads), loss", "return state, loss"),
        "climbs the loss": patch(
            "apply_gradients(grads=grads)", "apply_gradients(grads=jax.tree_util.tree_map(lambda g: -g, grads))"),
    },
    "match_average": {
        "agent1 always moves first": patch("[-play_match(agent2, agent1) for", "[play_match(agent1, agent2) for"),
        "fractions, not percentages": patch("float(100 * np.mean(", "float(np.mean("),
        "(win, draw, loss) order": patch("for outcome in (1, -1, 0)", "for outcome in (1, 0, -1)"),
        "second half counted from agent2's side": patch("[-play_match(agent2, agent1)", "[play_match(agent2, agent1)"),
    },
    # ------------------------------------------------------------------ azul3_play
    "decode_move": {
        "accepts factory 0 and 6": (
            patch('if source not in "C12345":', 'if source not in "C0123456789":')
            + patch('"C12345".index(source)', 'min(0 if source == "C" else int(source), 5)')),
        "does not strip spaces or fold case": patch("text = code.strip().upper()", "text = code"),
        "removes every space": patch("text = code.strip().upper()", 'text = code.replace(" ", "").upper()'),
        "source and colour swapped in the formula": patch(
            '("C12345".index(source) * 5 + "BYRDW".index(colour)) * 6',
            '("BYRDW".index(colour) * 6 + "C12345".index(source)) * 6'),
    },
    "legal_takes": {
        "forgets the wall": patch("not (other_colour or full or on_wall)", "not (other_colour or full)"),
        "allows a full line": patch("not (other_colour or full or on_wall)", "not (other_colour or on_wall)"),
        "a line may take any colour": patch("not (other_colour or full or on_wall)", "not (full or on_wall)"),
        "takes from empty sources": patch("present = sources > 0", "present = np.ones_like(sources, dtype=bool)"),
    },
    "masked_policy": {
        "no max subtraction": (
            patch("logits - logits[mask].max()", "logits")
            + patch(
                "    p = np.exp(z)\n    return p / p.sum()\n",
                '    with np.errstate(over="ignore", invalid="ignore"):\n'
                "        p = np.exp(z)\n"
                "        return p / p.sum()\n")),
        "softmax over all moves, then zero the illegal ones": patch(
            "    z = np.where(mask, logits - logits[mask].max(), -np.inf)\n    p = np.exp(z)\n    return p / p.sum()\n",
            "    p = np.exp(logits - logits.max())\n    return np.where(mask, p / p.sum(), 0.0)\n"),
        "masks the logits in place": patch(
            "    logits = np.asarray(logits, dtype=np.float64)\n"
            "    z = np.where(mask, logits - logits[mask].max(), -np.inf)\n",
            "    logits[~mask] = -np.inf\n    z = logits - logits.max()\n"),
        "subtracts the largest logit, legal or not": patch("logits - logits[mask].max()", "logits - logits.max()"),
    },
    "arena": {
        "no seat alternation": patch("seat_a = i % 2", "seat_a = 0"),
        "one generator for the whole match": (
            patch("        rng = np.random.default_rng([seed, i])\n", "")
            + patch(
                "    results, diffs = [], []\n",
                "    rng = np.random.default_rng(seed)\n    results, diffs = [], []\n")),
        "results from seat 0, not agent_a": (
            patch(
                "results.append(reward if current_seat(board) == seat_a else -reward)",
                "results.append(reward if current_seat(board) == 0 else -reward)")
            + patch(
                "state.by_seat(seat_a).score - state.by_seat(1 - seat_a).score",
                "state.by_seat(0).score - state.by_seat(1).score")),
    },
    # ------------------------------------------------------------------ hex4_onpolicy
    "winner": {
        "four neighbours (no diagonal)": patch(
            "steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))",
            "steps = ((-1, 0), (1, 0), (0, -1), (0, 1))"),
        "all eight neighbours": patch(
            "steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))",
            "steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]"),
        "the other diagonal pair": patch(
            "steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))",
            "steps = ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1))"),
        "the players' sides swapped": (
            patch(
                "[(0, k) if player == 1 else (k, 0) for k in range(n)]",
                "[(k, 0) if player == 1 else (0, k) for k in range(n)]")
            + patch("(row if player == 1 else col)", "(col if player == 1 else row)")),
        "searches only from the corner (0, 0)": patch(
            "stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]", "stack = [(0, 0)]"),
        "marks the visited cells on the board": (
            patch(
                "        seen = set(stack)\n", "        for cell in stack:\n            board[cell] = -1  # visited\n")
            + patch(
                "board[nxt] == player and nxt not in seen:\n                    seen.add(nxt)",
                "board[nxt] == player:\n                    board[nxt] = -1")),
        "returns 0 before trying player 2": patch("\n    return 0\n", "\n        return 0\n"),
        "negative indices wrap around": patch(
            "if 0 <= nxt[0] < n and 0 <= nxt[1] < n and", "if nxt[0] < n and nxt[1] < n and"),
    },
    "tree_policy": {
        "ln of the edges' visits for N(s)": patch("np.log(parent_visits) / N", "np.log(N.sum()) / N"),
        "ignores the player": patch(" if player == 1 else int(np.argmin(Q - bonus))", ""),
        "player 2 minimises Q + bonus": patch("np.argmin(Q - bonus)", "np.argmin(Q + bonus)"),
        "the last untried edge": patch("untried[0]", "untried[-1]"),
        "ln N(s, a) / N(s)": patch("np.sqrt(np.log(parent_visits) / N)", "np.sqrt(np.log(N) / parent_visits)"),
        "no square root": patch("np.sqrt(np.log(parent_visits) / N)", "np.log(parent_visits) / N"),
        "square root of ln N(s) only": patch(
            "np.sqrt(np.log(parent_visits) / N)", "np.sqrt(np.log(parent_visits)) / N"),
        "ties go to the highest index": patch(
            "return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q - bonus))",
            "scores = Q + bonus if player == 1 else bonus - Q\n"
            "    return int(len(scores) - 1 - np.argmax(scores[::-1]))"),
    },
    "rollout": {
        "the players never alternate": patch("        player = 3 - player\n", ""),
        "plays on the board it is given": patch(
            "board = place(board, policy(board, player), player)",
            "board[divmod(policy(board, player), board.shape[0])] = player"),
        "fills the board, then asks who won": patch("while result == 0:", "while len(empty_cells(board)):"),
        "returns the player to move at the end": patch("    return result\n", "    return player\n"),
        "moves before checking for a win": patch("    result = winner(board)\n    while", "    result = 0\n    while"),
    },
    "legal_distribution": {
        "not renormalised": patch("return kept / total", "return kept"),
        "masks only player 1's stones": patch("legal = board.ravel() == 0", "legal = board.ravel() != 1"),
        "divides by the sum over all cells": patch(
            "return kept / total", "return kept / np.asarray(probs, dtype=np.float64).sum()"),
        "no uniform fallback (0 / 0)": patch(
            "    if not np.isfinite(total) or total <= 0:\n        return legal / legal.sum()\n", ""),
        "changes probs in place": (
            patch(
                "kept = np.where(legal, np.asarray(probs, dtype=np.float64), 0.0)",
                "probs[~legal] = 0\n    kept = probs")
            + patch("return kept / total", "kept /= total\n    return kept.astype(np.float64)")),
        "keeps the input's float32": (
            patch("np.where(legal, np.asarray(probs, dtype=np.float64), 0.0)", "np.where(legal, probs, 0)")
            + patch("return legal / legal.sum()", "return (legal / legal.sum()).astype(probs.dtype)")),
        "tiny probabilities taken for none": patch("total <= 0", "np.isclose(total, 0)"),
    },
    "policy_loss": {
        "softmax over all cells": patch("jnp.where(empty, logits, -1e9)", "logits"),
        "sum over the batch": patch("-jnp.mean(jnp.sum(", "-jnp.sum(jnp.sum("),
        "-inf on the taken cells": (
            patch("-1e9", "-jnp.inf")
            + patch("jnp.where(empty, target * log_pi, 0.0)", "target * log_pi")),
        "no minus sign": patch("return -jnp.mean(", "return jnp.mean("),
        "the mean over the cells too": patch(
            "-jnp.mean(jnp.sum(jnp.where(empty, target * log_pi, 0.0), axis=-1))",
            "-jnp.mean(jnp.where(empty, target * log_pi, 0.0))"),
        "zeroes the taken cells' logits": (
            patch("jnp.where(empty, logits, -1e9)", "logits * empty")
            + patch("jnp.where(empty, target * log_pi, 0.0)", "target * log_pi")),
        "reads only the player-1 bit": patch("empty = (x[:, 2::2] + x[:, 3::2]) == 0", "empty = x[:, 2::2] == 0"),
    },
    "hex4_onpolicy.train_step": {
        "samples a second minibatch for the gradient": patch(
            "    loss, grads = jax.value_and_grad(loss_of)(state.params)\n",
            "    loss = loss_of(state.params)\n"
            "    x, target = buffer.sample(batch_size, rng)\n"
            "    grads = jax.grad(loss_of)(state.params)\n"),
        "draws the indices with rng.integers": patch(
            "x, target = buffer.sample(batch_size, rng)",
            "index = rng.integers(len(buffer), size=batch_size)\n"
            "    x, target = buffer.x[index], buffer.target[index]"),
        "a generator of its own": patch(
            "buffer.sample(batch_size, rng)", "buffer.sample(batch_size, np.random.default_rng(0))"),
        "never applies the gradients": patch(
            "return state.apply_gradients(grads=grads), float(loss)", "return state, float(loss)"),
        "its own SGD step, not the optimizer": patch(
            "    return state.apply_gradients(grads=grads), float(loss)\n",
            "    params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, state.params, grads)\n"
            "    return state.replace(params=params, step=state.step + 1), float(loss)\n"),
        "the loss after the step": patch(
            "    return state.apply_gradients(grads=grads), float(loss)\n",
            "    state = state.apply_gradients(grads=grads)\n    return state, float(loss_of(state.params))\n"),
        "climbs the loss": patch(
            "apply_gradients(grads=grads)", "apply_gradients(grads=jax.tree_util.tree_map(lambda g: -g, grads))"),
    },
    "topp": {
        "both orders of every pair": patch(
            "for j in range(i + 1, k):", "for j in range(k):\n            if i == j:\n                continue"),
        "agent i always opens": patch("first, second = (i, j) if g % 2 == 0 else (j, i)", "first, second = i, j"),
        "credits agent i when the opener wins": (
            patch("wins[first, second] += 1", "wins[i, j] += 1")
            + patch("wins[second, first] += 1", "wins[j, i] += 1")),
        "agent j opens the even games": patch("(i, j) if g % 2 == 0 else (j, i)", "(j, i) if g % 2 == 0 else (i, j)"),
        "series ordered by the second agent": patch(
            "    for i in range(k):\n        for j in range(i + 1, k):\n",
            "    for j in range(1, k):\n        for i in range(j):\n"),
        "counts losses (the table transposed)": patch("    return wins\n", "    return wins.T\n"),
    },
    # ------------------------------------------------------------------ othello5_planning
    "flips": {
        "seven directions: down-left forgotten": patch(
            "for dr, dc in DIRECTIONS:",
            "for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1)):  # typed by hand"),
        "a line that runs off the board counts": patch(
            "if line and 0 <= r < n and 0 <= c < n and board[r, c] == colour:",
            "if line and (not (0 <= r < n and 0 <= c < n) or board[r, c] == colour):  # the edge closes the line"),
        "a line that ends on an empty square counts": patch(
            "board[r, c] == colour:", "board[r, c] != other:  # empty or own"),
        "four directions (no diagonal)": patch(
            "for dr, dc in DIRECTIONS:", "for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):"),
        "places the disc on the board": patch("    flipped = []\n", "    board[row, col] = colour\n    flipped = []\n"),
        "stops after the first direction that flips": patch("flipped += line", "return line"),
    },
    "legal_moves": {
        "a pass whenever there is no placing move, even at the end": patch(
            "if not mask.any() and placing(3 - colour).any():", "if not mask.any():"),
        "the pass is always legal": patch(
            "    if not mask.any() and placing(3 - colour).any():\n        mask[n * n] = True\n",
            "    mask[n * n] = True\n"),
        "occupied squares are tried too": patch(
            "for r, c in zip(*np.nonzero(board == 0)):", "for r, c in np.ndindex(n, n):"),
        "a float mask of 0 and 1": patch("mask = np.zeros(n * n + 1, dtype=bool)", "mask = np.zeros(n * n + 1)"),
    },
    "state_value": {
        "the network's value as it is (no change of view)": patch("return sign * float(", "return float("),
        "asks the network about a finished game": patch(
            "    if game.is_terminal(state):\n"
            "        return float(game.returns(state)[player])  # the real result: +1, -1, or 0 for a draw\n",
            ""),
        "a draw counted as a loss": patch(
            "return float(game.returns(state)[player])", "return 1.0 if game.returns(state)[player] > 0 else -1.0"),
        "the view of the other player": (
            patch("game.returns(state)[player]", "game.returns(state)[1 - player]")
            + patch(
                "sign = 1.0 if game.to_move(state) == player else -1.0",
                "sign = -1.0 if game.to_move(state) == player else 1.0")),
    },
    "value_move": {
        "the next position's value as it is (the opponent's view)": patch(
            "state_value(game, game.next_state(state, int(a)), me, predict)",
            "float(predict(game.next_state(state, int(a)))[1])"),
        "the move with the lowest value": patch("np.argmax(values)", "np.argmin(values)"),
        "ties go to the highest index": patch(
            "legal[int(np.argmax(values))]", "legal[len(values) - 1 - int(np.argmax(values[::-1]))]"),
        "never considers the pass": patch(
            "np.flatnonzero(game.legal_mask(state))", "np.flatnonzero(game.legal_mask(state)[:-1])"),
    },
    "rollout_value": {
        "one move more than depth": patch("range(depth)", "range(depth + 1)"),
        "plays the most probable move instead of sampling": patch(
            "int(rng.choice(len(prior), p=prior))", "int(np.argmax(prior))"),
        "a draw counted as a loss at the end": patch(
            "    return state_value(",
            "    if game.is_terminal(state):\n"
            "        return 1.0 if game.returns(state)[player] > 0 else -1.0\n"
            "    return state_value("),
        "the value for whoever is to move where it stops": patch(
            "state_value(game, state, player, predict)", "state_value(game, state, game.to_move(state), predict)"),
        "samples from the raw prior (illegal moves too)": patch(
            "prior = legal_prior(game, state, predict)",
            "prior = np.asarray(predict(state)[0], dtype=np.float64)\n        prior = prior / prior.sum()"),
    },
    "monte_carlo_move": {
        "rollouts from the current position (the tutorial's fault)": patch(
            "rollout_value(game, after,", "rollout_value(game, state,"),
        "the view of the player to move after the candidate": patch(
            "rollout_value(game, after, me,", "rollout_value(game, after, game.to_move(after),"),
        "the first legal moves as candidates, not the most probable": patch(
            "sorted(legal, key=lambda a: (-prior[a], a))[:top_k]", "legal[:top_k]"),
        "a generator of its own for the rollouts": (
            patch("    means = []\n", "    own = np.random.default_rng(0)\n    means = []\n")
            + patch("depth, rng)", "depth, own)")),
        "ties go to the later candidate": patch(
            "candidates[int(np.argmax(means))]", "candidates[len(means) - 1 - int(np.argmax(means[::-1]))]"),
    },
    "simulate": {
        "N(s, a) under the square root": patch("math.sqrt(1 + node.N.sum())", "np.sqrt(1 + node.N)"),
        "backs up the leaf's value without changing its sign": patch("values[parent.player]", "values[node.player]"),
        "UCB without the prior": patch("c_puct * node.P * math.sqrt", "c_puct * math.sqrt"),
        "sqrt of the sum of N, without the 1": patch("math.sqrt(1 + node.N.sum())", "math.sqrt(node.N.sum())"),
        "asks the network about a finished game": patch(
            "    if node.terminal:\n"
            "        returns = game.returns(node.state)\n"
            "        values = {0: float(returns[0]), 1: float(returns[1])}\n"
            "    else:\n"
            "        node.P = legal_prior(game, node.state, predict)\n"
            "        value = float(predict(node.state)[1])\n"
            "        values = {node.player: value, 1 - node.player: -value}\n",
            "    value = float(predict(node.state)[1])\n"
            "    values = {node.player: value, 1 - node.player: -value}\n"
            "    if not node.terminal:\n"
            "        node.P = legal_prior(game, node.state, predict)\n"),
    },
    "mcts_move": {
        "the most visited action, illegal ones included": patch(
            "np.argmax(np.where(root.legal, root.N, -1))", "np.argmax(root.N)"),
        "a new root for every simulation": patch(
            "    for _ in range(simulations):\n",
            "    for _ in range(simulations):\n        root = Node(game, state)\n"),
        "one simulation too few": patch("range(simulations)", "range(simulations - 1)"),
        "ignores the c_puct given": patch(
            "simulate(root, game, predict, c_puct)", "simulate(root, game, predict, C_PUCT)"),
    },
    "win_rate_interval": {
        "draws counted as losses": patch("p = (wins + 0.5 * draws) / n", "p = wins / n"),
        "the textbook interval p +- z sqrt(p (1 - p) / n)": patch(
            "    shrink = 1 + z ** 2 / n\n"
            "    centre = (p + z ** 2 / (2 * n)) / shrink\n"
            "    half = z / shrink * math.sqrt(p * (1 - p) / n + z ** 2 / (4 * n ** 2))\n",
            "    centre = p\n    half = z * math.sqrt(p * (1 - p) / n)\n"),
        "draws left out of the games": patch(
            "n = wins + draws + losses\n    p = (wins + 0.5 * draws) / n",
            "n = wins + losses\n    p = wins / n if n else 0.5\n    n = max(n, 1)"),
        "a 90% interval (z = 1.645)": patch("    z = 1.96\n", "    z = 1.645\n"),
    },
    # ------------------------------------------------------------------ tak6_alphazero
    "stack_moves": {
        "ignores the carry limit": patch("range(1, min(len(stack), n) + 1)", "range(1, len(stack) + 1)"),
        "the capstone flattens while carrying others": patch(
            "drops + (1,)) for drops in drop_sequences(count - 1, free) if len(drops) == free]",
            "drops) for drops in drop_sequences(count, free + 1) if len(drops) == free + 1]"),
        "no capstone flattening": patch(
            "            if flattens:  # every free square gets its drop, then the capstone alone lands on the wall\n"
            "                moves += [(direction, drops + (1,)) for drops in drop_sequences(count - 1, free)"
            " if len(drops) == free]\n",
            ""),
        "walls block but capstones do not": patch(
            "board[line[free]][-1] >> 1 == FLAT)", "board[line[free]][-1] >> 1 != WALL)"),
        "every stone of the stack must move": (
            patch("if not stack:", "if not stack or len(stack) > n:")
            + patch("for count in range(1, min(len(stack), n) + 1):", "for count in [len(stack)]:")),
    },
    "has_road": {
        "walls count as road squares": patch("stack[-1] in (colour, 2 * CAP + colour)", "stack[-1] & 1 == colour"),
        "diagonal steps join": patch(
            "for dr, df in STEPS:", "for dr, df in [(dr, df) for dr in (-1, 0, 1) for df in (-1, 0, 1)]:"),
        "left to right only": patch("n * n)))):", "n * n))))[:1]:"),
        "capstones left out": patch("stack[-1] in (colour, 2 * CAP + colour)", "stack[-1] == colour"),
        "any stone of the stack counts": patch(
            "if stack and stack[-1] in (colour, 2 * CAP + colour)}",
            "if any(code in (colour, 2 * CAP + colour) for code in stack)}"),
        "any two edges": patch(
            "    for starts, ends in (({r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}),"
            "  # left to right\n"
            "                         (set(range(n)), set(range(n * (n - 1), n * n)))):  # bottom to top\n",
            "    edges = [{r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}, set(range(n)), "
            "set(range(n * (n - 1), n * n))]\n"
            "    for starts, ends in [(edge, set().union(*(e for e in edges if e is not edge))) for edge in edges]:\n"),
    },
    "exploration_rate": {
        "the report's formula (c_init inside the log)": patch(
            "math.log((1 + visits + c_base) / c_base) + c_init", "math.log((1 + visits + c_init) / c_base)"),
        "a constant rate": patch("return math.log((1 + visits + c_base) / c_base) + c_init", "return c_init"),
        "c_init left out": patch(
            "math.log((1 + visits + c_base) / c_base) + c_init", "math.log((1 + visits + c_base) / c_base)"),
        "log base 10": patch("math.log(", "math.log10("),
    },
    "puct_select": {
        "C(s) constant (c_init)": patch("exploration_rate(visits, c_init, c_base) *", "c_init *"),
        "unvisited moves get Q = 0": patch(
            "np.where(counts > 0, np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1), unvisited_value)",
            "np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1)"),
        "no square root": patch("math.sqrt(visits)", "visits"),
        "ties to the highest index": patch(
            "return int(np.argmax(q + u))",
            "scores = q + u\n    return int(len(scores) - 1 - np.argmax(scores[::-1]))"),
        "the prior left out (UCT's bonus)": patch(" * np.asarray(prior, dtype=np.float64)", ""),
    },
    "add_dirichlet_noise": {
        "noise over every action, illegal ones too": (
            patch(
                "np.asarray(prior, dtype=np.float64)[legal]",
                "np.where(legal, np.asarray(prior, dtype=np.float64), 0.0)")
            + patch("out[legal] = ", "out = ")),
        "the prior not renormalised": patch("(1 - fraction) * kept / kept.sum()", "(1 - fraction) * kept"),
        "the weights swapped": patch(
            "(1 - fraction) * kept / kept.sum() + fraction * noise",
            "fraction * kept / kept.sum() + (1 - fraction) * noise"),
        "a generator of its own": patch("noise = rng.dirichlet(", "noise = np.random.default_rng().dirichlet("),
        "renormalised after mixing": (
            patch("(1 - fraction) * kept / kept.sum()", "(1 - fraction) * kept")
            + patch("    return out\n", "    return out / out.sum()\n")),
        "mixes in place": patch("    out = np.zeros(len(legal))\n", "    out = prior\n    out[~legal] = 0.0\n"),
    },
    "alphazero_loss": {
        "cross-entropy over illegal moves too": patch("jnp.where(legal, logits, -1e9)", "logits"),
        "L2 on the kernels only": patch(
            "sum(jnp.sum(leaf ** 2) for leaf in jax.tree_util.tree_leaves(params))",
            'sum(jnp.sum(layer["kernel"] ** 2) for layer in params.values())'),
        "L2 subtracted": patch("l2 = c * sum(", "l2 = -c * sum("),
        "-inf on the illegal moves": (
            patch("-1e9", "-jnp.inf")
            + patch("jnp.where(legal, pi * log_p, 0.0)", "pi * log_p")),
        "the value loss summed over the batch": patch("value_loss = jnp.mean(", "value_loss = jnp.sum("),
        "the L2 term without c": patch("l2 = c * sum(", "l2 = sum("),
    },
    "tak6_alphazero.win_rate_interval": {
        "the normal approximation": patch(
            "    denom = 1 + z * z / n\n"
            "    centre = (s + z * z / (2 * n)) / denom\n"
            "    half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / denom\n",
            "    centre = s\n    half = z * math.sqrt(s * (1 - s) / n)\n"),
        "draws counted as losses": patch("s = (wins + 0.5 * draws) / n", "s = wins / n"),
        "draws left out of the games": (
            patch("    n = wins + draws + losses\n", "    n = wins + losses\n")
            + patch("s = (wins + 0.5 * draws) / n", "s = wins / n")),
        "z fixed at 1.96": patch("z * z", "1.96 ** 2", count=3) + patch("half = z *", "half = 1.96 *"),
        "the half-width not divided by 1 + z^2 / n": patch("(4 * n * n)) / denom", "(4 * n * n))"),
    },
}
MISTAKES = {key: _Answers(key, patches) for key, patches in CORPUS.items()}

NOTEBOOK_OF = {name: notebook for notebook, names in {
    "ttt1_mcts": ("get_next_state", "get_reward", "select_action", "get_action_prob", "expand_node", "search_iter"),
    "ttt2_selfplay": ("train_step", "match_average"),
    "azul3_play": ("decode_move", "legal_takes", "masked_policy", "arena"),
    "hex4_onpolicy": ("winner", "tree_policy", "rollout", "legal_distribution", "policy_loss",
                      "hex4_onpolicy.train_step", "topp"),
    "othello5_planning": ("flips", "legal_moves", "state_value", "value_move", "rollout_value", "monte_carlo_move",
                          "simulate", "mcts_move", "win_rate_interval"),
    "tak6_alphazero": ("stack_moves", "has_road", "exploration_rate", "puct_select", "add_dirichlet_noise",
                       "alphazero_loss", "tak6_alphazero.win_rate_interval"),
}.items() for name in names}


def function_of(key: str) -> str:
    """The graded function a MISTAKES key stands for: the key itself, or its last part when the name is
    graded in two notebooks and the later one is named with it ("hex4_onpolicy.train_step")."""
    return key.rpartition(".")[2]


@cache
def reference_source(key: str) -> str:
    """The reference's definition of the function of `key` (decorators and docstring included): the part of
    its solution cell (``corpus.source_solutions``) that defines it, the cell's other definitions left out."""
    function = function_of(key)
    cell = source_solutions(NOTEBOOK_OF[key])[function]
    definition = next(node for node in ast.parse(cell).body
                      if isinstance(node, ast.FunctionDef) and node.name == function)
    first = min([definition.lineno] + [decorator.lineno for decorator in definition.decorator_list])
    return "\n".join(cell.splitlines()[first - 1:definition.end_lineno]) + "\n"


def mistake(ref: dict, key: str, label: str):
    """The wrong answer `label` of MISTAKES[key], defined in a copy of the reference namespace ``ref``
    (so its globals hold the notebook's helpers, as in a student's kernel)."""
    namespace = dict(ref)
    exec(compile(MISTAKES[key][label], f"<{key}: {label}>", "exec"), namespace)  # noqa: S102 (the corpus)
    return namespace[function_of(key)]


def with_globals(ref: dict, names: tuple[str, ...], **replacements) -> dict:
    """A copy of the reference namespace with `replacements`, whose functions `names` look their
    globals up in the copy (as the functions of one kernel do)."""
    namespace = {**ref, **replacements}
    for name in names:
        namespace[name] = types.FunctionType(ref[name].__code__, namespace, name, ref[name].__defaults__)
    return namespace
