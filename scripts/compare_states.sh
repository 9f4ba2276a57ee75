#!/usr/bin/env bash
# Bit-identity check for refactors: runs every built-in scene headless and stores what it wrote, or
# compares a new run with a stored one.
#   scripts/compare_states.sh save DIR [FRAMES]    # run with build/bin/vbdlab, keep the outputs in DIR
#   scripts/compare_states.sh check DIR [FRAMES]   # run again into a temp folder and compare with DIR
# final_state.json and convergence.csv must be byte-identical; metrics.csv must be identical except for
# its wall-clock column step_ms. Exits 1 on the first scene that differs (all are reported).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:?save|check}"; dir="${2:?DIR}"; frames="${3:-90}"
exe=build/bin/vbdlab
strip_time() {  # metrics.csv without the step_ms column (found by name)
  awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="step_ms") c=i} {s=""; for(i=1;i<=NF;i++) if(i!=c) s=s (s==""?"":",") $i; print s}' "$1"
}
run_all() {
  local out="$1"
  for scene in assets/scenes/*.json; do
    name=$(basename "$scene" .json)
    "$exe" sim "$scene" --frames "$frames" --out "$out/$name" >/dev/null 2>&1 || { echo "$name: run failed"; return 1; }
  done
}
case "$mode" in
  save) rm -rf "$dir"; run_all "$dir"; echo "saved $(ls "$dir" | wc -l) scenes, $frames frames each, in $dir" ;;
  check)
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    run_all "$tmp"
    bad=0
    for d in "$dir"/*/; do
      name=$(basename "$d")
      if ! cmp -s "$d/final_state.json" "$tmp/$name/final_state.json" ||
         ! cmp -s "$d/convergence.csv" "$tmp/$name/convergence.csv" ||
         ! cmp -s <(strip_time "$d/metrics.csv") <(strip_time "$tmp/$name/metrics.csv"); then
        echo "DIFFERS: $name"; bad=1
      else
        echo "identical: $name"
      fi
    done
    exit $bad ;;
  *) echo "usage: $0 save|check DIR [FRAMES]" >&2; exit 2 ;;
esac
