#!/usr/bin/env bash
# Fails if any C++ source differs from .clang-format (run with --fix to reformat in place).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'engine/*.h' 'engine/*.cpp' 'engine/*.cu' 'experiments/*.h' 'experiments/*.cpp' 'app/*.h' 'app/*.cpp' 'tests/*.h' 'tests/*.cpp')
if [ "${1:-}" = "--fix" ]; then clang-format -i "${files[@]}"; exit 0; fi
clang-format --dry-run --Werror "${files[@]}"
echo "check-format: ${#files[@]} files formatted"
