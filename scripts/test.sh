#!/usr/bin/env bash
# Set up the pinned environment, then run the whole test suite. Extra arguments go to pytest.
#   bash scripts/test.sh --quick   the quick tier, the inner loop: every test not marked slow (no sandboxed
#                                  grading, pip, browser, notebook run or other Python; tests/conftest.py)
set -euo pipefail
tier=()
if [ "${1:-}" = "--quick" ]; then tier=(-m "not slow"); shift; fi
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Ray (the cluster extra, for the two-node Ray test) and OpenSpiel (the benchmarks' yardstick, and its
# harness test): pinned, installed once per change of their files.
stamp=.venv/.installed-dev-$(cat requirements-cluster.txt requirements-dev.txt | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "test: installing Ray and OpenSpiel (requirements-cluster.txt, requirements-dev.txt)..."
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-cluster.txt -r requirements-dev.txt 2>&1 \
    | grep -v "^WARNING: Location" || true
  .venv/bin/python -c "import ray, pyspiel" || { echo "test: Ray or OpenSpiel does not import" >&2; exit 1; }
  rm -f .venv/.installed-dev-*
  touch "$stamp"
fi
export MPLBACKEND=Agg PYTHONHASHSEED=0 JAX_PLATFORMS=cpu
# Test files run side by side (pytest-xdist, a whole file per worker, so module fixtures build once):
# most of the suite waits on one kernel, one pip or one browser at a time, so even 2 cores run two
# files at once. Workers: the cores, at least 2 and at most 4; AZCOURSE_TEST_WORKERS=0 runs in this
# process (as does -n 0 among the arguments).
cores=$(nproc)
workers=${AZCOURSE_TEST_WORKERS:-$(( cores < 2 ? 2 : (cores > 4 ? 4 : cores) ))}
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile "${tier[@]}" "$@"
