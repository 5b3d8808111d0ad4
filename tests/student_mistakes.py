"""Realistic wrong answers, at least three per TODO of every notebook (issue 12).

Each is source code that redefines one graded function the way a student really gets it wrong:
a wrong term in a formula, a forgotten mask, mutation of an input, tie-breaking, overflow, sign
and viewpoint errors, missed rule cases, seating and randomness protocols.
``tests/test_visible_tests.py`` runs every notebook's visible tests with each of them in turn, and
``tests/test_hex_notebook_checks.py``, ``tests/test_othello_notebook_checks.py`` and
``tests/test_tak_notebook_checks.py`` check that each of parts 4, 5 and 6 fails its hidden test too.

A key of ``MISTAKES`` is the function's name; a name graded in two notebooks (``train_step``) is
qualified with its notebook the second time. ``NOTEBOOK_OF`` gives each key's notebook, ``function_of``
its function, ``mistake`` defines one wrong answer in a copy of the reference namespace and
``with_globals`` copies that namespace with some names replaced.
"""
import types

MISTAKES = {
    # ------------------------------------------------------------------ ttt1_mcts
    "get_next_state": {
        "mutates the input board": '''
def get_next_state(board, action):
    if board[action] != 0:
        raise ValueError("occupied")
    board[action] = 1
    return board
''',
        "marks -1 for the player to move": '''
def get_next_state(board, action):
    if board[action] != 0:
        raise ValueError("occupied")
    nxt = board.copy()
    nxt[action] = -1
    return nxt
''',
        "never refuses an occupied square": '''
def get_next_state(board, action):
    nxt = board.copy()
    nxt[action] = 1
    return nxt
''',
        "refuses only the opponent's squares": '''
def get_next_state(board, action):
    if board[action] == -1:
        raise ValueError("occupied")
    nxt = board.copy()
    nxt[action] = 1
    return nxt
''',
        "returns a float board": '''
def get_next_state(board, action):
    if board[action] != 0:
        raise ValueError("occupied")
    return board + np.eye(9)[action]
''',
    },
    "get_reward": {
        "misses the anti-diagonal": '''
def get_reward(board):
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8)]
    for i, j, k in lines:
        s = board[i] + board[j] + board[k]
        if abs(s) == 3:
            return int(s // 3), True
    return 0, bool(np.all(board != 0))
''',
        "a full board is never over": '''
def get_reward(board):
    for i, j, k in WIN_LINES:
        s = board[i] + board[j] + board[k]
        if abs(s) == 3:
            return int(s // 3), True
    return 0, False
''',
        "every line counts as a win": '''
def get_reward(board):
    for i, j, k in WIN_LINES:
        s = board[i] + board[j] + board[k]
        if abs(s) == 3:
            return 1, True
    return 0, bool(np.all(board != 0))
''',
        "forgets the columns": '''
def get_reward(board):
    for i, j, k in [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 4, 8), (2, 4, 6)]:
        s = board[i] + board[j] + board[k]
        if abs(s) == 3:
            return int(s // 3), True
    return 0, bool(np.all(board != 0))
''',
    },
    "select_action": {
        "no mask of illegal moves": '''
def select_action(tree, node, c_init=C_INIT, c_base=C_BASE):
    n = tree.N[node]
    c = c_init if c_base is None else math.log((1 + n + c_base) / c_base) + c_init
    scores = tree.Q_sa[node] + c * tree.P_sa[node] * math.sqrt(n) / (1 + tree.N_sa[node])
    return int(np.argmax(scores))
''',
        "sqrt of the children's visits": '''
def select_action(tree, node, c_init=C_INIT, c_base=C_BASE):
    n = tree.N[node]
    c = c_init if c_base is None else math.log((1 + n + c_base) / c_base) + c_init
    scores = tree.Q_sa[node] + c * tree.P_sa[node] * math.sqrt(tree.N_sa[node].sum()) / (1 + tree.N_sa[node])
    return int(np.argmax(np.where(tree.valid[node], scores, -np.inf)))
''',
        "ignores c_base": '''
def select_action(tree, node, c_init=C_INIT, c_base=C_BASE):
    scores = tree.Q_sa[node] + c_init * tree.P_sa[node] * math.sqrt(tree.N[node]) / (1 + tree.N_sa[node])
    return int(np.argmax(np.where(tree.valid[node], scores, -np.inf)))
''',
        "ties go to the highest index": '''
def select_action(tree, node, c_init=C_INIT, c_base=C_BASE):
    n = tree.N[node]
    c = c_init if c_base is None else math.log((1 + n + c_base) / c_base) + c_init
    scores = tree.Q_sa[node] + c * tree.P_sa[node] * math.sqrt(n) / (1 + tree.N_sa[node])
    best = None
    for a in np.flatnonzero(tree.valid[node]):
        if best is None or scores[a] >= scores[best]:
            best = a
    return int(best)
''',
        "divides by N(s,a) instead of 1 + N(s,a)": '''
def select_action(tree, node, c_init=C_INIT, c_base=C_BASE):
    n = tree.N[node]
    c = c_init if c_base is None else math.log((1 + n + c_base) / c_base) + c_init
    with np.errstate(divide="ignore", invalid="ignore"):
        u = c * tree.P_sa[node] * math.sqrt(n) / np.maximum(tree.N_sa[node], 1e-9)
    scores = tree.Q_sa[node] + u
    return int(np.argmax(np.where(tree.valid[node], scores, -np.inf)))
''',
    },
    "get_action_prob": {
        "forgets the temperature": '''
def get_action_prob(tree, node, temperature=1.0):
    visits = tree.N_sa[node]
    if temperature == 0:
        probs = np.zeros(9)
        probs[np.argmax(visits)] = 1
        return probs
    return visits / visits.sum()
''',
        "temperature-0 ties go to the highest index": '''
def get_action_prob(tree, node, temperature=1.0):
    visits = tree.N_sa[node]
    if temperature == 0:
        probs = np.zeros(9)
        probs[8 - np.argmax(visits[::-1])] = 1
        return probs
    if math.isinf(temperature):
        return tree.valid[node] / tree.valid[node].sum()
    scaled = (visits / visits.max()) ** (1 / temperature)
    return scaled / scaled.sum()
''',
        "no overflow guard at small temperature": '''
def get_action_prob(tree, node, temperature=1.0):
    visits = tree.N_sa[node]
    if temperature == 0:
        probs = np.zeros(9)
        probs[np.argmax(visits)] = 1
        return probs
    if math.isinf(temperature):
        return tree.valid[node] / tree.valid[node].sum()
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = visits ** (1 / temperature)
        return scaled / scaled.sum()
''',
        "infinite temperature spreads over every square": '''
def get_action_prob(tree, node, temperature=1.0):
    visits = tree.N_sa[node]
    if temperature == 0:
        probs = np.zeros(9)
        probs[np.argmax(visits)] = 1
        return probs
    if math.isinf(temperature):
        return np.full(9, 1 / 9)
    scaled = (visits / visits.max()) ** (1 / temperature)
    return scaled / scaled.sum()
''',
    },
    "expand_node": {
        "renormalises the model's prior in place": '''
def expand_node(tree, board, prior):
    node = tree.add(board)
    prior *= tree.valid[node]
    prior /= prior.sum() if prior.sum() > 0 else 1
    tree.P_sa[node] = prior if prior.sum() > 0 else tree.valid[node] / tree.valid[node].sum()
    tree.N[node] = 1
    return node
''',
        "no mask of illegal moves": '''
def expand_node(tree, board, prior):
    node = tree.add(board)
    tree.P_sa[node] = prior / prior.sum()
    tree.N[node] = 1
    return node
''',
        "divides by zero legal mass": '''
def expand_node(tree, board, prior):
    node = tree.add(board)
    masked = np.where(tree.valid[node], prior, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tree.P_sa[node] = masked / masked.sum()
    tree.N[node] = 1
    return node
''',
        "leaves N(s) at 0": '''
def expand_node(tree, board, prior):
    node = tree.add(board)
    masked = np.where(tree.valid[node], prior, 0.0)
    total = masked.sum()
    tree.P_sa[node] = masked / total if total > 0 else tree.valid[node] / tree.valid[node].sum()
    return node
''',
    },
    "search_iter": {
        "never negates the value": '''
def search_iter(tree, root, model, c_init=C_INIT, c_base=C_BASE):
    path, node, board = [], root, tree.state[root]
    while True:
        action = select_action(tree, node, c_init, c_base)
        path.append((node, action))
        board = flip_board(get_next_state(board, action))
        child = tree.find(board)
        if child >= 0:
            node = child
            continue
        value, done = get_reward(board)
        if not done:
            prior, value = model(board)
            expand_node(tree, board, prior)
        break
    for node, action in reversed(path):
        tree.N[node] += 1
        tree.N_sa[node, action] += 1
        tree.W_sa[node, action] += value
        tree.Q_sa[node, action] = tree.W_sa[node, action] / tree.N_sa[node, action]
''',
        "negates only once, at the root": '''
def search_iter(tree, root, model, c_init=C_INIT, c_base=C_BASE):
    path, node, board = [], root, tree.state[root]
    while True:
        action = select_action(tree, node, c_init, c_base)
        path.append((node, action))
        board = flip_board(get_next_state(board, action))
        child = tree.find(board)
        if child >= 0:
            node = child
            continue
        value, done = get_reward(board)
        if not done:
            prior, value = model(board)
            expand_node(tree, board, prior)
        break
    value = -value
    for node, action in reversed(path):
        tree.N[node] += 1
        tree.N_sa[node, action] += 1
        tree.W_sa[node, action] += value
        tree.Q_sa[node, action] = tree.W_sa[node, action] / tree.N_sa[node, action]
''',
        "does not flip the board": '''
def search_iter(tree, root, model, c_init=C_INIT, c_base=C_BASE):
    path, node, board = [], root, tree.state[root]
    while True:
        action = select_action(tree, node, c_init, c_base)
        path.append((node, action))
        board = get_next_state(board, action)
        child = tree.find(board)
        if child >= 0:
            node = child
            continue
        value, done = get_reward(board)
        if not done:
            prior, value = model(board)
            expand_node(tree, board, prior)
        break
    for node, action in reversed(path):
        value = -value
        tree.N[node] += 1
        tree.N_sa[node, action] += 1
        tree.W_sa[node, action] += value
        tree.Q_sa[node, action] = tree.W_sa[node, action] / tree.N_sa[node, action]
''',
        "updates only the root's edge": '''
def search_iter(tree, root, model, c_init=C_INIT, c_base=C_BASE):
    path, node, board = [], root, tree.state[root]
    while True:
        action = select_action(tree, node, c_init, c_base)
        path.append((node, action))
        board = flip_board(get_next_state(board, action))
        child = tree.find(board)
        if child >= 0:
            node = child
            continue
        value, done = get_reward(board)
        if not done:
            prior, value = model(board)
            expand_node(tree, board, prior)
        break
    node, action = path[0]
    value = -value if len(path) % 2 else value
    tree.N[node] += 1
    tree.N_sa[node, action] += 1
    tree.W_sa[node, action] += value
    tree.Q_sa[node, action] = tree.W_sa[node, action] / tree.N_sa[node, action]
''',
        "forgets N(s)": '''
def search_iter(tree, root, model, c_init=C_INIT, c_base=C_BASE):
    path, node, board = [], root, tree.state[root]
    while True:
        action = select_action(tree, node, c_init, c_base)
        path.append((node, action))
        board = flip_board(get_next_state(board, action))
        child = tree.find(board)
        if child >= 0:
            node = child
            continue
        value, done = get_reward(board)
        if not done:
            prior, value = model(board)
            expand_node(tree, board, prior)
        break
    for node, action in reversed(path):
        value = -value
        tree.N_sa[node, action] += 1
        tree.W_sa[node, action] += value
        tree.Q_sa[node, action] = tree.W_sa[node, action] / tree.N_sa[node, action]
''',
    },
    # ------------------------------------------------------------------ ttt2_selfplay
    "train_step": {
        "forgets the value loss": '''
@jax.jit
def train_step(state, boards, target_pis, target_values):
    def loss_fn(params):
        logits, values = state.apply_fn({"params": params}, boards)
        return optax.softmax_cross_entropy(logits, target_pis).mean()
    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss
''',
        "policy loss on probabilities, squared": '''
@jax.jit
def train_step(state, boards, target_pis, target_values):
    def loss_fn(params):
        logits, values = state.apply_fn({"params": params}, boards)
        probs = jax.nn.softmax(logits)
        return jnp.mean(jnp.sum((probs - target_pis) ** 2, axis=1)) + jnp.mean((target_values - values) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss
''',
        "sums over the batch": '''
@jax.jit
def train_step(state, boards, target_pis, target_values):
    def loss_fn(params):
        logits, values = state.apply_fn({"params": params}, boards)
        return optax.softmax_cross_entropy(logits, target_pis).sum() + jnp.sum((target_values - values) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss
''',
        "never applies the gradients": '''
@jax.jit
def train_step(state, boards, target_pis, target_values):
    def loss_fn(params):
        logits, values = state.apply_fn({"params": params}, boards)
        return optax.softmax_cross_entropy(logits, target_pis).mean() + jnp.mean((target_values - values) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state, loss
''',
        "climbs the loss": '''
@jax.jit
def train_step(state, boards, target_pis, target_values):
    def loss_fn(params):
        logits, values = state.apply_fn({"params": params}, boards)
        return optax.softmax_cross_entropy(logits, target_pis).mean() + jnp.mean((target_values - values) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=jax.tree_util.tree_map(lambda g: -g, grads)), loss
''',
    },
    "match_average": {
        "agent1 always moves first": '''
def match_average(agent1, agent2, num_games=200):
    results = np.array([play_match(agent1, agent2) for _ in range(num_games)])
    return tuple(float(100 * np.mean(results == outcome)) for outcome in (1, -1, 0))
''',
        "fractions, not percentages": '''
def match_average(agent1, agent2, num_games=200):
    half = num_games // 2
    results = [play_match(agent1, agent2) for _ in range(half)] + [-play_match(agent2, agent1) for _ in range(half)]
    results = np.array(results)
    return tuple(float(np.mean(results == outcome)) for outcome in (1, -1, 0))
''',
        "(win, draw, loss) order": '''
def match_average(agent1, agent2, num_games=200):
    half = num_games // 2
    results = [play_match(agent1, agent2) for _ in range(half)] + [-play_match(agent2, agent1) for _ in range(half)]
    results = np.array(results)
    return tuple(float(100 * np.mean(results == outcome)) for outcome in (1, 0, -1))
''',
        "second half counted from agent2's side": '''
def match_average(agent1, agent2, num_games=200):
    half = num_games // 2
    results = [play_match(agent1, agent2) for _ in range(half)] + [play_match(agent2, agent1) for _ in range(half)]
    results = np.array(results)
    return tuple(float(100 * np.mean(results == outcome)) for outcome in (1, -1, 0))
''',
    },
    # ------------------------------------------------------------------ azul3_play
    "decode_move": {
        "accepts factory 0 and 6": '''
def decode_move(code):
    text = code.strip().upper()
    if len(text) != 3 or text[1] not in "BYRDW" or text[2] not in "12345F":
        raise ValueError(code)
    source = 0 if text[0] == "C" else int(text[0])
    if not 0 <= source <= 9:
        raise ValueError(code)
    return (min(source, 5) * 5 + "BYRDW".index(text[1])) * 6 + "12345F".index(text[2])
''',
        "does not strip spaces or fold case": '''
def decode_move(code):
    if len(code) != 3 or code[0] not in "C12345" or code[1] not in "BYRDW" or code[2] not in "12345F":
        raise ValueError(code)
    return ("C12345".index(code[0]) * 5 + "BYRDW".index(code[1])) * 6 + "12345F".index(code[2])
''',
        "removes every space": '''
def decode_move(code):
    text = code.replace(" ", "").upper()
    if len(text) != 3 or text[0] not in "C12345" or text[1] not in "BYRDW" or text[2] not in "12345F":
        raise ValueError(code)
    return ("C12345".index(text[0]) * 5 + "BYRDW".index(text[1])) * 6 + "12345F".index(text[2])
''',
        "source and colour swapped in the formula": '''
def decode_move(code):
    text = code.strip().upper()
    if len(text) != 3 or text[0] not in "C12345" or text[1] not in "BYRDW" or text[2] not in "12345F":
        raise ValueError(code)
    return ("BYRDW".index(text[1]) * 6 + "C12345".index(text[0])) * 6 + "12345F".index(text[2])
''',
    },
    "legal_takes": {
        "forgets the wall": '''
def legal_takes(state):
    me = state.players[0]
    sources = np.vstack([state.centre, state.factories])
    mask = np.zeros((6, 5, 6), dtype=bool)
    for row in range(5):
        held = me.pattern[row]
        for colour in range(5):
            ok = held.sum() == 0 or (held[colour] > 0 and held.sum() < row + 1)
            mask[:, colour, row] = (sources[:, colour] > 0) & ok
    mask[:, :, 5] = sources > 0
    return mask.reshape(-1)
''',
        "allows a full line": '''
def legal_takes(state):
    me = state.players[0]
    sources = np.vstack([state.centre, state.factories])
    mask = np.zeros((6, 5, 6), dtype=bool)
    for row in range(5):
        held = me.pattern[row]
        for colour in range(5):
            ok = (held.sum() == 0 or held[colour] > 0) and not me.wall[row, (colour + row) % 5]
            mask[:, colour, row] = (sources[:, colour] > 0) & ok
    mask[:, :, 5] = sources > 0
    return mask.reshape(-1)
''',
        "a line may take any colour": '''
def legal_takes(state):
    me = state.players[0]
    sources = np.vstack([state.centre, state.factories])
    mask = np.zeros((6, 5, 6), dtype=bool)
    for row in range(5):
        held = me.pattern[row]
        for colour in range(5):
            ok = held.sum() < row + 1 and not me.wall[row, (colour + row) % 5]
            mask[:, colour, row] = (sources[:, colour] > 0) & ok
    mask[:, :, 5] = sources > 0
    return mask.reshape(-1)
''',
        "takes from empty sources": '''
def legal_takes(state):
    me = state.players[0]
    mask = np.zeros((6, 5, 6), dtype=bool)
    for row in range(5):
        held = me.pattern[row]
        for colour in range(5):
            other = held.sum() > 0 and held[colour] == 0
            mask[:, colour, row] = not (other or held.sum() >= row + 1 or me.wall[row, (colour + row) % 5])
    mask[:, :, 5] = True
    return mask.reshape(-1)
''',
    },
    "masked_policy": {
        "no max subtraction": '''
def masked_policy(logits, mask):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.where(mask, np.exp(logits), 0.0)
        return e / e.sum()
''',
        "softmax over all moves, then zero the illegal ones": '''
def masked_policy(logits, mask):
    z = np.exp(logits - logits.max())
    p = z / z.sum()
    return np.where(mask, p, 0.0)
''',
        "masks the logits in place": '''
def masked_policy(logits, mask):
    logits[~mask] = -np.inf
    z = np.exp(logits - logits.max())
    return z / z.sum()
''',
        "subtracts the largest logit, legal or not": '''
def masked_policy(logits, mask):
    with np.errstate(invalid="ignore"):
        z = np.where(mask, np.exp(logits - logits.max()), 0.0)
        return z / z.sum()
''',
    },
    "arena": {
        "no seat alternation": '''
def arena(agent_a, agent_b, num_games, seed):
    results, diffs = [], []
    for i in range(num_games):
        rng = np.random.default_rng([seed, i])
        board = init_board(rng)
        while not get_reward(board)[1]:
            if get_valid_mask(board)[NOOP]:
                action = NOOP
            else:
                action = (agent_a if current_seat(board) == 0 else agent_b)(board, rng)
            board = get_next_state(board, action, rng)
        reward = get_reward(board)[0]
        results.append(reward if current_seat(board) == 0 else -reward)
        state = AzulState.decode(board)
        diffs.append(state.by_seat(0).score - state.by_seat(1).score)
    results = np.array(results)
    return {"wins": float(np.mean(results == 1)), "draws": float(np.mean(results == 0)),
            "losses": float(np.mean(results == -1)), "mean_score_diff": float(np.mean(diffs))}
''',
        "one generator for the whole match": '''
def arena(agent_a, agent_b, num_games, seed):
    rng = np.random.default_rng(seed)
    results, diffs = [], []
    for i in range(num_games):
        seat_a = i % 2
        board = init_board(rng)
        while not get_reward(board)[1]:
            if get_valid_mask(board)[NOOP]:
                action = NOOP
            else:
                action = (agent_a if current_seat(board) == seat_a else agent_b)(board, rng)
            board = get_next_state(board, action, rng)
        reward = get_reward(board)[0]
        results.append(reward if current_seat(board) == seat_a else -reward)
        state = AzulState.decode(board)
        diffs.append(state.by_seat(seat_a).score - state.by_seat(1 - seat_a).score)
    results = np.array(results)
    return {"wins": float(np.mean(results == 1)), "draws": float(np.mean(results == 0)),
            "losses": float(np.mean(results == -1)), "mean_score_diff": float(np.mean(diffs))}
''',
        "results from seat 0, not agent_a": '''
def arena(agent_a, agent_b, num_games, seed):
    results, diffs = [], []
    for i in range(num_games):
        rng = np.random.default_rng([seed, i])
        seat_a = i % 2
        board = init_board(rng)
        while not get_reward(board)[1]:
            if get_valid_mask(board)[NOOP]:
                action = NOOP
            else:
                action = (agent_a if current_seat(board) == seat_a else agent_b)(board, rng)
            board = get_next_state(board, action, rng)
        reward = get_reward(board)[0]
        results.append(reward if current_seat(board) == 0 else -reward)
        state = AzulState.decode(board)
        diffs.append(state.by_seat(0).score - state.by_seat(1).score)
    results = np.array(results)
    return {"wins": float(np.mean(results == 1)), "draws": float(np.mean(results == 0)),
            "losses": float(np.mean(results == -1)), "mean_score_diff": float(np.mean(diffs))}
''',
    },
    # ------------------------------------------------------------------ hex4_onpolicy
    "winner": {
        "four neighbours (no diagonal)": '''
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
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
''',
        "all eight neighbours": '''
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
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    nxt = (row + dr, col + dc)
                    if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
    return 0
''',
        "the other diagonal pair": '''
def winner(board):
    n = board.shape[0]
    steps = ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1))
    for player in (1, 2):
        stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        seen = set(stack)
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in steps:
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
''',
        "the players' sides swapped": '''
def winner(board):
    n = board.shape[0]
    steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
    for player in (1, 2):
        stack = [(k, 0) if player == 1 else (0, k) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        seen = set(stack)
        while stack:
            row, col = stack.pop()
            if (col if player == 1 else row) == n - 1:
                return player
            for dr, dc in steps:
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
''',
        "searches only from the corner (0, 0)": '''
def winner(board):
    n = board.shape[0]
    steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
    for player in (1, 2):
        if board[0, 0] != player:
            continue
        stack, seen = [(0, 0)], {(0, 0)}
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in steps:
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
''',
        "marks the visited cells on the board": '''
def winner(board):
    n = board.shape[0]
    steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
    for player in (1, 2):
        stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        for cell in stack:
            board[cell] = -1  # visited
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in steps:
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player:
                    board[nxt] = -1
                    stack.append(nxt)
    return 0
''',
        "returns 0 before trying player 2": '''
def winner(board):
    n = board.shape[0]
    steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
    for player in (1, 2):
        stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        seen = set(stack)
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in steps:
                nxt = (row + dr, col + dc)
                if 0 <= nxt[0] < n and 0 <= nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return 0
''',
        "negative indices wrap around": '''
def winner(board):
    n = board.shape[0]
    steps = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
    for player in (1, 2):
        stack = [(0, k) if player == 1 else (k, 0) for k in range(n)]
        stack = [cell for cell in stack if board[cell] == player]
        seen = set(stack)
        while stack:
            row, col = stack.pop()
            if (row if player == 1 else col) == n - 1:
                return player
            for dr, dc in steps:
                nxt = (row + dr, col + dc)
                if nxt[0] < n and nxt[1] < n and board[nxt] == player and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return 0
''',
    },
    "tree_policy": {
        "ln of the edges' visits for N(s)": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    bonus = c * np.sqrt(np.log(N.sum()) / N)
    return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q - bonus))
''',
        "ignores the player": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    return int(np.argmax(Q + c * np.sqrt(np.log(parent_visits) / N)))
''',
        "player 2 minimises Q + bonus": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    bonus = c * np.sqrt(np.log(parent_visits) / N)
    return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q + bonus))
''',
        "the last untried edge": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[-1])
    bonus = c * np.sqrt(np.log(parent_visits) / N)
    return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q - bonus))
''',
        "ln N(s, a) / N(s)": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    bonus = c * np.sqrt(np.log(N) / parent_visits)
    return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q - bonus))
''',
        "no square root": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    bonus = c * np.log(parent_visits) / N
    return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q - bonus))
''',
        "square root of ln N(s) only": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    bonus = c * np.sqrt(np.log(parent_visits)) / N
    return int(np.argmax(Q + bonus)) if player == 1 else int(np.argmin(Q - bonus))
''',
        "ties go to the highest index": '''
def tree_policy(parent_visits, N, Q, player, c):
    untried = np.flatnonzero(N == 0)
    if len(untried):
        return int(untried[0])
    sign = 1 if player == 1 else -1
    scores = sign * Q + c * np.sqrt(np.log(parent_visits) / N)
    best = 0
    for a in range(len(N)):
        if scores[a] >= scores[best]:
            best = a
    return best
''',
    },
    "rollout": {
        "the players never alternate": '''
def rollout(board, player, policy):
    while winner(board) == 0:
        board = place(board, policy(board, player), player)
    return winner(board)
''',
        "plays on the board it is given": '''
def rollout(board, player, policy):
    n = board.shape[0]
    while winner(board) == 0:
        board[divmod(policy(board, player), n)] = player
        player = 3 - player
    return winner(board)
''',
        "fills the board, then asks who won": '''
def rollout(board, player, policy):
    while len(empty_cells(board)):
        board = place(board, policy(board, player), player)
        player = 3 - player
    return winner(board)
''',
        "returns the player to move at the end": '''
def rollout(board, player, policy):
    while winner(board) == 0:
        board = place(board, policy(board, player), player)
        player = 3 - player
    return player
''',
        "moves before checking for a win": '''
def rollout(board, player, policy):
    while True:
        board = place(board, policy(board, player), player)
        result = winner(board)
        if result:
            return result
        player = 3 - player
''',
    },
    "legal_distribution": {
        "not renormalised": '''
def legal_distribution(probs, board):
    legal = board.ravel() == 0
    return np.where(legal, np.asarray(probs, dtype=np.float64), 0.0)
''',
        "masks only player 1's stones": '''
def legal_distribution(probs, board):
    legal = board.ravel() != 1
    kept = np.where(legal, np.asarray(probs, dtype=np.float64), 0.0)
    total = kept.sum()
    if not np.isfinite(total) or total <= 0:
        return legal / legal.sum()
    return kept / total
''',
        "divides by the sum over all cells": '''
def legal_distribution(probs, board):
    probs = np.asarray(probs, dtype=np.float64)
    legal = board.ravel() == 0
    if probs[legal].sum() <= 0:
        return legal / legal.sum()
    return np.where(legal, probs, 0.0) / probs.sum()
''',
        "no uniform fallback (0 / 0)": '''
def legal_distribution(probs, board):
    kept = np.where(board.ravel() == 0, np.asarray(probs, dtype=np.float64), 0.0)
    return kept / kept.sum()
''',
        "changes probs in place": '''
def legal_distribution(probs, board):
    legal = board.ravel() == 0
    probs[~legal] = 0
    total = probs.sum()
    if not np.isfinite(total) or total <= 0:
        return legal / legal.sum()
    probs /= total
    return probs.astype(np.float64)
''',
        "keeps the input's float32": '''
def legal_distribution(probs, board):
    legal = board.ravel() == 0
    kept = np.where(legal, probs, 0)
    total = kept.sum()
    if not np.isfinite(total) or total <= 0:
        return (legal / legal.sum()).astype(probs.dtype)
    return kept / total
''',
        "tiny probabilities taken for none": '''
def legal_distribution(probs, board):
    legal = board.ravel() == 0
    kept = np.where(legal, np.asarray(probs, dtype=np.float64), 0.0)
    total = kept.sum()
    if not np.isfinite(total) or np.isclose(total, 0):
        return legal / legal.sum()
    return kept / total
''',
    },
    "policy_loss": {
        "softmax over all cells": '''
def policy_loss(logits, x, target):
    return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits, axis=-1), axis=-1))
''',
        "sum over the batch": '''
def policy_loss(logits, x, target):
    empty = (x[:, 2::2] + x[:, 3::2]) == 0
    log_pi = jax.nn.log_softmax(jnp.where(empty, logits, -1e9), axis=-1)
    return -jnp.sum(jnp.where(empty, target * log_pi, 0.0))
''',
        "-inf on the taken cells": '''
def policy_loss(logits, x, target):
    empty = (x[:, 2::2] + x[:, 3::2]) == 0
    log_pi = jax.nn.log_softmax(jnp.where(empty, logits, -jnp.inf), axis=-1)
    return -jnp.mean(jnp.sum(target * log_pi, axis=-1))
''',
        "no minus sign": '''
def policy_loss(logits, x, target):
    empty = (x[:, 2::2] + x[:, 3::2]) == 0
    log_pi = jax.nn.log_softmax(jnp.where(empty, logits, -1e9), axis=-1)
    return jnp.mean(jnp.sum(jnp.where(empty, target * log_pi, 0.0), axis=-1))
''',
        "the mean over the cells too": '''
def policy_loss(logits, x, target):
    empty = (x[:, 2::2] + x[:, 3::2]) == 0
    log_pi = jax.nn.log_softmax(jnp.where(empty, logits, -1e9), axis=-1)
    return -jnp.mean(jnp.where(empty, target * log_pi, 0.0))
''',
        "zeroes the taken cells' logits": '''
def policy_loss(logits, x, target):
    empty = (x[:, 2::2] + x[:, 3::2]) == 0
    log_pi = jax.nn.log_softmax(logits * empty, axis=-1)
    return -jnp.mean(jnp.sum(target * log_pi, axis=-1))
''',
        "reads only the player-1 bit": '''
def policy_loss(logits, x, target):
    empty = x[:, 2::2] == 0
    log_pi = jax.nn.log_softmax(jnp.where(empty, logits, -1e9), axis=-1)
    return -jnp.mean(jnp.sum(jnp.where(empty, target * log_pi, 0.0), axis=-1))
''',
    },
    "hex4_onpolicy.train_step": {
        "samples a second minibatch for the gradient": '''
def train_step(state, buffer, batch_size, rng):
    x, target = buffer.sample(batch_size, rng)
    loss = policy_loss(state.apply_fn({"params": state.params}, x), x, target)
    x, target = buffer.sample(batch_size, rng)
    grads = jax.grad(lambda params: policy_loss(state.apply_fn({"params": params}, x), x, target))(state.params)
    return state.apply_gradients(grads=grads), float(loss)
''',
        "draws the indices with rng.integers": '''
def train_step(state, buffer, batch_size, rng):
    index = rng.integers(len(buffer), size=batch_size)
    x, target = buffer.x[index], buffer.target[index]

    def loss_of(params):
        return policy_loss(state.apply_fn({"params": params}, x), x, target)

    loss, grads = jax.value_and_grad(loss_of)(state.params)
    return state.apply_gradients(grads=grads), float(loss)
''',
        "a generator of its own": '''
def train_step(state, buffer, batch_size, rng):
    x, target = buffer.sample(batch_size, np.random.default_rng(0))

    def loss_of(params):
        return policy_loss(state.apply_fn({"params": params}, x), x, target)

    loss, grads = jax.value_and_grad(loss_of)(state.params)
    return state.apply_gradients(grads=grads), float(loss)
''',
        "never applies the gradients": '''
def train_step(state, buffer, batch_size, rng):
    x, target = buffer.sample(batch_size, rng)

    def loss_of(params):
        return policy_loss(state.apply_fn({"params": params}, x), x, target)

    loss, grads = jax.value_and_grad(loss_of)(state.params)
    return state, float(loss)
''',
        "its own SGD step, not the optimizer": '''
def train_step(state, buffer, batch_size, rng):
    x, target = buffer.sample(batch_size, rng)

    def loss_of(params):
        return policy_loss(state.apply_fn({"params": params}, x), x, target)

    loss, grads = jax.value_and_grad(loss_of)(state.params)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, state.params, grads)
    return state.replace(params=params, step=state.step + 1), float(loss)
''',
        "the loss after the step": '''
def train_step(state, buffer, batch_size, rng):
    x, target = buffer.sample(batch_size, rng)

    def loss_of(params):
        return policy_loss(state.apply_fn({"params": params}, x), x, target)

    state = state.apply_gradients(grads=jax.grad(loss_of)(state.params))
    return state, float(loss_of(state.params))
''',
        "climbs the loss": '''
def train_step(state, buffer, batch_size, rng):
    x, target = buffer.sample(batch_size, rng)

    def loss_of(params):
        return policy_loss(state.apply_fn({"params": params}, x), x, target)

    loss, grads = jax.value_and_grad(loss_of)(state.params)
    return state.apply_gradients(grads=jax.tree_util.tree_map(lambda g: -g, grads)), float(loss)
''',
    },
    "topp": {
        "both orders of every pair": '''
def topp(agents, games_per_series, size):
    k = len(agents)
    wins = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            for g in range(games_per_series):
                first, second = (i, j) if g % 2 == 0 else (j, i)
                if play_game(agents[first], agents[second], size) == 1:
                    wins[first, second] += 1
                else:
                    wins[second, first] += 1
    return wins
''',
        "agent i always opens": '''
def topp(agents, games_per_series, size):
    k = len(agents)
    wins = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            for g in range(games_per_series):
                if play_game(agents[i], agents[j], size) == 1:
                    wins[i, j] += 1
                else:
                    wins[j, i] += 1
    return wins
''',
        "credits agent i when the opener wins": '''
def topp(agents, games_per_series, size):
    k = len(agents)
    wins = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            for g in range(games_per_series):
                first, second = (i, j) if g % 2 == 0 else (j, i)
                if play_game(agents[first], agents[second], size) == 1:
                    wins[i, j] += 1
                else:
                    wins[j, i] += 1
    return wins
''',
        "agent j opens the even games": '''
def topp(agents, games_per_series, size):
    k = len(agents)
    wins = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            for g in range(games_per_series):
                first, second = (j, i) if g % 2 == 0 else (i, j)
                if play_game(agents[first], agents[second], size) == 1:
                    wins[first, second] += 1
                else:
                    wins[second, first] += 1
    return wins
''',
        "series ordered by the second agent": '''
def topp(agents, games_per_series, size):
    k = len(agents)
    wins = np.zeros((k, k), dtype=np.int64)
    for j in range(1, k):
        for i in range(j):
            for g in range(games_per_series):
                first, second = (i, j) if g % 2 == 0 else (j, i)
                if play_game(agents[first], agents[second], size) == 1:
                    wins[first, second] += 1
                else:
                    wins[second, first] += 1
    return wins
''',
        "counts losses (the table transposed)": '''
def topp(agents, games_per_series, size):
    k = len(agents)
    wins = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            for g in range(games_per_series):
                first, second = (i, j) if g % 2 == 0 else (j, i)
                if play_game(agents[first], agents[second], size) == 1:
                    wins[second, first] += 1
                else:
                    wins[first, second] += 1
    return wins
''',
    },
    # ------------------------------------------------------------------ othello5_planning
    "flips": {
        "seven directions: down-left forgotten": '''
def flips(board, row, col, colour):
    n = board.shape[0]
    flipped = []
    for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1)):  # typed by hand
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and board[r, c] == 3 - colour:
            line.append((int(r), int(c)))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and board[r, c] == colour:
            flipped += line
    return flipped
''',
        "a line that runs off the board counts": '''
def flips(board, row, col, colour):
    n = board.shape[0]
    flipped = []
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and board[r, c] == 3 - colour:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and (not (0 <= r < n and 0 <= c < n) or board[r, c] == colour):  # the edge closes the line
            flipped += line
    return flipped
''',
        "a line that ends on an empty square counts": '''
def flips(board, row, col, colour):
    n = board.shape[0]
    flipped = []
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and board[r, c] == 3 - colour:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and board[r, c] != 3 - colour:  # empty or own
            flipped += line
    return flipped
''',
        "four directions (no diagonal)": '''
def flips(board, row, col, colour):
    n = board.shape[0]
    flipped = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and board[r, c] == 3 - colour:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and board[r, c] == colour:
            flipped += line
    return flipped
''',
        "places the disc on the board": '''
def flips(board, row, col, colour):
    n = board.shape[0]
    board[row, col] = colour
    flipped = []
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and board[r, c] == 3 - colour:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and board[r, c] == colour:
            flipped += line
    return flipped
''',
        "stops after the first direction that flips": '''
def flips(board, row, col, colour):
    n = board.shape[0]
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and board[r, c] == 3 - colour:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and board[r, c] == colour:
            return line
    return []
''',
    },
    "legal_moves": {
        "a pass whenever there is no placing move, even at the end": '''
def legal_moves(board, colour):
    n = board.shape[0]
    mask = np.zeros(n * n + 1, dtype=bool)
    for r, c in zip(*np.nonzero(board == 0)):
        if flips(board, r, c, colour):
            mask[r * n + c] = True
    mask[n * n] = not mask.any()
    return mask
''',
        "the pass is always legal": '''
def legal_moves(board, colour):
    n = board.shape[0]
    mask = np.zeros(n * n + 1, dtype=bool)
    for r, c in zip(*np.nonzero(board == 0)):
        if flips(board, r, c, colour):
            mask[r * n + c] = True
    mask[n * n] = True
    return mask
''',
        "occupied squares are tried too": '''
def legal_moves(board, colour):
    n = board.shape[0]
    mask = np.zeros(n * n + 1, dtype=bool)
    for r in range(n):
        for c in range(n):
            if flips(board, r, c, colour):
                mask[r * n + c] = True
    if not mask[:-1].any():
        other = np.zeros(n * n + 1, dtype=bool)
        for r, c in zip(*np.nonzero(board == 0)):
            other[r * n + c] = bool(flips(board, r, c, 3 - colour))
        mask[n * n] = other.any()
    return mask
''',
        "a float mask of 0 and 1": '''
def legal_moves(board, colour):
    n = board.shape[0]
    mask = np.zeros(n * n + 1)
    for r, c in zip(*np.nonzero(board == 0)):
        if flips(board, r, c, colour):
            mask[r * n + c] = 1
    if not mask.any():
        mask[n * n] = any(flips(board, r, c, 3 - colour) for r, c in zip(*np.nonzero(board == 0)))
    return mask
''',
    },
    "state_value": {
        "the network's value as it is (no change of view)": '''
def state_value(game, state, player, predict):
    if game.is_terminal(state):
        return float(game.returns(state)[player])
    return float(predict(state)[1])
''',
        "asks the network about a finished game": '''
def state_value(game, state, player, predict):
    value = float(predict(state)[1])
    return value if game.to_move(state) == player else -value
''',
        "a draw counted as a loss": '''
def state_value(game, state, player, predict):
    if game.is_terminal(state):
        return 1.0 if game.returns(state)[player] > 0 else -1.0
    value = float(predict(state)[1])
    return value if game.to_move(state) == player else -value
''',
        "the view of the other player": '''
def state_value(game, state, player, predict):
    if game.is_terminal(state):
        return float(game.returns(state)[1 - player])
    value = float(predict(state)[1])
    return -value if game.to_move(state) == player else value
''',
    },
    "value_move": {
        "the next position's value as it is (the opponent's view)": '''
def value_move(game, state, predict):
    legal = np.flatnonzero(game.legal_mask(state))
    values = [float(predict(game.next_state(state, int(a)))[1]) for a in legal]
    return int(legal[int(np.argmax(values))])
''',
        "the move with the lowest value": '''
def value_move(game, state, predict):
    me = game.to_move(state)
    legal = np.flatnonzero(game.legal_mask(state))
    values = [state_value(game, game.next_state(state, int(a)), me, predict) for a in legal]
    return int(legal[int(np.argmin(values))])
''',
        "ties go to the highest index": '''
def value_move(game, state, predict):
    me = game.to_move(state)
    best, best_value = None, -np.inf
    for a in np.flatnonzero(game.legal_mask(state)):
        value = state_value(game, game.next_state(state, int(a)), me, predict)
        if value >= best_value:
            best, best_value = int(a), value
    return best
''',
        "never considers the pass": '''
def value_move(game, state, predict):
    me = game.to_move(state)
    legal = np.flatnonzero(game.legal_mask(state)[:-1])
    values = [state_value(game, game.next_state(state, int(a)), me, predict) for a in legal]
    return int(legal[int(np.argmax(values))])
''',
    },
    "rollout_value": {
        "one move more than depth": '''
def rollout_value(game, state, player, predict, depth, rng):
    for _ in range(depth + 1):
        if game.is_terminal(state):
            break
        prior = legal_prior(game, state, predict)
        state = game.next_state(state, int(rng.choice(len(prior), p=prior)))
    return state_value(game, state, player, predict)
''',
        "plays the most probable move instead of sampling": '''
def rollout_value(game, state, player, predict, depth, rng):
    for _ in range(depth):
        if game.is_terminal(state):
            break
        state = game.next_state(state, int(np.argmax(legal_prior(game, state, predict))))
    return state_value(game, state, player, predict)
''',
        "a draw counted as a loss at the end": '''
def rollout_value(game, state, player, predict, depth, rng):
    for _ in range(depth):
        if game.is_terminal(state):
            return 1.0 if game.returns(state)[player] > 0 else -1.0
        prior = legal_prior(game, state, predict)
        state = game.next_state(state, int(rng.choice(len(prior), p=prior)))
    if game.is_terminal(state):
        return 1.0 if game.returns(state)[player] > 0 else -1.0
    value = float(predict(state)[1])
    return value if game.to_move(state) == player else -value
''',
        "the value for whoever is to move where it stops": '''
def rollout_value(game, state, player, predict, depth, rng):
    for _ in range(depth):
        if game.is_terminal(state):
            break
        prior = legal_prior(game, state, predict)
        state = game.next_state(state, int(rng.choice(len(prior), p=prior)))
    return state_value(game, state, game.to_move(state), predict)
''',
        "samples from the raw prior (illegal moves too)": '''
def rollout_value(game, state, player, predict, depth, rng):
    for _ in range(depth):
        if game.is_terminal(state):
            break
        prior = np.asarray(predict(state)[0], dtype=np.float64)
        state = game.next_state(state, int(rng.choice(len(prior), p=prior / prior.sum())))
    return state_value(game, state, player, predict)
''',
    },
    "monte_carlo_move": {
        "rollouts from the current position (the tutorial's fault)": '''
def monte_carlo_move(game, state, predict, rng, top_k=3, rollouts=10, depth=5):
    me = game.to_move(state)
    prior = legal_prior(game, state, predict)
    candidates = sorted(np.flatnonzero(game.legal_mask(state)).tolist(), key=lambda a: (-prior[a], a))[:top_k]
    means = [np.mean([rollout_value(game, state, me, predict, depth, rng) for _ in range(rollouts)])
             for action in candidates]
    return int(candidates[int(np.argmax(means))])
''',
        "the view of the player to move after the candidate": '''
def monte_carlo_move(game, state, predict, rng, top_k=3, rollouts=10, depth=5):
    prior = legal_prior(game, state, predict)
    candidates = sorted(np.flatnonzero(game.legal_mask(state)).tolist(), key=lambda a: (-prior[a], a))[:top_k]
    means = []
    for action in candidates:
        after = game.next_state(state, action)
        means.append(np.mean([rollout_value(game, after, game.to_move(after), predict, depth, rng)
                              for _ in range(rollouts)]))
    return int(candidates[int(np.argmax(means))])
''',
        "the first legal moves as candidates, not the most probable": '''
def monte_carlo_move(game, state, predict, rng, top_k=3, rollouts=10, depth=5):
    me = game.to_move(state)
    candidates = np.flatnonzero(game.legal_mask(state)).tolist()[:top_k]
    means = []
    for action in candidates:
        after = game.next_state(state, action)
        means.append(np.mean([rollout_value(game, after, me, predict, depth, rng) for _ in range(rollouts)]))
    return int(candidates[int(np.argmax(means))])
''',
        "a generator of its own for the rollouts": '''
def monte_carlo_move(game, state, predict, rng, top_k=3, rollouts=10, depth=5):
    me = game.to_move(state)
    prior = legal_prior(game, state, predict)
    candidates = sorted(np.flatnonzero(game.legal_mask(state)).tolist(), key=lambda a: (-prior[a], a))[:top_k]
    own = np.random.default_rng(0)
    means = []
    for action in candidates:
        after = game.next_state(state, action)
        means.append(np.mean([rollout_value(game, after, me, predict, depth, own) for _ in range(rollouts)]))
    return int(candidates[int(np.argmax(means))])
''',
        "ties go to the later candidate": '''
def monte_carlo_move(game, state, predict, rng, top_k=3, rollouts=10, depth=5):
    me = game.to_move(state)
    prior = legal_prior(game, state, predict)
    candidates = sorted(np.flatnonzero(game.legal_mask(state)).tolist(), key=lambda a: (-prior[a], a))[:top_k]
    best, best_mean = None, -np.inf
    for action in candidates:
        after = game.next_state(state, action)
        mean = np.mean([rollout_value(game, after, me, predict, depth, rng) for _ in range(rollouts)])
        if mean >= best_mean:
            best, best_mean = action, mean
    return int(best)
''',
    },
    "simulate": {
        "N(s, a) under the square root": '''
def simulate(root, game, predict, c_puct):
    node, path = root, []
    while node.expanded and not node.terminal:
        scores = node.Q() + c_puct * node.P * np.sqrt(1 + node.N) / (1 + node.N)
        action = int(np.argmax(np.where(node.legal, scores, -np.inf)))
        path.append((node, action))
        if action not in node.children:
            node.children[action] = Node(game, game.next_state(node.state, action))
        node = node.children[action]
    if node.terminal:
        returns = game.returns(node.state)
        values = {0: float(returns[0]), 1: float(returns[1])}
    else:
        node.P = legal_prior(game, node.state, predict)
        value = float(predict(node.state)[1])
        values = {node.player: value, 1 - node.player: -value}
    for parent, action in path:
        parent.N[action] += 1
        parent.W[action] += values[parent.player]
''',
        "backs up the leaf's value without changing its sign": '''
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
''',
        "UCB without the prior": '''
def simulate(root, game, predict, c_puct):
    node, path = root, []
    while node.expanded and not node.terminal:
        scores = node.Q() + c_puct * math.sqrt(1 + node.N.sum()) / (1 + node.N)
        action = int(np.argmax(np.where(node.legal, scores, -np.inf)))
        path.append((node, action))
        if action not in node.children:
            node.children[action] = Node(game, game.next_state(node.state, action))
        node = node.children[action]
    if node.terminal:
        returns = game.returns(node.state)
        values = {0: float(returns[0]), 1: float(returns[1])}
    else:
        node.P = legal_prior(game, node.state, predict)
        value = float(predict(node.state)[1])
        values = {node.player: value, 1 - node.player: -value}
    for parent, action in path:
        parent.N[action] += 1
        parent.W[action] += values[parent.player]
''',
        "sqrt of the sum of N, without the 1": '''
def simulate(root, game, predict, c_puct):
    node, path = root, []
    while node.expanded and not node.terminal:
        scores = node.Q() + c_puct * node.P * math.sqrt(node.N.sum()) / (1 + node.N)
        action = int(np.argmax(np.where(node.legal, scores, -np.inf)))
        path.append((node, action))
        if action not in node.children:
            node.children[action] = Node(game, game.next_state(node.state, action))
        node = node.children[action]
    if node.terminal:
        returns = game.returns(node.state)
        values = {0: float(returns[0]), 1: float(returns[1])}
    else:
        node.P = legal_prior(game, node.state, predict)
        value = float(predict(node.state)[1])
        values = {node.player: value, 1 - node.player: -value}
    for parent, action in path:
        parent.N[action] += 1
        parent.W[action] += values[parent.player]
''',
        "asks the network about a finished game": '''
def simulate(root, game, predict, c_puct):
    node, path = root, []
    while node.expanded and not node.terminal:
        scores = node.Q() + c_puct * node.P * math.sqrt(1 + node.N.sum()) / (1 + node.N)
        action = int(np.argmax(np.where(node.legal, scores, -np.inf)))
        path.append((node, action))
        if action not in node.children:
            node.children[action] = Node(game, game.next_state(node.state, action))
        node = node.children[action]
    value = float(predict(node.state)[1])
    if not node.terminal:
        node.P = legal_prior(game, node.state, predict)
    for parent, action in path:
        parent.N[action] += 1
        parent.W[action] += value if parent.player == node.player else -value
''',
    },
    "mcts_move": {
        "the most visited action, illegal ones included": '''
def mcts_move(game, state, predict, simulations, c_puct=C_PUCT):
    root = Node(game, state)
    for _ in range(simulations):
        simulate(root, game, predict, c_puct)
    return int(np.argmax(root.N))
''',
        "a new root for every simulation": '''
def mcts_move(game, state, predict, simulations, c_puct=C_PUCT):
    root = Node(game, state)
    for _ in range(simulations):
        root = Node(game, state)
        simulate(root, game, predict, c_puct)
    return int(np.argmax(np.where(root.legal, root.N, -1)))
''',
        "one simulation too few": '''
def mcts_move(game, state, predict, simulations, c_puct=C_PUCT):
    root = Node(game, state)
    for _ in range(simulations - 1):
        simulate(root, game, predict, c_puct)
    return int(np.argmax(np.where(root.legal, root.N, -1)))
''',
        "ignores the c_puct given": '''
def mcts_move(game, state, predict, simulations, c_puct=C_PUCT):
    root = Node(game, state)
    for _ in range(simulations):
        simulate(root, game, predict, C_PUCT)
    return int(np.argmax(np.where(root.legal, root.N, -1)))
''',
    },
    "win_rate_interval": {
        "draws counted as losses": '''
def win_rate_interval(wins, draws, losses):
    z, n = 1.96, wins + draws + losses
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)
''',
        "the textbook interval p +- z sqrt(p (1 - p) / n)": '''
def win_rate_interval(wins, draws, losses):
    n = wins + draws + losses
    p = (wins + 0.5 * draws) / n
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    return p, max(0.0, p - half), min(1.0, p + half)
''',
        "draws left out of the games": '''
def win_rate_interval(wins, draws, losses):
    z, n = 1.96, wins + losses
    p = wins / n if n else 0.5
    n = max(n, 1)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)
''',
        "a 90% interval (z = 1.645)": '''
def win_rate_interval(wins, draws, losses):
    z, n = 1.645, wins + draws + losses
    p = (wins + 0.5 * draws) / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)
''',
    },
    # ------------------------------------------------------------------ tak6_alphazero
    "stack_moves": {
        "ignores the carry limit": '''
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
''',
        "the capstone flattens while carrying others": '''
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
        reach = free + 1 if capstone and free < len(line) and board[line[free]][-1] >> 1 == WALL else free
        for count in range(1, min(len(stack), n) + 1):
            moves += [(direction, drops) for drops in drop_sequences(count, reach)]
    return moves
''',
        "no capstone flattening": '''
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
        for count in range(1, min(len(stack), n) + 1):
            moves += [(direction, drops) for drops in drop_sequences(count, free)]
    return moves
''',
        "walls block but capstones do not": '''
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
        while free < len(line) and (not board[line[free]] or board[line[free]][-1] >> 1 != WALL):
            free += 1
        flattens = capstone and free < len(line) and board[line[free]][-1] >> 1 == WALL
        for count in range(1, min(len(stack), n) + 1):
            moves += [(direction, drops) for drops in drop_sequences(count, free)]
            if flattens:
                moves += [(direction, drops + (1,)) for drops in drop_sequences(count - 1, free) if len(drops) == free]
    return moves
''',
        "every stone of the stack must move": '''
def stack_moves(board, square):
    n = math.isqrt(len(board))
    stack = board[square]
    if not stack or len(stack) > n:
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
        count = len(stack)
        moves += [(direction, drops) for drops in drop_sequences(count, free)]
        if flattens:
            moves += [(direction, drops + (1,)) for drops in drop_sequences(count - 1, free) if len(drops) == free]
    return moves
''',
    },
    "has_road": {
        "walls count as road squares": '''
def has_road(board, colour):
    n = math.isqrt(len(board))
    mine = {square for square, stack in enumerate(board) if stack and stack[-1] & 1 == colour}
    for starts, ends in (({r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}),
                         (set(range(n)), set(range(n * (n - 1), n * n)))):
        frontier = list(mine & starts)
        seen = set(frontier)
        while frontier:
            square = frontier.pop()
            if square in ends:
                return True
            rank, file = divmod(square, n)
            for dr, df in STEPS:
                r, f = rank + dr, file + df
                if 0 <= r < n and 0 <= f < n and r * n + f in mine and r * n + f not in seen:
                    seen.add(r * n + f)
                    frontier.append(r * n + f)
    return False
''',
        "diagonal steps join": '''
def has_road(board, colour):
    n = math.isqrt(len(board))
    mine = {square for square, stack in enumerate(board) if stack and stack[-1] in (colour, 2 * CAP + colour)}
    for starts, ends in (({r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}),
                         (set(range(n)), set(range(n * (n - 1), n * n)))):
        frontier = list(mine & starts)
        seen = set(frontier)
        while frontier:
            square = frontier.pop()
            if square in ends:
                return True
            rank, file = divmod(square, n)
            for dr in (-1, 0, 1):
                for df in (-1, 0, 1):
                    r, f = rank + dr, file + df
                    if 0 <= r < n and 0 <= f < n and r * n + f in mine and r * n + f not in seen:
                        seen.add(r * n + f)
                        frontier.append(r * n + f)
    return False
''',
        "left to right only": '''
def has_road(board, colour):
    n = math.isqrt(len(board))
    mine = {square for square, stack in enumerate(board) if stack and stack[-1] in (colour, 2 * CAP + colour)}
    frontier = [r * n for r in range(n) if r * n in mine]
    seen = set(frontier)
    while frontier:
        square = frontier.pop()
        if square % n == n - 1:
            return True
        rank, file = divmod(square, n)
        for dr, df in STEPS:
            r, f = rank + dr, file + df
            if 0 <= r < n and 0 <= f < n and r * n + f in mine and r * n + f not in seen:
                seen.add(r * n + f)
                frontier.append(r * n + f)
    return False
''',
        "capstones left out": '''
def has_road(board, colour):
    n = math.isqrt(len(board))
    mine = {square for square, stack in enumerate(board) if stack and stack[-1] == colour}
    for starts, ends in (({r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}),
                         (set(range(n)), set(range(n * (n - 1), n * n)))):
        frontier = list(mine & starts)
        seen = set(frontier)
        while frontier:
            square = frontier.pop()
            if square in ends:
                return True
            rank, file = divmod(square, n)
            for dr, df in STEPS:
                r, f = rank + dr, file + df
                if 0 <= r < n and 0 <= f < n and r * n + f in mine and r * n + f not in seen:
                    seen.add(r * n + f)
                    frontier.append(r * n + f)
    return False
''',
        "any stone of the stack counts": '''
def has_road(board, colour):
    n = math.isqrt(len(board))
    mine = {square for square, stack in enumerate(board) if any(code in (colour, 2 * CAP + colour) for code in stack)}
    for starts, ends in (({r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}),
                         (set(range(n)), set(range(n * (n - 1), n * n)))):
        frontier = list(mine & starts)
        seen = set(frontier)
        while frontier:
            square = frontier.pop()
            if square in ends:
                return True
            rank, file = divmod(square, n)
            for dr, df in STEPS:
                r, f = rank + dr, file + df
                if 0 <= r < n and 0 <= f < n and r * n + f in mine and r * n + f not in seen:
                    seen.add(r * n + f)
                    frontier.append(r * n + f)
    return False
''',
        "any two edges": '''
def has_road(board, colour):
    n = math.isqrt(len(board))
    mine = {square for square, stack in enumerate(board) if stack and stack[-1] in (colour, 2 * CAP + colour)}
    edges = [{r * n for r in range(n)}, {r * n + n - 1 for r in range(n)}, set(range(n)), set(range(n * (n - 1), n * n))]
    for start in range(4):
        frontier = list(mine & edges[start])
        seen = set(frontier)
        while frontier:
            square = frontier.pop()
            if any(square in edges[other] for other in range(4) if other != start):
                return True
            rank, file = divmod(square, n)
            for dr, df in STEPS:
                r, f = rank + dr, file + df
                if 0 <= r < n and 0 <= f < n and r * n + f in mine and r * n + f not in seen:
                    seen.add(r * n + f)
                    frontier.append(r * n + f)
    return False
''',
    },
    "exploration_rate": {
        "the report's formula (c_init inside the log)": '''
def exploration_rate(visits, c_init, c_base):
    return math.log((1 + visits + c_init) / c_base)
''',
        "a constant rate": '''
def exploration_rate(visits, c_init, c_base):
    return c_init
''',
        "c_init left out": '''
def exploration_rate(visits, c_init, c_base):
    return math.log((1 + visits + c_base) / c_base)
''',
        "log base 10": '''
def exploration_rate(visits, c_init, c_base):
    return math.log10((1 + visits + c_base) / c_base) + c_init
''',
    },
    "puct_select": {
        "C(s) constant (c_init)": '''
def puct_select(counts, totals, prior, visits, c_init, c_base, unvisited_value=0.0):
    counts = np.asarray(counts, dtype=np.float64)
    q = np.where(counts > 0, np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1), unvisited_value)
    u = c_init * np.asarray(prior, dtype=np.float64) * math.sqrt(visits) / (1 + counts)
    return int(np.argmax(q + u))
''',
        "unvisited moves get Q = 0": '''
def puct_select(counts, totals, prior, visits, c_init, c_base, unvisited_value=0.0):
    counts = np.asarray(counts, dtype=np.float64)
    q = np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1)
    u = exploration_rate(visits, c_init, c_base) * np.asarray(prior, dtype=np.float64) * math.sqrt(visits) / (1 + counts)
    return int(np.argmax(q + u))
''',
        "no square root": '''
def puct_select(counts, totals, prior, visits, c_init, c_base, unvisited_value=0.0):
    counts = np.asarray(counts, dtype=np.float64)
    q = np.where(counts > 0, np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1), unvisited_value)
    u = exploration_rate(visits, c_init, c_base) * np.asarray(prior, dtype=np.float64) * visits / (1 + counts)
    return int(np.argmax(q + u))
''',
        "ties to the highest index": '''
def puct_select(counts, totals, prior, visits, c_init, c_base, unvisited_value=0.0):
    counts = np.asarray(counts, dtype=np.float64)
    q = np.where(counts > 0, np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1), unvisited_value)
    u = exploration_rate(visits, c_init, c_base) * np.asarray(prior, dtype=np.float64) * math.sqrt(visits) / (1 + counts)
    scores = q + u
    return int(len(scores) - 1 - np.argmax(scores[::-1]))
''',
        "the prior left out (UCT's bonus)": '''
def puct_select(counts, totals, prior, visits, c_init, c_base, unvisited_value=0.0):
    counts = np.asarray(counts, dtype=np.float64)
    q = np.where(counts > 0, np.asarray(totals, dtype=np.float64) / np.maximum(counts, 1), unvisited_value)
    u = exploration_rate(visits, c_init, c_base) * math.sqrt(visits) / (1 + counts)
    return int(np.argmax(q + u))
''',
    },
    "add_dirichlet_noise": {
        "noise over every action, illegal ones too": '''
def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    legal = np.asarray(legal, dtype=bool)
    kept = np.where(legal, np.asarray(prior, dtype=np.float64), 0.0)
    noise = rng.dirichlet(np.full(len(kept), alpha))
    return (1 - fraction) * kept / kept.sum() + fraction * noise
''',
        "the prior not renormalised": '''
def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    legal = np.asarray(legal, dtype=bool)
    kept = np.asarray(prior, dtype=np.float64)[legal]
    noise = rng.dirichlet(np.full(len(kept), alpha))
    out = np.zeros(len(legal))
    out[legal] = (1 - fraction) * kept + fraction * noise
    return out
''',
        "the weights swapped": '''
def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    legal = np.asarray(legal, dtype=bool)
    kept = np.asarray(prior, dtype=np.float64)[legal]
    noise = rng.dirichlet(np.full(len(kept), alpha))
    out = np.zeros(len(legal))
    out[legal] = fraction * kept / kept.sum() + (1 - fraction) * noise
    return out
''',
        "a generator of its own": '''
def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    legal = np.asarray(legal, dtype=bool)
    kept = np.asarray(prior, dtype=np.float64)[legal]
    noise = np.random.default_rng().dirichlet(np.full(len(kept), alpha))
    out = np.zeros(len(legal))
    out[legal] = (1 - fraction) * kept / kept.sum() + fraction * noise
    return out
''',
        "renormalised after mixing": '''
def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    legal = np.asarray(legal, dtype=bool)
    kept = np.asarray(prior, dtype=np.float64)[legal]
    noise = rng.dirichlet(np.full(len(kept), alpha))
    out = np.zeros(len(legal))
    out[legal] = (1 - fraction) * kept + fraction * noise
    return out / out.sum()
''',
        "mixes in place": '''
def add_dirichlet_noise(prior, legal, alpha, fraction, rng):
    legal = np.asarray(legal, dtype=bool)
    noise = rng.dirichlet(np.full(int(legal.sum()), alpha))
    prior[~legal] = 0.0
    prior /= prior.sum()
    prior[legal] = (1 - fraction) * prior[legal] + fraction * noise
    return prior
''',
    },
    "alphazero_loss": {
        "cross-entropy over illegal moves too": '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.mean((z - v) ** 2)
    policy_loss = -jnp.mean(jnp.sum(pi * jax.nn.log_softmax(logits, axis=-1), axis=-1))
    l2 = c * sum(jnp.sum(leaf ** 2) for leaf in jax.tree_util.tree_leaves(params))
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
''',
        "L2 on the kernels only": '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.mean((z - v) ** 2)
    log_p = jax.nn.log_softmax(jnp.where(legal, logits, -1e9), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(jnp.where(legal, pi * log_p, 0.0), axis=-1))
    l2 = c * sum(jnp.sum(layer["kernel"] ** 2) for layer in params.values())
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
''',
        "L2 subtracted": '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.mean((z - v) ** 2)
    log_p = jax.nn.log_softmax(jnp.where(legal, logits, -1e9), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(jnp.where(legal, pi * log_p, 0.0), axis=-1))
    l2 = -c * sum(jnp.sum(leaf ** 2) for leaf in jax.tree_util.tree_leaves(params))
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
''',
        "-inf on the illegal moves": '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.mean((z - v) ** 2)
    log_p = jax.nn.log_softmax(jnp.where(legal, logits, -jnp.inf), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(pi * log_p, axis=-1))
    l2 = c * sum(jnp.sum(leaf ** 2) for leaf in jax.tree_util.tree_leaves(params))
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
''',
        "the value loss summed over the batch": '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.sum((z - v) ** 2)
    log_p = jax.nn.log_softmax(jnp.where(legal, logits, -1e9), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(jnp.where(legal, pi * log_p, 0.0), axis=-1))
    l2 = c * sum(jnp.sum(leaf ** 2) for leaf in jax.tree_util.tree_leaves(params))
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
''',
        "the L2 term without c": '''
def alphazero_loss(params, apply_fn, x, pi, z, legal, c):
    logits, v = apply_fn(params, x)
    value_loss = jnp.mean((z - v) ** 2)
    log_p = jax.nn.log_softmax(jnp.where(legal, logits, -1e9), axis=-1)
    policy_loss = -jnp.mean(jnp.sum(jnp.where(legal, pi * log_p, 0.0), axis=-1))
    l2 = sum(jnp.sum(leaf ** 2) for leaf in jax.tree_util.tree_leaves(params))
    return value_loss + policy_loss + l2, jnp.stack([value_loss, policy_loss, l2])
''',
    },
    "tak6_alphazero.win_rate_interval": {
        "the normal approximation": '''
def win_rate_interval(wins, draws, losses, z=1.96):
    n = wins + draws + losses
    if n == 0:
        return 0.0, 0.0, 1.0
    s = (wins + 0.5 * draws) / n
    half = z * math.sqrt(s * (1 - s) / n)
    return s, max(0.0, s - half), min(1.0, s + half)
''',
        "draws counted as losses": '''
def win_rate_interval(wins, draws, losses, z=1.96):
    n = wins + draws + losses
    if n == 0:
        return 0.0, 0.0, 1.0
    s = wins / n
    denom = 1 + z * z / n
    centre = (s + z * z / (2 * n)) / denom
    half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / denom
    return s, max(0.0, centre - half), min(1.0, centre + half)
''',
        "draws left out of the games": '''
def win_rate_interval(wins, draws, losses, z=1.96):
    n = wins + losses
    if n == 0:
        return 0.0, 0.0, 1.0
    s = wins / n
    denom = 1 + z * z / n
    centre = (s + z * z / (2 * n)) / denom
    half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / denom
    return s, max(0.0, centre - half), min(1.0, centre + half)
''',
        "z fixed at 1.96": '''
def win_rate_interval(wins, draws, losses, z=1.96):
    n = wins + draws + losses
    if n == 0:
        return 0.0, 0.0, 1.0
    s = (wins + 0.5 * draws) / n
    denom = 1 + 1.96 ** 2 / n
    centre = (s + 1.96 ** 2 / (2 * n)) / denom
    half = 1.96 * math.sqrt(s * (1 - s) / n + 1.96 ** 2 / (4 * n * n)) / denom
    return s, max(0.0, centre - half), min(1.0, centre + half)
''',
        "the half-width not divided by 1 + z^2 / n": '''
def win_rate_interval(wins, draws, losses, z=1.96):
    n = wins + draws + losses
    if n == 0:
        return 0.0, 0.0, 1.0
    s = (wins + 0.5 * draws) / n
    denom = 1 + z * z / n
    centre = (s + z * z / (2 * n)) / denom
    half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n))
    return s, max(0.0, centre - half), min(1.0, centre + half)
''',
    },
}

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
