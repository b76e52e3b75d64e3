#!/usr/bin/env bash
# The GPU check (benchmarks/gpu_check.py) in one command, within 8 minutes on one H200:
# speed and tokens of every decode mode (padded-graph included) at batch 1 and 4, then
# every mode against an fp32 render on the random and the realistic-margins checkpoints.
#
#   benchmarks/gpu_check.sh [WHEEL_DIR] [gpu_check.py options...]
#
# Installs every wheel in WHEEL_DIR (flashinfer and friends; --no-index: nothing is
# fetched from the network), then this project without its dependencies (they must
# already be installed), then runs the check. The table goes to stdout, the JSON to
# $OUT/gpu_check.json when $OUT is set, else benchmarks/gpu_check.json.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
WHEELS="${1:-}"
if [ $# -gt 0 ]; then shift; fi

if [ -n "$WHEELS" ]; then
    if [ ! -d "$WHEELS" ]; then
        echo "error: wheel folder $WHEELS does not exist" >&2
        exit 2
    fi
    shopt -s nullglob
    wheels=("$WHEELS"/*.whl)
    if [ ${#wheels[@]} -gt 0 ]; then
        echo "installing ${#wheels[@]} wheel(s) from $WHEELS" >&2
        "$PYTHON" -m pip install --quiet --no-index --find-links "$WHEELS" --no-deps "${wheels[@]}"
    fi
fi
"$PYTHON" -m pip install --quiet --no-index --no-deps --no-build-isolation -e . >&2

OUT_JSON="${OUT:-benchmarks}/gpu_check.json"
# 470 s for the check itself leaves the installs above their share of the 8 minutes.
exec timeout 470 "$PYTHON" benchmarks/gpu_check.py --out "$OUT_JSON" "$@"
