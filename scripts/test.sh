#!/usr/bin/env bash
# Set up the pinned environment, then run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export MPLBACKEND=Agg PYTHONHASHSEED=0 JAX_PLATFORMS=cpu
exec .venv/bin/python -m pytest "$@"
