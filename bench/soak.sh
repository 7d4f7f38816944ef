#!/usr/bin/env bash
# The server soak at a large size: tests/server/soak_test.cpp and the 400-expression storm of
# concurrency_test.cpp with CUBEKIT_SOAK_SCALE times the requests (default 100: 96,000 soak
# steps over 16 clients, 40,000 distinct expressions). Loopback only; it stops by itself.
# Usage: bench/soak.sh BUILD_DIR [SCALE]. Prints each test's time and verdict.
set -euo pipefail
build=${1:?usage: bench/soak.sh BUILD_DIR [SCALE]}
scale=${2:-100}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp CUBEKIT_SOAK_SCALE=$scale /usr/bin/time -f "soak: %e s, peak RSS %M KB" \
  "$build/tests/cubekit_tests" --gtest_filter='ServerSoak.*:ServerConcurrency.*'
