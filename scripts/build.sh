#!/usr/bin/env bash
# Configures and builds cubekit into build/ (Release with debug info). ccache (Debian's, installed
# by scripts/setup.sh) caches the compiles across builds and clones when it is present.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"  # hits across clones side by side
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >/dev/null
ninja -C build
