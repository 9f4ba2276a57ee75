#!/usr/bin/env bash
# Soak check: every built-in scene (assets/scenes/*.json) for N frames with `vbdlab sim`, failing on
#   - a run that does not exit 0 (the finiteness guard stops a run that goes NaN with exit 1),
#   - NaN / inf anywhere in metrics.csv or final_state.json,
#   - an inverted tet (min_volume_ratio < 0 in any frame),
#   - energy growth: the largest mechanical energy KE + M |g| com_y of the second half of the run above
#     the largest of the first half by more than FACTOR-1 times the first half's largest kinetic energy (a resting stack or a free
#     spinning body must not gain energy; a body falling into the void only trades potential for kinetic
#     energy); where the mass is not known from the scene (imported meshes), kinetic energy alone against
#     FACTOR times its first-half maximum; scenes driven by moving fixed boxes are exempt; total_energy (when metrics.csv
#     has that column) rising above its first value by more than FACTOR-1 times its magnitude,
#   - memory growth: max RSS of the N-frame run above that of an N/10-frame run by more than MEM_MB plus
#     the metrics and iteration records vbdlab sim keeps until it writes them (2 x 24 B per convergence row,
#     2 x 160 B per frame).
# Usage: scripts/soak.sh [-n FRAMES] [-o OUTDIR] [-b VBDLAB] [-f FACTOR] [-m MEM_MB] [scene.json ...]
# Defaults: 2000 frames, /tmp/vbd_soak, build/bin/vbdlab, factor 2, 1 MB, every built-in scene.
# Prints one line per scene and a summary; exit code 1 if any scene fails.
set -uo pipefail
cd "$(dirname "$0")/.."
FRAMES=2000
OUT=/tmp/vbd_soak
VBDLAB=build/bin/vbdlab
FACTOR=2
MEM_MB=1
while getopts "n:o:b:f:m:h" opt; do
  case $opt in
    n) FRAMES=$OPTARG ;;
    o) OUT=$OPTARG ;;
    b) VBDLAB=$OPTARG ;;
    f) FACTOR=$OPTARG ;;
    m) MEM_MB=$OPTARG ;;
    *) sed -n 2,14p "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
SCENES=("$@")
[ ${#SCENES[@]} -eq 0 ] && SCENES=(assets/scenes/*.json)
[ -x "$VBDLAB" ] || { echo "soak: $VBDLAB not found (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "soak: /usr/bin/time is needed for max RSS (apt-get install time)" >&2; exit 2; }
mkdir -p "$OUT"
SHORT=$((FRAMES / 10 > 0 ? FRAMES / 10 : 1))
fail=0
printf "%-28s %6s %5s %9s %11s %11s %8s %8s  %s\n" scene frames exit minvol ke_first ke_second rss_s_MB rss_l_MB verdict
for s in "${SCENES[@]}"; do
  name=$(basename "$s" .json)
  d="$OUT/$name"
  rm -rf "$d" "$d.short"
  /usr/bin/time -f %M -o "$d.rss_short" "$VBDLAB" sim "$s" --frames "$SHORT" --out "$d.short" >/dev/null 2>"$d.err_short"
  /usr/bin/time -f %M -o "$d.rss" "$VBDLAB" sim "$s" --frames "$FRAMES" --out "$d" >/dev/null 2>"$d.err"
  code=$?
  python3 - "$d" "$code" "$FRAMES" "$FACTOR" "$MEM_MB" "$name" "$s" <<'EOF' || fail=1
import csv, math, os, sys
d, code, frames, factor, mem_mb, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
scene_path = sys.argv[7]
def rss(p):
    try:
        return int(open(p).read().split()[-1]) / 1024.0
    except Exception:
        return float("nan")
rs, rl = rss(d + ".rss_short"), rss(d + ".rss")
problems = []
if code != 0:
    err = open(d + ".err").read().strip().splitlines()
    problems.append(f"exit {code}: {err[-1] if err else ''}")
rows = []
mp = os.path.join(d, "metrics.csv")
if os.path.exists(mp):
    rows = list(csv.DictReader(open(mp)))
for f in ("metrics.csv", "final_state.json"):
    p = os.path.join(d, f)
    if os.path.exists(p):
        t = open(p).read().lower()
        if "nan" in t or "inf" in t or "null" in t:
            problems.append(f"non-finite value in {f}")
minvol, ke1, ke2 = 1.0, 0.0, 0.0
if rows:
    vols = [float(r["min_volume_ratio"]) for r in rows]
    minvol = min(vols)
    if minvol < 0:
        first = next(i for i, v in enumerate(vols) if v < 0)
        problems.append(f"inverted tet: min_volume_ratio {minvol:.3g} (first at frame {rows[first]['frame']})")
    ke = [float(r["kinetic_energy"]) for r in rows]
    half = len(ke) // 2
    ke1, ke2 = max(ke[:half] or [0]), max(ke[half:] or [0])
    floor = 1e-3
    import json
    scene = json.load(open(scene_path))
    # A scene with moving fixed boxes (beam_twist) is driven: work is done on it, energy may grow.
    driven = any(any(k in f for k in ("velocity", "angular_velocity"))
                 for b in scene.get("soft_bodies", []) + scene.get("cloths", []) for f in b.get("fixed", []))
    # Mechanical energy KE + M |g| com_y where the moving mass is known from the scene (box grids, cloths,
    # rigid bodies; not imported meshes): a body falling off a ramp into the void trades potential for
    # kinetic energy, which is no growth. Elastic energy is left out (it only lowers this sum).
    def mass():
        m = 0.0
        for b in scene.get("soft_bodies", []):
            if b.get("type", "box_grid") != "box_grid":
                return None
            lo, hi = b.get("min", [0, 0, 0]), b.get("max", [1, 1, 1])
            m += b.get("material", {}).get("density", 1000) * (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
        for c in scene.get("cloths", []):
            mt = c.get("material", {})
            sz = c.get("size", [1, 1])
            m += mt.get("density", 1000) * mt.get("thickness", 0.001) * sz[0] * sz[1]
        for b in scene.get("rigid_bodies", []):
            if b.get("fixed", False):
                continue
            rho, shape = b.get("density", 1000), b.get("shape", "box")
            if shape == "box":
                sz = b.get("size", [1, 1, 1])
                m += rho * sz[0] * sz[1] * sz[2]
            else:
                r, hh = b.get("radius", 0.5), (b.get("half_height", 0.5) if shape == "capsule" else 0)
                m += rho * (math.pi * r * r * 2 * hh + 4 / 3 * math.pi * r ** 3)
        return m
    M, g = mass(), scene.get("gravity", [0, -9.81, 0])
    if M is not None and g[0] == 0 and g[2] == 0:
        e = [k + M * -g[1] * float(r["com_y"]) for k, r in zip(ke, rows)]
        e1, e2 = max(e[:half] or [0]), max(e[half:] or [0])
        grew = e2 > e1 + (factor - 1) * ke1 + floor  # sensitivity on the kinetic scale, not the potential one
        what = f"mechanical energy KE + M g com_y grew: max {e1:.4g} in the first half, {e2:.4g} in the second"
    else:
        grew = ke2 > factor * ke1 + floor
        what = f"kinetic energy grew: max {ke1:.3g} in the first half, {ke2:.3g} in the second"
    if grew and not driven:
        problems.append(what)
    if "total_energy" in rows[0]:
        te = [float(r["total_energy"]) for r in rows]
        if te[-1] > te[0] + (factor - 1) * abs(te[0]) + floor:
            problems.append(f"total energy grew from {te[0]:.6g} to {te[-1]:.6g}")
# vbdlab sim keeps every frame's metrics (~160 B) and iteration records (24 B) until it writes them at the
# end: that much growth (x2 for vector capacity) is the output itself, not a leak.
def rows(p):
    try:
        return sum(1 for _ in open(p)) - 1
    except OSError:
        return 0
kept = 2 * (24 * (rows(os.path.join(d, "convergence.csv")) - rows(os.path.join(d + ".short", "convergence.csv")))
            + 160 * (rows(mp) - rows(os.path.join(d + ".short", "metrics.csv")))) / 1e6
if not math.isnan(rs) and not math.isnan(rl) and rl - rs > mem_mb + kept:
    problems.append(f"max RSS grew {rl - rs:.1f} MB from {frames // 10} to {frames} frames "
                    f"(allowed {mem_mb:g} MB + {kept:.1f} MB of kept output records)")
verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
print(f"{name:<28} {frames:6d} {code:5d} {minvol:9.3g} {ke1:11.4g} {ke2:11.4g} {rs:8.1f} {rl:8.1f}  {verdict}")
sys.exit(1 if problems else 0)
EOF
done
[ $fail -eq 0 ] && echo "soak: all ${#SCENES[@]} scenes passed ($FRAMES frames)" || echo "soak: FAILED (see above; outputs in $OUT)"
exit $fail
