#!/usr/bin/env bash
# Side by side with Newton's SolverVBD on the CPU: tests/peer/run.sh [--quick] --out DIR [--reps N] [--set K=V]...
#   [--scenes hanging_bar,cube_drop,beam_10k,beam_100k,cloth_64,pyramid_10]
# Creates (once) a venv with the pinned newton and warp-lang (requirements.txt), builds build/bin/vbdlab if it
# is missing, and runs tests/peer/peers.py, which writes DIR/peers.csv, DIR/physics.csv and
# DIR/newton_setup.csv. Not part of ctest: the full run takes ~30-60 min on a 2-core machine the first time
# (Warp compiles Newton's CPU kernels: ~1 min soft, ~10 min rigid), --quick a few minutes once they are cached.
#   VBD_PEER_HOME  venv and Warp kernel cache (default ~/.cache/vbdlab-peer), kept between runs
#   VBDLAB         the vbdlab binary (default build/bin/vbdlab)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOME_DIR="${VBD_PEER_HOME:-$HOME/.cache/vbdlab-peer}"
VENV="$HOME_DIR/venv"
OUT=""
ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        --out=*) OUT="${1#--out=}"; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
if [ -z "$OUT" ]; then
    echo "tests/peer/run.sh: --out DIR is required" >&2
    exit 2
fi
REQ="$ROOT/tests/peer/requirements.txt"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/.vbd_requirements"; then
    echo "[peers] creating $VENV (newton, warp-lang pinned in tests/peer/requirements.txt)"
    mkdir -p "$HOME_DIR"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
    cp "$REQ" "$VENV/.vbd_requirements"
fi
VBDLAB="${VBDLAB:-$ROOT/build/bin/vbdlab}"
if [ ! -x "$VBDLAB" ]; then
    echo "[peers] building vbdlab"
    (cd "$ROOT" && VBD_TARGET=vbdlab scripts/build.sh -DVBD_CUDA=OFF)
fi
export WARP_CACHE_PATH="${WARP_CACHE_PATH:-$HOME_DIR/warp}"
mkdir -p "$OUT"
exec "$VENV/bin/python" "$ROOT/tests/peer/peers.py" --out "$OUT" --vbdlab "$VBDLAB" ${ARGS[@]+"${ARGS[@]}"}
