#!/usr/bin/env bash
# Set up the pinned environment, then run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export MPLBACKEND=Agg PYTHONHASHSEED=0 JAX_PLATFORMS=cpu
# Test files run side by side (pytest-xdist, a whole file per worker, so module fixtures build once):
# most of the suite waits on one kernel, one pip or one browser at a time, so even 2 cores run two
# files at once. Workers: the cores, at least 2 and at most 4; AZCOURSE_TEST_WORKERS=0 runs in this
# process (as does -n 0 among the arguments).
cores=$(nproc)
workers=${AZCOURSE_TEST_WORKERS:-$(( cores < 2 ? 2 : (cores > 4 ? 4 : cores) ))}
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile "$@"
