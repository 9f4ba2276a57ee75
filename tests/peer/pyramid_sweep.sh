#!/usr/bin/env bash
# Newton's SolverVBD on our 10-row box pyramid (scenes/pyramid_10.json) under the settings docs/peers.md
# reports: tests/peer/pyramid_sweep.sh --out DIR [--frames N]. Needs the venv of run.sh (run it once first).
# Writes DIR/pyramid_sweep.jsonl (one summary per setting) and prints a table. ~10 min on 2 cores once Warp's
# rigid kernels are cached (their first compilation takes ~10 min more).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOME_DIR="${VBD_PEER_HOME:-$HOME/.cache/vbdlab-peer}"
PY="$HOME_DIR/venv/bin/python"
OUT=""
FRAMES=300
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        --frames) FRAMES="$2"; shift 2 ;;
        *) echo "pyramid_sweep.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$OUT" ] || { echo "pyramid_sweep.sh: --out DIR is required" >&2; exit 2; }
[ -x "$PY" ] || { echo "pyramid_sweep.sh: run tests/peer/run.sh once first (it creates $HOME_DIR/venv)" >&2; exit 2; }
export WARP_CACHE_PATH="${WARP_CACHE_PATH:-$HOME_DIR/warp}"
mkdir -p "$OUT"
VBDLAB="${VBDLAB:-$ROOT/build/bin/vbdlab}"
"$VBDLAB" export "$ROOT/tests/peer/scenes/pyramid_10.json" --out "$OUT/pyramid_10_model.json"
J="$OUT/pyramid_sweep.jsonl"
: > "$J"
probe() {
    echo "[pyramid] $*" >&2
    "$PY" "$ROOT/tests/peer/pyramid_probe.py" "$OUT/pyramid_10_model.json" --frames "$FRAMES" --csv "$J" "$@" \
        > "$OUT/probe.log" 2>&1 || { tail -5 "$OUT/probe.log" >&2; exit 1; }
}
probe                                       # Newton's defaults: ke 2.5e3, bodies colored by joints (one color)
probe --ke 1e5
probe --ke 1e6
probe --ke 1e7
probe --ke 1e7 --history latest
probe --ke 1e7 --buffer 256
probe --ke 1e7 --substeps 4
probe --ke 1e5 --substeps 4
probe --ke 1e6 --substeps 8
probe --color-contacts                      # contact-graph coloring, default stiffness
probe --color-contacts --ke 1e6
probe --color-contacts --ke 1e7
probe --color-contacts --ke 1e8
probe --color-contacts --ke 1e7 --iterations 20
probe --color-contacts --ke 1e7 --history latest
probe --color-contacts --ke 1e7 --legacy --beta 1e5
"$PY" - "$J" <<'PYEOF'
import json, sys
print(f"{'ke':>8} {'colors':>8} {'sub':>3} {'it':>3} {'other':<22} {'stands':>6} {'max_disp':>9} {'top_dy':>9} {'ms/step':>8}")
for line in open(sys.argv[1]):
    d = json.loads(line); s = d["settings"]
    other = " ".join(x for x in [f"history={s['history']}" if s["history"] != "disabled" else "",
                                 f"buffer={s['buffer']}" if s["buffer"] != 64 else "",
                                 "legacy beta=%g" % s["beta"] if s["legacy"] else ""] if x)
    ke = "2.5e3" if s["ke"] is None else "%g" % s["ke"]
    col = "contacts" if s.get("color_contacts") else "joints"
    print(f"{ke:>8} {col:>8} {s['substeps']:>3} {s['iterations']:>3} {other:<22} {str(d['stands']):>6} "
          f"{d['final']['max_disp']:>9.4g} {d['final']['top_dy']:>9.4g} {d['ms_per_step']:>8.1f}")
PYEOF
