"""Run the solution notebooks as a student would, then measure the agents they trained.

    python benchmarks/bench_notebooks.py [--games 1000]

Prints, for each notebook, its top-to-bottom run time in student mode (budget: 5 minutes on
2 CPU cores). Then, in the same kernel as tic-tac-toe part 2 (so with the networks the notebook trained):
* the AlphaZero-loop network vs random (budget: >= 60% wins);
* the directly trained network vs random (budget: >= 90% wins);
* MCTS guided by the directly trained network vs random (budget: at most 1 loss in 1,000)
  and vs the perfect player (budget: >= 99% draws);
* search speed with the trained network: jitted Flax call, numpy, numpy + cache (budget: >= 10,000/s).
All matches alternate seats. Run `python -m autograder.build` first.
"""
import argparse
import json
import os
from datetime import datetime

import nbformat
from nbclient import NotebookClient

from autograder.reference import REPO_ROOT

MEASURE_PART2 = """
import json, time
def _rate(model, sims=2000, board=None):
    board = init_board() if board is None else board
    mcts_eval(board, model, 50)
    start = time.perf_counter(); mcts_eval(board, model, sims)
    return sims / (time.perf_counter() - start)
_net = NumpyPolicyValue(direct_state.params)
_perfect = PerfectPlayer(GameRules(get_next_state, get_reward, get_valid_mask, flip_board), seed=7)
_mcts = mcts_agent(CachedModel(_net), num_sims=100)
_flax = jax.jit(lambda params, board: PolicyValueNet().apply({"params": params}, board))
def _flax_model(board):
    logits, value = _flax(direct_state.params, jnp.asarray(board, jnp.float32))
    return np.asarray(jax.nn.softmax(logits)), float(value)
_results = {
    "alphazero_vs_random_%": match_average(learned_agent(az_state), random_agent, GAMES),
    "direct_vs_random_%": match_average(learned_agent(direct_state), random_agent, GAMES),
    "learned_mcts_vs_random_%": match_average(_mcts, random_agent, GAMES),
    "learned_mcts_vs_perfect_%": match_average(_mcts, _perfect, GAMES),
    "sims_per_s_flax_jit": _rate(_flax_model, 500),
    "sims_per_s_numpy": _rate(_net),
    "sims_per_s_numpy_cached": _rate(CachedModel(_net)),
}
print("BENCH" + json.dumps(_results))
"""


def cell_seconds(cell) -> float:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = lambda stamp: datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (parse(end) - parse(start)).total_seconds()


def run(path, extra_source: str | None = None):
    """Execute a notebook (student mode), optionally with one extra cell at the end.

    Returns (seconds spent in the notebook's own cells, stdout of the extra cell).
    """
    nb = nbformat.read(path, as_version=4)
    own = len(nb.cells)
    if extra_source:
        nb.cells.append(nbformat.v4.new_code_cell(extra_source))
    os.environ.pop("NBGRADER_EXECUTION", None)
    NotebookClient(nb, timeout=1800, kernel_name="python3", record_timing=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = sum(cell_seconds(cell) for cell in nb.cells[:own] if cell.cell_type == "code")
    extra = "".join(o.get("text", "") for o in nb.cells[-1].get("outputs", [])) if extra_source else ""
    return seconds, extra


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    print(f"CPU cores available: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.2f}")
    seconds, _ = run(REPO_ROOT / "solutions" / "ttt1_mcts" / "ttt1_mcts.ipynb")
    print(f"ttt1_mcts solution notebook, student mode: {seconds:.1f} s (budget 300 s)")
    seconds, _ = run(REPO_ROOT / "solutions" / "azul3_play" / "azul3_play.ipynb")
    print(f"azul3_play solution notebook, student mode: {seconds:.1f} s (budget 300 s)")
    seconds, _ = run(REPO_ROOT / "solutions" / "hex4_onpolicy" / "hex4_onpolicy.ipynb")
    print(f"hex4_onpolicy solution notebook, student mode: {seconds:.1f} s (budget 300 s)")
    seconds, output = run(REPO_ROOT / "solutions" / "ttt2_selfplay" / "ttt2_selfplay.ipynb",
                          f"GAMES = {args.games}\n" + MEASURE_PART2)
    print(f"ttt2_selfplay solution notebook, student mode: {seconds:.1f} s (budget 300 s)")
    results = json.loads(output.split("BENCH", 1)[1])
    for name, value in results.items():
        if name.endswith("%"):
            win, loss, draw = value
            print(f"{name[:-2]:<28} over {args.games} games: wins {win:5.1f}%  losses {loss:5.1f}%  draws {draw:5.1f}%")
        else:
            print(f"{name:<28} {value:10,.0f}")


if __name__ == "__main__":
    main()
