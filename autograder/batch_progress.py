"""Progress of a batch (submissions to grade, assignments to generate): k of N, running, time left.

On a terminal (stderr is a tty) a tqdm bar on stderr counts the finished items, with how many are
running and tqdm's estimate of the time left; each finished item's line is printed above it. In a
log or a pipe, each finished item is one plain line that carries the same figures::

    [3/16] graded alice/ttt1_mcts in 12.3 s: 21/29 points  (2 running, 13 to go, about 1 min 40 s left)
"""
from __future__ import annotations

import sys
import threading
import time


def duration(seconds: float) -> str:
    """`seconds` in words a reader takes in at a glance: "45 s", "3 min 5 s", "1 h 02 min"."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class BatchProgress:
    """Counts `total` items done `jobs` at a time; `started()` and `finished(line)` may be called
    from worker threads. `log` receives the plain lines (default: print); `bar` forces the tqdm bar
    on or off (default: on when stderr is a terminal and `log` is print)."""

    def __init__(self, total: int, desc: str, log=print, bar: bool | None = None):
        self.total, self.done, self.running = total, 0, 0
        self.log, self.began = log, time.monotonic()
        self._lock = threading.Lock()
        self._bar = None
        if bar if bar is not None else (log is print and sys.stderr.isatty()):
            from tqdm.std import tqdm

            self._bar = tqdm(total=total, desc=desc, unit="", file=sys.stderr, dynamic_ncols=True,
                             bar_format="{desc}: {n}/{total} |{bar}| [{elapsed} so far, {remaining} left]{postfix}")

    def started(self) -> None:
        with self._lock:
            self.running += 1
            self._show()

    def finished(self, line: str) -> None:
        """One item is done: count it and print `line` with k/N, running and the time left."""
        with self._lock:
            self.running -= 1
            self.done += 1
            left = self.total - self.done
            if self._bar is not None:
                self._bar.write(f"[{self.done}/{self.total}] {line}", file=sys.stdout)
                self._bar.update(1)
                self._show()
            else:
                figures = ([f"{self.running} running"] if self.running else []) \
                    + ([f"{left} to go, about {duration(self.seconds_left())} left"] if left else [])
                self.log(f"[{self.done}/{self.total}] {line}" + (f"  ({', '.join(figures)})" if figures else ""))

    def seconds_left(self) -> float:
        """The time left at the pace so far (wall time per finished item, parallel workers included)."""
        return (time.monotonic() - self.began) / max(self.done, 1) * (self.total - self.done)

    def _show(self) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.running} running, {self.done} done", refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
