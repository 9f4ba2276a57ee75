#!/usr/bin/env bash
# Configures and builds everything into build/ (CUDA too when nvcc is found). Extra args go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
JOBS="${VBD_JOBS:-$(nproc)}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$JOBS" ${VBD_TARGET:+--target "$VBD_TARGET"}
