#!/usr/bin/env bash
# The slower checks .ci/run adds to the README's test command: the tests under ASan + UBSan,
# the fuzzers for a bounded time, and the tests under ThreadSanitizer (scripts/tsan.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# One clang build serves ASan + UBSan and the fuzzers: the library, the tools and the tests
# under ASan + UBSan, the library also with libFuzzer's coverage instrumentation (harmless
# outside the fuzzers). -O2, as the fuzzers' times below were measured; at -O0 the tests, which
# start thousands of instrumented tool processes, took most of CI's time. The Python tests
# (pytest, registered in ctest as python_tests) are not in this build: the sanitizer runtime
# would have to be loaded before the interpreter (CMakeLists.txt leaves the Python package out).
echo "== build and test under ASan + UBSan (clang, with the fuzzers)"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd .. && pwd)}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
CXX=clang++ CC=clang cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-g -O2" -DCUBEKIT_SANITIZE=ON -DCUBEKIT_FUZZ=ON -DCUBEKIT_BENCH=OFF \
  "${launcher[@]}" >/dev/null
ninja -C build-sanitize
bash scripts/ctest_in_fresh_tmpdir.sh build-sanitize env ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Four minutes in all: the six short fuzzers take turns for 40 s each while fuzz_cubepl runs
# 240 s beside them (one per core). fuzz_cubepl had 600 s to hunt the 30,000-term chains that
# overflowed the stack; such chains are now one flat node evaluated in a loop and have tests of
# their own (docs/cubepl.md). Longer runs: CUBEKIT_FUZZ_SECONDS, CUBEKIT_FUZZ_CUBEPL_SECONDS.
export CUBEKIT_FUZZ_CUBEPL_SECONDS=${CUBEKIT_FUZZ_CUBEPL_SECONDS:-240}
echo "== fuzz the readers (${CUBEKIT_FUZZ_SECONDS:-40} s each, fuzz_cubepl ${CUBEKIT_FUZZ_CUBEPL_SECONDS} s)"
bash tests/fuzz/run_fuzzers.sh build-sanitize "${CUBEKIT_FUZZ_SECONDS:-40}"

echo "== the tests under ThreadSanitizer (scripts/tsan.sh)"
bash scripts/tsan.sh build-tsan
