#!/usr/bin/env bash
# ThreadSanitizer: a clang build of the library, the tools and the tests with -fsanitize=thread,
# running every test that starts threads of its own or through the library: the server's
# (API, concurrency storms, soak, limits), the parallel_for users (reading and decoding
# reports, calc, cube_dump, the report algebra, CubePL's row-wise evaluation, PERI import) and
# the engine's shared caches. Any report fails the run (halt_on_error); nothing of ours is
# suppressed (tests/tsan.supp names the one uninstrumented library that is, and why).
# Two suites are left to the other builds: Oracle/OracleSteps and Oracle/OracleInspect compare
# each tool's output with CubeLib's, one instrumented process or more per oracle step (2,870
# steps, 60 % of this stage's time on a machine whose page faults are slow). The threads those
# processes start are the parallel_for loops of decoding, calc, cube_dump and the algebra, which
# the suites run here start too, in process and through the tools (OracleDump, AlgebraOracle,
# the dump option tests, Real/RoundTrip). Both suites run in the README's build and under ASan +
# UBSan. CUBEKIT_TSAN_FILTER=* runs them here as well (any gtest filter: the tests it names).
# Usage: tsan.sh [--build-only] [BUILD_DIR] (default build-tsan). --build-only stops after the
# build (scripts/sanitizers.sh builds while the fuzzers run). Line tables only, as the ASan build
# (sanitizers.sh says why): the race reports' stacks name file and line.
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [[ ${1:-} == --build-only ]]; then
  build_only=1
  shift
fi
build=${1:-build-tsan}
source scripts/ccache_env.sh
CXX=clang++ CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" -DCUBEKIT_TSAN=ON -DCUBEKIT_BENCH=OFF -DCUBEKIT_PYTHON=OFF \
  "${launcher[@]}" >/dev/null
ninja -C "$build" cubekit_tests cubekit_cli
[[ $build_only -eq 0 ]] || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The tests that run the cubekit executable run it instrumented too (CUBEKIT_TOOL). Two gtest
# shards, one per core; each one's output goes to its log, shown when it fails.
shards=2
pids=()
for shard in $(seq 0 $((shards - 1))); do
  TMPDIR=$tmp GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard \
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 suppressions=$PWD/tests/tsan.supp" \
    "$build/tests/cubekit_tests" --gtest_brief=1 --gtest_filter="${CUBEKIT_TSAN_FILTER:--Oracle/OracleSteps.*:Oracle/OracleInspect.*}" \
    >"$build/tsan_shard_$shard.log" 2>&1 &
  pids+=($!)
done
status=0
for shard in $(seq 0 $((shards - 1))); do
  if wait "${pids[$shard]}"; then
    tail -n 3 "$build/tsan_shard_$shard.log"
  else
    echo "tsan.sh: shard $shard failed:" >&2
    grep -E -A 30 'WARNING: ThreadSanitizer|FAILED|Failure' "$build/tsan_shard_$shard.log" | head -n 200 >&2
    status=1
  fi
done
[ $status -eq 0 ] || exit 1
if [ -n "$(ls -A "$tmp")" ]; then
  echo "tsan.sh: the tests left files in the temporary folder" >&2
  exit 1
fi
