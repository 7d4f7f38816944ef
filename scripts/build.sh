#!/usr/bin/env bash
# Configures and builds cubekit into build/ (Release with debug info). ccache (Debian's, installed
# by scripts/setup.sh) caches the compiles across builds and clones when it is present.
# Arguments starting with -D go to cmake; any other argument names a ninja target to build
# instead of everything (README command 1 builds only `cubekit_cli`: the tools and their links).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache_env.sh
cmake_args=() targets=()
for arg in "$@"; do
  if [[ $arg == -D* ]]; then cmake_args+=("$arg"); else targets+=("$arg"); fi
done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  "${cmake_args[@]}" >/dev/null
ninja -C build "${targets[@]}"
