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
# Line tables only (-gline-tables-only): the reports' stacks still name file and line, and the
# compiles take 7-15 % less time than with -g (dump.cpp, api.cpp), which on CI's empty ccache
# is most of these builds' time.
echo "== build and test under ASan + UBSan (clang, with the fuzzers)"
source scripts/ccache_env.sh
CXX=clang++ CC=clang cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O2" -DCUBEKIT_SANITIZE=ON -DCUBEKIT_FUZZ=ON -DCUBEKIT_BENCH=OFF \
  "${launcher[@]}" >/dev/null
ninja -C build-sanitize
# LeakSanitizer checks the test processes' exits and one tool start in four
# (CUBEKIT_TEST_LEAK_CHECK_EVERY, tests/test_support.cpp says why): the oracle suites' 2,900
# steps start thousands of tools, and the check at each exit was about 40 % of their time (an
# eighth of OracleInspect: 16.6 s with it, 9.7 s without).
echo "== [${SECONDS} s] the tests under ASan + UBSan"
bash scripts/ctest_in_fresh_tmpdir.sh build-sanitize env ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CUBEKIT_TEST_LEAK_CHECK_EVERY=4

# Under five minutes in all: the seven short fuzzers take turns for 40 s each while fuzz_cubepl runs
# 240 s beside them (one per core). fuzz_cubepl had 600 s to hunt the 30,000-term chains that
# overflowed the stack; such chains are now one flat node evaluated in a loop and have tests of
# their own (docs/cubepl.md). Longer runs: CUBEKIT_FUZZ_SECONDS, CUBEKIT_FUZZ_CUBEPL_SECONDS.
# The fuzzers run for a fixed time whatever CPU they get, so the ThreadSanitizer build runs beside
# them (its log is shown if it fails): CI's 2 cores are shared between the two for those four
# minutes, which costs the fuzzers about half their executions and saves the build that much wall
# time (.ci/run stays within its 30 minutes on an empty ccache).
export CUBEKIT_FUZZ_CUBEPL_SECONDS=${CUBEKIT_FUZZ_CUBEPL_SECONDS:-240}
echo "== [${SECONDS} s] fuzz the readers (${CUBEKIT_FUZZ_SECONDS:-40} s each, fuzz_cubepl ${CUBEKIT_FUZZ_CUBEPL_SECONDS} s), building for TSan beside them"
mkdir -p build-tsan
bash scripts/tsan.sh --build-only build-tsan >build-tsan/build.log 2>&1 &
tsan_build=$!
fuzz_status=0
bash tests/fuzz/run_fuzzers.sh build-sanitize "${CUBEKIT_FUZZ_SECONDS:-40}" || fuzz_status=$?
if ! wait "$tsan_build"; then
  echo "sanitizers.sh: the ThreadSanitizer build failed:" >&2
  tail -n 60 build-tsan/build.log >&2
  exit 1
fi
[[ $fuzz_status -eq 0 ]] || exit "$fuzz_status"

echo "== [${SECONDS} s] the tests under ThreadSanitizer (scripts/tsan.sh)"
bash scripts/tsan.sh build-tsan
echo "== [${SECONDS} s] sanitizers.sh done"
