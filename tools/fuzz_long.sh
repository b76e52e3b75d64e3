#!/usr/bin/env bash
# A longer, still derandomised search of tests/test_fuzz.py (CI runs 25 examples a test).
# Usage: tools/fuzz_long.sh [EXAMPLES]   (default 500; about a second per example on two cores)
# A failure prints the shrunk counterexample: make it a regular test next to its fix.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_EXAMPLES="${1:-500}" exec python -m pytest -q tests/test_fuzz.py -p no:cacheprovider
