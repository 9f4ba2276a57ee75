#!/usr/bin/env bash
# CI stage: the unit tests and the CLI contract tests under AddressSanitizer + UndefinedBehaviorSanitizer.
# Builds the `asan` preset (CMakePresets.json: -O1 -g1, every UBSan finding fatal, no GUI, no CUDA, no
# benchmarks) into build-asan/, only the targets these tests need, and runs
#   - every unit test (ctest -L unit),
#   - the CLI contract tests (test_cli: exit codes, messages, nothing written on bad input, no NaN written),
#   - the finiteness-guard and hostile-input scene tests (test_finite_guard).
# LeakSanitizer is on. The render tests are not part of this stage (the app is not built here); run with
# ASAN_OPTIONS=detect_leaks=0 they would only report the Vulkan loader's own leak.
# Usage: scripts/sanitize.sh   (VBD_JOBS=N for the build's parallelism, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${VBD_JOBS:-2}"
cmake --preset asan >/dev/null
unit=()
for f in tests/unit/*/test_*.cpp; do unit+=("$(basename "$f" .cpp)"); done
cmake --build build-asan -j "$JOBS" --target vbdlab test_cli test_finite_guard "${unit[@]}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd build-asan
ctest --output-on-failure -j "${VBD_TEST_JOBS:-2}" --timeout 900 -L unit
ctest --output-on-failure -j "${VBD_TEST_JOBS:-2}" --timeout 900 -R '^(Cli|FiniteGuard)\.'
