#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and starts vbdlab (GUI when a display is
# present, otherwise the default scene headless, saying where it wrote its output). Args go to vbdlab.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
VBD_TARGET=vbdlab scripts/build.sh
exec build/bin/vbdlab "$@"
