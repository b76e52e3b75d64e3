#!/usr/bin/env bash
# Build the frozen app for CPU with PyInstaller, in its own venv, then run the
# frozen app's selftest offscreen. Heavy (GBs, tens of minutes); not run in CI.
#
#   packaging/build_frozen.sh            # outputs under build/frozen/ (git-ignored)
#
# Environment:
#   PYTHON        the Python that creates the build venv (default: python3)
#   TORCH_PYTHON  where the fallback torch comes from when the CPU wheel index is
#                 unreachable (default: the repository's .venv, then python3)
#   BUILD_DIR     where everything goes (default: build/frozen)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build/frozen}"
VENV="$BUILD/venv"
CPU_INDEX="https://download.pytorch.org/whl/cpu"
RESULT="$BUILD/result.txt"
mkdir -p "$BUILD"
started=$(date +%s)
say() { echo "[build_frozen $(date +%H:%M:%S)] $*"; }

say "build venv: $VENV"
"${PYTHON:-python3}" -m venv "$VENV"
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip

# Is the CPU wheel index reachable? Try a tiny download from it alone first
# (no config files, find-links or cache, which could answer instead of it).
if env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE=/dev/null \
        timeout 90 "$PY" -m pip download --quiet --no-deps --no-cache-dir \
        --index-url "$CPU_INDEX" --dest "$BUILD/probe" typing-extensions >/dev/null 2>&1; then
    torch_source="CPU wheels from $CPU_INDEX"
    say "$torch_source"
    TORCH_VERSION="${TORCH_VERSION:-2.9.1}"
    "$PY" -m pip install --quiet --index-url "$CPU_INDEX" \
        "torch==$TORCH_VERSION" "torchaudio==$TORCH_VERSION"
    "$PY" -m pip install --quiet "$ROOT"
else
    # Offline from that index: reuse an installed torch/torchaudio pair through a
    # .pth file instead of copying gigabytes. That torch may be a CUDA build, which
    # makes the bundle much larger (its CUDA libraries come along).
    src_py="${TORCH_PYTHON:-}"
    if [ -z "$src_py" ]; then
        for candidate in "$ROOT/.venv/bin/python" "$ROOT/../venv/bin/python" python3; do
            if "$candidate" -c "import torch, torchaudio" >/dev/null 2>&1; then
                src_py="$candidate"; break
            fi
        done
    fi
    [ -n "$src_py" ] || { say "no CPU wheel index and no installed torch+torchaudio"; exit 2; }
    site="$("$src_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    torch_source="installed torch from $site ($("$src_py" -c 'import torch; print(torch.__version__)'))"
    say "$CPU_INDEX unreachable; using the $torch_source"
    own_site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$site" > "$own_site/zz-installed-torch.pth"
fi
"$PY" -m pip install --quiet pyinstaller

say "PyInstaller (log: $BUILD/pyinstaller.log)"
build_started=$(date +%s)
(cd "$ROOT" && "$PY" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$BUILD/dist" --workpath "$BUILD/work" packaging/omnivoice-desktop.spec) \
    > "$BUILD/pyinstaller.log" 2>&1
build_s=$(( $(date +%s) - build_started ))
APP="$BUILD/dist/omnivoice-desktop/omnivoice-desktop"
size="$(du -sh "$BUILD/dist/omnivoice-desktop" | cut -f1)"
say "built in ${build_s}s, $size"

say "frozen selftest (offscreen, private data folder)"
data="$(mktemp -d)"
set +e
selftest_started=$(date +%s)
QT_QPA_PLATFORM=offscreen OMNIVOICE_DESKTOP_DATA_DIR="$data" "$APP" selftest \
    > "$BUILD/selftest.txt" 2>&1
status=$?
selftest_s=$(( $(date +%s) - selftest_started ))
set -e
cat "$BUILD/selftest.txt"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "machine: $(uname -srm), $(nproc) cores"
    echo "torch: $torch_source"
    echo "pyinstaller: $("$PY" -m PyInstaller --version)"
    echo "build time: ${build_s}s (whole script: $(( $(date +%s) - started ))s)"
    echo "bundle: $BUILD/dist/omnivoice-desktop, $size"
    echo "frozen selftest: exit $status in ${selftest_s}s"
} | tee "$RESULT"
exit "$status"
