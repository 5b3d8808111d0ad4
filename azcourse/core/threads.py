"""numpy's BLAS on one thread in the pack's search processes.

OpenBLAS (numpy's BLAS) splits a matrix product over threads once it is large enough: a matrix-vector
product of one position through a dense layer from 1,859 inputs to 256 units is, 1,499 to 256 is not
(OpenBLAS 0.3). A search calls the network for one position at a time, and each call then waits on
threads that busy-wait on cores the other processes of a match or a self-play run need. Measured on the
2-core machine beside a training run, the azul_replies network: 264 us a forward with two threads (2,013
us with all threads), 76 us on one, the same as the 1,499-input network's 78 us.

OpenBLAS reads its thread count when numpy loads, so a process must have it in its environment before
it imports numpy: an entry point sets it first (``use_one_thread``), a pool of spawned processes is
started inside ``one_thread_children``. This module imports nothing heavy, so entry points can use it
before numpy.
"""
from __future__ import annotations

import contextlib
import os

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def use_one_thread() -> None:
    """For an entry point, before anything imports numpy: ``ONE_THREAD`` unless the user set a key."""
    for key, value in ONE_THREAD.items():
        os.environ.setdefault(key, value)


@contextlib.contextmanager
def one_thread_children():
    """Processes started within the block inherit ``ONE_THREAD``; this process's environment is
    restored after it (numpy here has loaded already and keeps its threads)."""
    saved = {key: os.environ.get(key) for key in ONE_THREAD}
    os.environ.update(ONE_THREAD)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
