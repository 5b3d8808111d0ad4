"""Every game of the layer keeps the protocol's contract (``azcourse.core.protocol``), checked over
seeded random playouts: shapes and dtypes, purity, terminal/returns consistency, move text, for Azul
the chance step and a player moving twice, and for Othello the explicit pass."""
import numpy as np
import pytest

from azcourse.hex.game import Hex
from azcourse.core.protocol import Game, IllegalAction, check_action
from azcourse.othello.game import Othello
from azcourse.tak.game import Tak
from azcourse.tictactoe.game import TicTacToe

GAMES = {"tictactoe": TicTacToe, "hex3": lambda: Hex(3), "hex5": lambda: Hex(5), "hex8": lambda: Hex(8),
         "othello4": lambda: Othello(4), "othello6": lambda: Othello(6), "othello8": lambda: Othello(8),
         "tak3": lambda: Tak(3), "tak4": lambda: Tak(4, komi=0.5), "tak6": lambda: Tak(6)}


def copy_state(state):
    return state.copy() if isinstance(state, np.ndarray) else state


def same(game, a, b):
    return game.state_key(a) == game.state_key(b)


def playout(game, rng, check_every_step=True):
    """A random game; checks the contract at every state and returns the states seen."""
    state = game.initial_state(rng)
    states = [state]
    for _ in range(10_000):
        terminal, chance = game.is_terminal(state), game.is_chance(state)
        mask = game.legal_mask(state)
        assert mask.shape == (game.action_space_size,) and mask.dtype == bool
        returns = game.returns(state)
        assert returns.shape == (game.num_players,) and returns.dtype == np.float64
        if terminal:
            assert not mask.any() and not chance
            if game.num_players == 2:
                assert returns.sum() == 0 and set(returns) <= {-1.0, 0.0, 1.0}
            return states
        assert not returns.any()
        if chance:
            assert not mask.any()
            state = game.resolve_chance(state, rng)
            states.append(state)
            continue
        assert mask.any() and 0 <= game.to_move(state) < game.num_players
        if check_every_step:
            x = game.encode(state)
            assert x.shape == game.encoding_shape and x.dtype == np.float32
            assert isinstance(game.render(state), str)
        legal = np.flatnonzero(mask)
        action = int(rng.choice(legal))
        text = game.action_to_text(state, action)
        assert game.parse_action(state, text) == action
        before = copy_state(state)
        child = game.next_state(state, action)
        assert same(game, state, before) and not same(game, child, state)  # pure
        if isinstance(state, np.ndarray):
            assert np.array_equal(state, before)
        assert same(game, game.next_state(state, action), child)  # deterministic
        illegal = np.flatnonzero(~mask)
        if len(illegal):
            with pytest.raises(ValueError):
                game.next_state(state, int(illegal[0]))
            with pytest.raises(ValueError):
                check_action(game, state, int(illegal[0]))
        assert check_action(game, state, action) == action
        state = child
        states.append(state)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", GAMES)
def test_contract_over_random_playouts(name):
    game = GAMES[name]()
    assert isinstance(game, Game)
    rng = np.random.default_rng(0)
    for _ in range(30):
        states = playout(game, rng)
        assert not game.is_terminal(states[0]) and game.is_terminal(states[-1])
    with pytest.raises(ValueError):
        game.resolve_chance(game.initial_state(), rng)
    with pytest.raises(ValueError, match="outside"):
        check_action(game, game.initial_state(), game.action_space_size)


@pytest.mark.parametrize("name", GAMES)
def test_garbage_text_is_refused_with_a_reason(name):
    game = GAMES[name]()
    state = game.initial_state()
    for text in ("", "??", "0"):
        with pytest.raises(IllegalAction) as refused:
            game.parse_action(state, text)
        assert str(refused.value)


def test_tictactoe_outcomes_and_the_notebook_board_bridge():
    game = TicTacToe()
    state = game.initial_state()
    for square in (0, 3, 1, 4):
        state = game.next_state(state, square)
    assert not game.is_terminal(state) and game.to_move(state) == 0
    won = game.next_state(state, 2)
    assert game.is_terminal(won) and list(game.returns(won)) == [1.0, -1.0]
    encoded = game.encode(state)  # X to move: plane 0 = X's marks
    assert encoded[0].sum() == 2 and encoded[1].sum() == 2 and encoded[0, 0, 0] == 1
    mover_view = np.array([1, 1, 0, -1, -1, 0, 0, 0, 0])  # the notebooks' board, seen by X
    assert game.from_mover_board(mover_view) == state
    assert game.from_mover_board(-mover_view[[3, 4, 5, 0, 1, 2, 6, 7, 8]]).player == 0
    draw = game.initial_state()
    for square in (0, 1, 2, 4, 3, 5, 7, 6, 8):
        draw = game.next_state(draw, square)
    assert game.is_terminal(draw) and list(game.returns(draw)) == [0.0, 0.0]
    assert game.render(state).splitlines()[0] == " X | X | 3"


def test_othello_turns_alternate_and_the_pass_is_an_explicit_action():
    """A player without a placing move is not skipped: the pass is its only legal action, and after
    the pass, as after every action, the other player moves."""
    game = Othello(4)
    rng = np.random.default_rng(5)
    passes = 0
    for _ in range(100):
        states = playout(game, rng, check_every_step=False)
        for before, after in zip(states, states[1:]):
            assert game.to_move(after) == 1 - game.to_move(before)
            mask = game.legal_mask(before)
            if mask[game.pass_action]:
                passes += 1
                assert mask.sum() == 1 and np.array_equal(game.board(after), game.board(before))
    assert passes > 0


# -- Azul through the adapter -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def azul():
    from azcourse.azul.game import Azul

    return Azul()


def test_azul_contract_chance_steps_and_double_moves(azul):
    """Random Azul games: the refill is a chance state with no legal action; the same seat moves
    before and after a refill in some games (non-alternating turns); results are per seat."""
    import Azul_Simulator as az

    rng = np.random.default_rng(3)
    chance_seen = twice = 0
    for game_index in range(3):
        states = playout(azul, rng, check_every_step=game_index == 0)
        for before, at, after in zip(states, states[1:], states[2:]):
            if azul.is_chance(at):
                chance_seen += 1
                assert az.get_valid_mask(at)[az.NOOP]  # the engine's NOOP is the chance step
                if not azul.is_terminal(after) and azul.to_move(before) == azul.to_move(after):
                    twice += 1
        final = states[-1]
        reward, _ = az.get_reward(final)
        seat = az.current_seat(final)
        assert azul.returns(final)[seat] == reward
    assert chance_seen >= 6 and twice >= 1


def test_azul_chance_is_seeded_and_noop_is_not_a_players_move(azul):
    import Azul_Simulator as az

    rng = np.random.default_rng(1)
    state = azul.initial_state(rng)
    while not azul.is_chance(state):
        state = azul.next_state(state, int(rng.choice(np.flatnonzero(azul.legal_mask(state)))))
    a = azul.resolve_chance(state, np.random.default_rng(7))
    b = azul.resolve_chance(state, np.random.default_rng(7))
    assert np.array_equal(a, b) and not azul.is_chance(a)
    with pytest.raises(ValueError, match="chance step"):
        azul.next_state(state, az.NOOP)
    with pytest.raises(IllegalAction, match="chance step"):
        azul.parse_action(state, "NOOP")
    with pytest.raises(ValueError, match="not a chance state"):
        azul.resolve_chance(a, rng)
    with pytest.raises(IllegalAction, match="Unknown colour"):
        azul.parse_action(a, "5Q2")


def test_generic_mcts_searches_azul_through_the_adapter(azul):
    from azcourse.core.evaluators import NetworkEvaluator
    from azcourse.core.mcts import MCTS, MCTSConfig

    def flat(state):  # a stand-in network: uniform prior, value 0
        return np.ones(azul.action_space_size), 0.0

    rng = np.random.default_rng(2)
    state = azul.initial_state(rng)
    mcts = MCTS(azul, NetworkEvaluator(flat), MCTSConfig(simulations=60, tree_policy="puct"), 4)
    result = mcts.search(state)
    assert result.visits.sum() == 60 and result.player == azul.to_move(state)
    assert not (result.visits > 0)[~azul.legal_mask(state)].any()
