"""Progress bars that leave a readable final line, live or saved.

``progress`` is used instead of ``tqdm.auto.tqdm`` by the notebooks and ``azcourse.azul``. What a
reader sees:

* **In a Jupyter kernel with ipywidgets** (JupyterLab, the grader's nbclient): tqdm's live widget
  while the bar runs. When the bar closes (the loop ends, ``break``, an exception, ``close()``),
  the widget's output is replaced, through its display id, by one line of plain text, e.g.
  ``matches: 100%|██████████| 8/8 [00:03<00:00,  2.41it/s]`` (or ``3/8`` where the loop stopped
  early). The saved notebook and its HTML export therefore show that line, never a frozen
  ``0%`` or "Error displaying widget: model not found". A finished bar with ``leave=False``
  leaves an empty output instead.
* **Anywhere else** (a terminal, scripts, tests, an IPython console without a kernel): plain tqdm
  on stderr.

``disable=True`` shows nothing in either setting.
"""
from __future__ import annotations

import sys
import threading

from tqdm.notebook import IProgress, tqdm_notebook
from tqdm.std import tqdm as text_tqdm

__all__ = ["progress"]


class _NotebookBar(tqdm_notebook):
    """tqdm's notebook widget, shown with a display id and replaced by a text line on close."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, display=False, **kwargs)
        if not self.disable:
            from IPython.display import display
            self._handle = display(self.container, display_id=True)
            self.displayed = True

    def close(self):
        if self.disable:  # disabled, or already closed
            return
        super().close()
        stopped_early = bool(self.total) and self.n < self.total
        # rate=None: the overall rate, as terminal tqdm prints on close
        line = self.format_meter(**{**self.format_dict, "rate": None}) if self.leave or stopped_early else ""
        self._handle.update({"text/plain": line}, raw=True)
        for widget in (self.container, *self.container.children):
            widget.close()  # the view is gone: free the widget models in the kernel and frontend


# tqdm guards its bars with a multiprocessing lock by default. Where processes do not fork (Python
# 3.14 on Linux, macOS) that lock is a named semaphore, so the kernel starts multiprocessing's
# resource tracker, a child that ignores SIGTERM: ipykernel's shutdown then spends about 30 s
# signalling it, and a client that stops waiting before that gets "leaked semaphore" warnings.
# Notebook bars are drawn by the kernel's own threads only, so a thread lock is all they need.
_NotebookBar.set_lock(threading.RLock())


def _in_kernel() -> bool:
    """True inside a Jupyter kernel that can show ipywidgets (tqdm.autonotebook's test)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and "IPKernelApp" in shell.config and IProgress is not None


def progress(iterable=None, *, desc: str | None = None, total=None, leave: bool = True, disable: bool = False,
             **kw):
    """A tqdm bar over `iterable` (or a manual one: ``update(n)``, then ``close()``).

    Takes tqdm's arguments; returns the tqdm object (iterate over it, or use it as a context
    manager). See the module docstring for what is shown in a notebook and elsewhere.
    """
    bar = _NotebookBar if _in_kernel() else text_tqdm
    return bar(iterable, desc=desc, total=total, leave=leave, disable=disable, **kw)
