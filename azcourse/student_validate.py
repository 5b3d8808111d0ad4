"""Check a notebook before you hand it in: what nbgrader's Validate button does, without nbgrader.

    python validate.py ttt1_mcts.ipynb [--timeout SECONDS]

It runs the notebook top to bottom in a fresh ``python3`` kernel, in the notebook's folder, with
``NBGRADER_EXECUTION=validate`` and ``NBGRADER_VALIDATING=1`` set as ``nbgrader validate`` sets them
(long cells then run their small budget), then reports, as ``nbgrader validate`` does:

* cells whose type was changed, and test or provided cells whose contents were changed (the
  grader runs its own copy of those, so what passes here might not pass there);
* every test cell that fails: its ``grade_id`` and the last line of its error (an error, or any
  output on stderr, fails a test cell; a number it returns below its points is partial credit);
* every written answer still empty (nbgrader: "You did not provide a response").

Unlike ``nbgrader validate``, it also names the code cells still holding the stub (``YOUR CODE
HERE`` / ``raise NotImplementedError()``), and its exit status is 1 when anything above is found,
0 with ``Success! Your notebook passes all the tests.`` otherwise (2: the notebook can't be read).
Hidden tests are not run here: they run when the notebook is graded.
"""
import argparse
import hashlib
import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from traitlets.config import Config

CODE_STUB = "raise NotImplementedError"
TEXT_STUB = "YOUR ANSWER HERE"
SUCCESS = "Success! Your notebook passes all the tests."


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def is_grade(cell) -> bool:
    return bool(_nbgrader(cell).get("grade", False))


def is_solution(cell) -> bool:
    return bool(_nbgrader(cell).get("solution", False))


def is_locked(cell) -> bool:
    """Locked as nbgrader means it: a test cell, or a cell marked read-only that is not an answer."""
    meta = _nbgrader(cell)
    return bool(meta) and not is_solution(cell) and (is_grade(cell) or bool(meta.get("locked", False)))


def checksum(cell) -> str:
    """nbgrader's cell checksum (``nbgrader.utils.compute_checksum``): md5 of the source, the cell
    type, the grade/solution/locked flags, the grade_id and, for a test cell, its points."""
    digest = hashlib.md5()
    for part in (cell.source, cell.cell_type, str(is_grade(cell)), str(is_solution(cell)), str(is_locked(cell)),
                 _nbgrader(cell)["grade_id"]):
        digest.update(part.encode("utf-8"))
    if is_grade(cell):
        digest.update(str(float(_nbgrader(cell)["points"])).encode("utf-8"))
    return digest.hexdigest()


def _name(index: int, cell) -> str:
    return _nbgrader(cell).get("grade_id") or f"cell {index}"


def _failure(cell) -> str | None:
    """Why a test cell does not get its points (nbgrader's ``determine_grade``), or None."""
    points = float(_nbgrader(cell).get("points", 0))
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return (output.traceback[-1] if output.get("traceback") else f"{output.ename}: {output.evalue}")
        if output.output_type == "stream" and output.name == "stderr":
            return "wrote to stderr: " + (output.text.strip().splitlines() or [""])[-1]
        if output.output_type == "execute_result":
            try:
                score = float(output.data.get("text/plain", ""))
            except ValueError:
                return None
            return f"partial credit: {score:g} of {points:g} points" if score < points else None
    return None


def _plain(text: str) -> str:
    """Text without ANSI colour codes (tracebacks carry them)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text).strip()


def problems(nb) -> list[str]:
    """One line per problem of an executed notebook (empty: it passes)."""
    found = []
    for index, cell in enumerate(nb.cells):
        meta = _nbgrader(cell)
        if not (is_grade(cell) or is_solution(cell) or is_locked(cell)):
            continue
        if meta.get("cell_type") and meta["cell_type"] != cell.cell_type:
            found.append(f"{_name(index, cell)}: its type was changed from {meta['cell_type']} to {cell.cell_type}: "
                         "change it back")
        elif is_locked(cell) and "checksum" in meta and meta["checksum"] != checksum(cell):
            found.append(f"{_name(index, cell)}: this {'test' if is_grade(cell) else 'provided'} cell was changed: "
                         "the grader runs its own copy, so undo your change")
        elif is_solution(cell):
            unchanged = "checksum" in meta and meta["checksum"] == checksum(cell)
            stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
            if unchanged or stub in cell.source:
                what = "written answer" if cell.cell_type == "markdown" else "code"
                found.append(f"{_name(index, cell)}: no answer yet ({what} cell still holds "
                             f"{'YOUR CODE HERE' if cell.cell_type == 'code' else TEXT_STUB})")
        elif is_grade(cell) and cell.cell_type == "code" and (why := _failure(cell)):
            found.append(f"{_name(index, cell)}: test failed: {_plain(why).rstrip(':')}")
    return found


def validate(path: Path, timeout: int) -> list[str]:
    """Execute the notebook at ``path`` (in its folder) and return its problems."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    os.environ.update(NBGRADER_VALIDATING="1", NBGRADER_EXECUTION="validate")
    # The kernel talks to this process over local TCP. Without keys, ipykernel warns that anyone on the
    # machine could read that traffic; "auto" has jupyter_client give it CurveZMQ keys whenever the
    # kernelspec declares support (ipykernel's does), so the traffic is encrypted and nothing is printed.
    # (Through the client's configuration: a kernel manager passed in would not be shut down.)
    encrypted = Config({"KernelManager": {"transport_encryption": "auto"}})
    client = NotebookClient(nb, config=encrypted, timeout=timeout, kernel_name="python3", allow_errors=True,
                            interrupt_on_timeout=True, resources={"metadata": {"path": str(path.parent)}},
                            error_on_timeout={"ename": "CellTimeoutError", "evalue": "",
                                              "traceback": [f"CellTimeoutError: still running after {timeout} s"]})
    try:
        client.execute()
    except DeadKernelError as exc:
        return [f"the kernel died while running the notebook ({exc}): fix the cell that crashes it"]
    return problems(nb)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python validate.py", description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell (default 300)")
    args = parser.parse_args(argv)
    path = Path(args.notebook).resolve()
    try:
        nbformat.read(path, as_version=4)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.notebook}: {exc}", file=sys.stderr)
        return 2
    print(f"running {path.name} top to bottom in a fresh kernel ...", flush=True)
    found = validate(path, args.timeout)
    if not found:
        print(SUCCESS)
        return 0
    print(f"VALIDATION FAILED ON {len(found)} CELL(S)! If you hand in the notebook as it is, you will not get "
          "full credit:")
    print("\n".join(f"  {line}" for line in found))
    return 1


if __name__ == "__main__":
    sys.exit(main())
