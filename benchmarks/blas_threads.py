"""One position's network forward in two processes at once (an arena's or self-play's workers), with
numpy's BLAS on its default threads and on one thread (``azcourse.core.threads``).

    .venv/bin/python benchmarks/blas_threads.py [--inputs 1499 1859] [--forwards 3000] [--processes 2]

Azul's networks (hidden 256, 256, 128; ``azul``: 1,499 inputs, ``azul_replies``: 1,859) with random
weights through ``azcourse.alphazero.network.NumpyNet``, one position a call as the search makes them.
Prints microseconds a forward (the mean over the processes) and the ratio default / one thread. Run it
on an otherwise idle machine for figures to record. A figure, not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def child(inputs: int, forwards: int) -> None:
    """Time ``forwards`` one-position forwards of a random Azul-shaped network; print us a forward."""
    import numpy as np

    from azcourse.alphazero.network import NetSpec, NumpyNet

    rng = np.random.default_rng(0)
    spec = NetSpec((inputs,), 181, (), (256, 256, 128), (180, (inputs - 419) // 180))
    sizes = (inputs, *spec.hidden)
    layer = lambda i, o: {"kernel": rng.normal(0, 0.05, (i, o)), "bias": np.zeros(o)}  # noqa: E731
    params = {f"hidden_{i}": layer(a, b) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))}
    params.update(policy_head=layer(128, 181), value_head=layer(128, 1), action_head=layer(spec.action_features[1], 1))
    net, x = NumpyNet(spec, params), rng.random(inputs, dtype=np.float32)
    for _ in range(50):
        net(x)
    start = time.perf_counter()
    for _ in range(forwards):
        net(x)
    print(1e6 * (time.perf_counter() - start) / forwards)


def measure(inputs: int, forwards: int, processes: int, one_thread: bool) -> float:
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if one_thread:
        from azcourse.core.threads import ONE_THREAD
        env.update(ONE_THREAD)
    command = [sys.executable, __file__, "--child", str(inputs), "--forwards", str(forwards)]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) for _ in range(processes)]
    return sum(float(run.communicate()[0]) for run in runs) / processes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, nargs="+", default=[1499, 1859])
    parser.add_argument("--forwards", type=int, default=3000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.child, args.forwards)
    print(f"{args.processes} processes at once, {args.forwards} one-position forwards each, {os.cpu_count()} cores")
    for inputs in args.inputs:
        default, one = (measure(inputs, args.forwards, args.processes, flag) for flag in (False, True))
        print(f"{inputs:>5} inputs: default threads {default:7.1f} us a forward, one thread {one:6.1f} us, "
              f"ratio {default / one:5.2f}")


if __name__ == "__main__":
    main()
