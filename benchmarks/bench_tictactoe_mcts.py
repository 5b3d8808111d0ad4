"""Simulations per second of the reference MCTS (the solution cells of part 1), on one core.

    python benchmarks/bench_tictactoe_mcts.py

Budget (issue 3): >= 30,000 simulations/s with the toy model on one core. The trained-network
figure (>= 10,000/s) is measured by bench_notebooks.py, which trains the network.
"""
import os
import time

import numpy as np

from autograder import reference

POSITIONS = {
    "win at centre (homework)": (np.array([1, 1, -1, -1, 0, 0, -1, 0, 0], np.int8), 500),
    "win in one (homework)": (np.array([1, 0, 0, 0, 1, 0, 0, 0, 0], np.int8), 500),
    "after one move each": (np.array([1, -1, 0, 0, 0, 0, 0, 0, 0], np.int8), 200),
    "empty board, 1,000 sims": (np.zeros(9, np.int8), 1000),
    "empty board, 5,000 sims": (np.zeros(9, np.int8), 5000),
}


def simulations_per_second(mcts_eval, board, model, num_sims, min_seconds=2.0) -> float:
    """Repeat whole searches for at least `min_seconds`; return simulations per second."""
    mcts_eval(board, model, num_sims)  # warm-up
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < min_seconds:
        mcts_eval(board, model, num_sims)
        done += num_sims
    return done / (time.perf_counter() - start)


def main() -> None:
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    ns = reference.ttt1()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (other processes slow these figures down)")
    for name, (board, sims) in POSITIONS.items():
        rate = simulations_per_second(ns["mcts_eval"], board, ns["toy_model"], sims)
        print(f"toy model, {name:<28} {rate:10,.0f} simulations/s")


if __name__ == "__main__":
    main()
