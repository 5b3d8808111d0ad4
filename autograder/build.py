"""Build ``release/`` (student notebooks) and ``solutions/`` from ``assignments/``.

Usage, from any folder::

    python -m autograder.build            # sync copied cells, then generate everything
    python -m autograder.build --check    # only verify that copied cells are in sync

The build is nbgrader's own commands, run at the course root (``nbgrader_config.py``), so an
instructor who types them, or presses the formgrader's buttons, gets the same files:

1. Sync: in ``assignments/``, the cell ``part1_solutions`` of part 2 receives the reference cells
   (provided code and solutions, markers stripped) of part 1, so part 2 runs on its own and its
   source never drifts (``autograder.generation.SyncProvidedCells`` does the same for the
   generated copies).
2. ``nbgrader generate_assignment``: ``release/<assignment>/`` (solutions and hidden tests removed,
   outputs cleared, the student's header cell first) and the gradebook entries.
3. ``nbgrader generate_solution``: ``solutions/<assignment>/`` (solutions kept, hidden tests and
   outputs removed, the instructor's header cell first).
"""
import argparse
import sys

from .generation import out_of_sync_cells
from .reference import REPO_ROOT, SOURCE_DIR

# Every folder of assignments/ is an assignment; its notebooks are released together.
ASSIGNMENTS = {folder.name: sorted(path.stem for path in folder.glob("*.ipynb"))
               for folder in sorted(SOURCE_DIR.iterdir()) if folder.is_dir() and any(folder.glob("*.ipynb"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that copied cells are up to date")
    if parser.parse_args().check:
        stale = out_of_sync_cells()
        if stale:
            sys.exit("out of sync (run `python -m autograder.build`): " + ", ".join(stale))
        print("synced cells are up to date")
        return
    from . import pipeline

    try:
        pipeline.build(pipeline.Course.main())
    except pipeline.GraderError as exc:
        sys.exit(f"error: {exc}")
    print(f"built {REPO_ROOT / 'release'} and {REPO_ROOT / 'solutions'}")


if __name__ == "__main__":
    main()
