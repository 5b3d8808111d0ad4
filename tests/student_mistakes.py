"""Realistic wrong answers, at least three per TODO of every notebook (issue 12).

Each is source code that redefines one graded function the way a student really gets it wrong:
a wrong term in a formula, a forgotten mask, mutation of an input, tie-breaking, overflow, sign
and viewpoint errors, missed rule cases, seating and randomness protocols.
``tests/test_visible_tests.py`` runs every notebook's visible tests with each of them in turn.
"""
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
}

NOTEBOOK_OF = {name: notebook for notebook, names in {
    "ttt1_mcts": ("get_next_state", "get_reward", "select_action", "get_action_prob", "expand_node", "search_iter"),
    "ttt2_selfplay": ("train_step", "match_average"),
    "azul3_play": ("decode_move", "legal_takes", "masked_policy", "arena"),
}.items() for name in names}
