#!/usr/bin/env bash
# Builds the libFuzzer target for scene parsing + validation (tests/fuzz, clang, ASan + UBSan) and runs
# it for SECONDS (default 60) from the built-in scenes as seed corpus. New inputs are kept in
# build-fuzz/corpus; a finding is written to build-fuzz/artifacts/ and the script exits non-zero.
# Usage: scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS="${1:-60}"
shift || true
CXX_FUZZ="$(command -v clang++-14 || command -v clang++ || true)"
[ -n "$CXX_FUZZ" ] || { echo "fuzz: clang++ not found (scripts/install-deps.sh installs clang-14)" >&2; exit 2; }
cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER="$CXX_FUZZ" >/dev/null
cmake --build build-fuzz -j "${VBD_JOBS:-2}"
mkdir -p build-fuzz/corpus build-fuzz/artifacts
# The first corpus folder is the one libFuzzer writes to; the seeds are read only.
exec build-fuzz/fuzz_scene build-fuzz/corpus assets/scenes tests/fuzz/cases \
  -dict=tests/fuzz/scene.dict -max_total_time="$SECS" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ "$@"
