#!/usr/bin/env bash
# Installs the Debian packages VBD Lab needs to build, run and test (only those that are missing).
set -euo pipefail
PKGS=(cmake ninja-build g++ pkg-config clang-format clang-tidy
      libeigen3-dev libtbb-dev libtet1.5-dev libassimp-dev assimp-testmodels nlohmann-json3-dev libcli11-dev
      libgtest-dev libbenchmark-dev
      libvulkan-dev vulkan-validationlayers mesa-vulkan-drivers glslc libglfw3-dev libimgui-dev libglm-dev
      libstb-dev xvfb xauth)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
