#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything with warnings as errors,
# checks formatting, and runs every test (unit, scene, render, app smoke) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DVBD_WERROR=ON
scripts/check-format.sh
cd build
ctest --output-on-failure -j "${VBD_TEST_JOBS:-2}" --timeout 600
