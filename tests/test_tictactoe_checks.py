"""The hidden-test helpers accept the reference and reject wrong answers with a useful message.

Wrong answers are *mutants*: the reference solution cell from the source notebook with one
realistic mistake spliced in, executed in a copy of the reference namespace.
"""
import pytest

from autograder import reference
from autograder.assignments.ttt1_mcts import checks as ttt_checks
from autograder.assignments.ttt2_selfplay import checks as ttt_train_checks
from autograder.reference import SOURCE_DIR, reference_cells

PART1 = SOURCE_DIR / "ttt1_mcts" / "ttt1_mcts.ipynb"
PART2 = SOURCE_DIR / "ttt2_selfplay" / "ttt2_selfplay.ipynb"


def _solution_cell(path, name: str) -> str:
    matches = [cell for cell in reference_cells(path) if f"def {name}(" in cell]
    assert len(matches) == 1, f"expected one cell defining {name}"
    return matches[0]


def mutant(namespace: dict, path, name: str, old: str, new: str, extra: dict | None = None):
    """The reference `name` with `old` replaced by `new` (which must occur), in a namespace copy."""
    source = _solution_cell(path, name)
    assert old in source, f"mutation target {old!r} not in the solution of {name}"
    scope = {**namespace, **(extra or {})}
    exec(compile(source.replace(old, new), f"<mutant {name}>", "exec"), scope)
    return scope[name]


def part1_mutant(name, old, new, extra=None):
    return mutant(reference.ttt1(), PART1, name, old, new, extra)


def part2_mutant(name, old, new, extra=None):
    return mutant(reference.ttt2(), PART2, name, old, new, extra)


@pytest.mark.parametrize("name", list(ttt_checks.PROBES))
def test_part1_reference_passes(name):
    getattr(ttt_checks, f"check_{name}")(reference.ttt1()[name])


@pytest.mark.parametrize("name, old, new, message", [
    ("get_next_state", "next_board = board.copy()", "next_board = board", "First failing case"),
    ("get_next_state", "next_board[action] = 1", "next_board[action] = -1", "action:"),
    ("get_next_state", "raise ValueError", "raise IndexError", "'raises': 'ValueError'"),
    ("get_reward", "(0, 4, 8), (2, 4, 6)", "(0, 4, 8),", "expected: {'reward': -1.0, 'done': True}"),
    ("get_reward", "return 0, 0 not in cells", "return 0, False", "'done': True"),
    ("get_reward", "return 1, True", "return -1, True", "'reward': 1.0"),
    ("select_action", "legal = [a for a, ok in enumerate(tree.valid[node].tolist()) if ok]", "legal = range(9)",
     "expected move"),
    ("select_action", "c = c_init if c_base is None else", "c = c_init if True else", "c_base = "),
    ("select_action", "return max(legal,", "return max(legal[::-1],", "lowest index among ties"),
    ("get_action_prob", "return tree.valid[node] / tree.valid[node].sum()", "return np.full(9, 1 / 9)",
     "temperature = inf"),
    ("get_action_prob", "(visits / visits.max())", "(visits)", "temperature = 0.01"),
    ("expand_node", "tree.N[node] = 1", "tree.N[node] = 0", "'N': 1.0"),
    ("expand_node", "masked / total if total > 0 else valid / valid.sum()", "masked", "P_sa"),
    ("search_iter", "value = -value  #", "value = value  #", "search_iter builds a different tree"),
    ("search_iter", "tree.N[node] += 1", "pass", "N: expected"),
])
def test_part1_wrong_answers_fail_with_a_clear_message(name, old, new, message):
    wrong = part1_mutant(name, old, new)
    with pytest.raises(AssertionError, match="(?s)" + __import__("re").escape(message)):
        getattr(ttt_checks, f"check_{name}")(wrong)


def test_in_place_mutation_of_the_prior_is_caught():
    wrong = part1_mutant("expand_node", "masked = np.where(valid, prior, 0.0)",
                         "prior[~valid] = 0.0\n    masked = prior")
    with pytest.raises(AssertionError, match="prior_unchanged"):
        ttt_checks.check_expand_node(wrong)


def test_search_iter_blames_a_wrong_prerequisite_instead_of_cascading():
    wrong_select = part1_mutant("select_action", "root_n = math.sqrt(n)", "root_n = math.sqrt(n - 1)")
    search = part1_mutant("search_iter", "path = []", "path = []", extra={"select_action": wrong_select})
    with pytest.raises(AssertionError, match="search_iter was not checked: select_action, which it calls"):
        ttt_checks.check_search_iter(search)


def test_a_correct_search_iter_keeps_its_points_despite_a_subtle_prerequisite_slip():
    """select_action ignoring c_base differs on a few searches only: search_iter is judged on the others."""
    subtle = part1_mutant("select_action", "c = c_init if c_base is None else math.log((1 + n + c_base) / c_base) + c_init",
                          "c = c_init")
    with pytest.raises(AssertionError):
        ttt_checks.check_select_action(subtle)
    ttt_checks.check_search_iter(part1_mutant("search_iter", "path = []", "path = []", extra={"select_action": subtle}))
    wrong_search = part1_mutant("search_iter", "value = -value", "value = value", extra={"select_action": subtle})
    with pytest.raises(AssertionError, match="search_iter builds a different tree"):
        ttt_checks.check_search_iter(wrong_search)


def test_part2_reference_passes():
    ttt_train_checks.check_train_step(reference.ttt2()["train_step"])
    ttt_train_checks.check_match_average(reference.ttt2()["match_average"])


@pytest.mark.slow  # trains each mistake: the whole suite only (tests/conftest.py)
@pytest.mark.parametrize("old, new, message", [
    ("return policy_loss + value_loss", "return policy_loss", "which is only the policy term: the value term"),
    ("return policy_loss + value_loss", "return value_loss", "which is only the value term"),
    ("value_loss = jnp.mean((target_values - values) ** 2)", "value_loss = jnp.sum((target_values - values) ** 2)",
     "the value term is summed over the batch instead of averaged"),
    ("loss, grads = jax.value_and_grad(loss_fn)(state.params)\n    return state.apply_gradients(grads=grads), loss",
     "loss, grads = jax.value_and_grad(loss_fn)(state.params)\n    new = state.apply_gradients(grads=grads)\n"
     "    return new, loss_fn(new.params)", "losses over"),
    ("return state.apply_gradients(grads=grads), loss",
     "return state.apply_gradients(grads=grads).apply_gradients(grads=grads), loss", "step counter"),
])
def test_wrong_train_steps_fail(old, new, message):
    with pytest.raises(AssertionError, match=message):
        ttt_train_checks.check_train_step(part2_mutant("train_step", old, new))


@pytest.mark.parametrize("old, new", [
    ("results += [-play_match(agent2, agent1)", "results += [play_match(agent2, agent1)"),
    ("results += [-play_match(agent2, agent1)", "results += [-play_match(agent1, agent2)"),
    ("for outcome in (1, -1, 0)", "for outcome in (1, 0, -1)"),
])
def test_wrong_match_averages_fail(old, new):
    with pytest.raises(AssertionError, match="each agent opens half of the games"):
        ttt_train_checks.check_match_average(part2_mutant("match_average", old, new))
