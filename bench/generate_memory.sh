#!/usr/bin/env bash
# Peak memory and speed of `cubekit generate` writing about 1 GB: memory must stay small (it
# grows with call paths and locations, never with their product). Usage:
#   bench/generate_memory.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
build=${1:-build}
out=${2:-${TMPDIR:-/tmp}}
report="$out/cubekit-generate-1GB.$$.cubex"
trap 'rm -f "$report"' EXIT
run() {
  echo "== cubekit generate $*"
  /usr/bin/time -f "peak RSS %M KB, %e s wall, %U s user, %S s system" \
    "$build/cubekit" generate "$@" -o "$report"
  rm -f "$report"
}
# Wide: few call paths, many locations.
run --size 1GB --call-paths 5000
# Deep: the default 32 locations, call paths chosen to reach 1 GB (about 950,000).
run --size 1GB
# With PAPI counters and every data type, compressed.
run --size 1GB --call-paths 5000 --papi --all-types --compress
