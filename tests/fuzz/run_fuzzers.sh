#!/usr/bin/env bash
# Runs every fuzzer for SECONDS on its corpus; exits 1 if any of them finds a crash, a leak,
# a timeout or an allocation beyond the memory limit (the reproducer is left in ARTIFACTS).
# Usage: run_fuzzers.sh BUILD_DIR SECONDS [CORPUS_DIR] [ARTIFACTS_DIR]
#   CORPUS_DIR defaults to BUILD_DIR/fuzz-corpus, filled by make_corpus.sh when missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [CORPUS_DIR] [ARTIFACTS_DIR]}
seconds=${2:?usage: run_fuzzers.sh BUILD_DIR SECONDS [CORPUS_DIR] [ARTIFACTS_DIR]}
corpus=${3:-$build/fuzz-corpus}
artifacts=${4:-$build/fuzz-artifacts}
# The build's cubekit executable, if any, exports the PERI-XML seeds.
[[ -d $corpus ]] || CUBEKIT=$build/cubekit "$here/make_corpus.sh" "$corpus" || exit 1
mkdir -p "$artifacts"

# target:corpus-subdir:max_len[:min_seconds]. The lengths cover the seeds that matter (whole small archives,
# real anchors) while keeping executions fast; folder names have 255 bytes at most (NAME_MAX),
# fuzzed with room to spare; CubePL inputs may be long enough for thousands of
# operators in a row (over-high syntax trees, docs/cubepl.md "Depth").
targets=(
  fuzz_tar:tar:262144
  fuzz_anchor:anchor:131072
  fuzz_metric_data:metric_data:65536
  fuzz_cube3:cube3:131072
  fuzz_cubepl:cubepl:131072:${CUBEKIT_FUZZ_CUBEPL_SECONDS:-600}
  fuzz_spec:spec:65536
  fuzz_peri:peri:65536
  fuzz_series_names:series_names:1024
)

# Runs one fuzzer; its statistics and verdict go to its log, the verdict also to <target>.failed.
run_one() {
  local spec=$1 target dir max_len min_seconds
  IFS=: read -r target dir max_len min_seconds <<<"$spec"
  # fuzz_cubepl: a fresh run on the code before issue 9's fix needed 437 s (-len_control=0,
  # long-chain seeds) to find the 30,000-term crash class; it gets at least 600 s.
  local run_for=$seconds
  if [[ -n ${min_seconds:-} && $min_seconds -gt $seconds ]]; then run_for=$min_seconds; fi
  # Targets with a minimum time hunt long inputs: no slow growth of the input length.
  local length_growth=()
  [[ -n ${min_seconds:-} ]] && length_growth=(-len_control=0)
  local bin log="$artifacts/$target.log"
  rm -f "$artifacts/$target.failed"
  bin=$(find "$build" -name "$target" -type f -perm -u+x | head -n1)
  if [[ -z $bin ]]; then
    echo "run_fuzzers.sh: $target not built in $build" >"$log"
    touch "$artifacts/$target.failed"
    return
  fi
  mkdir -p "$corpus/$dir"
  echo "== $target (${run_for}s, max_len $max_len)"
  # -rss_limit_mb also caps single allocations (malloc_limit_mb defaults to it): a hostile
  # count must be rejected before it turns into a huge allocation.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$run_for" -max_len="$max_len" "${length_growth[@]}" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$corpus/$dir" >"$log" 2>&1 ||
    touch "$artifacts/$target.failed"
}

# The long runs go to the background while the short ones take turns beside them: two at a
# time, one per core of CI's machine.
long_runs=()
for spec in "${targets[@]}"; do
  IFS=: read -r target _ _ min_seconds <<<"$spec"
  if [[ -n ${min_seconds:-} ]]; then
    run_one "$spec" &
    long_runs+=($!)
  fi
done
for spec in "${targets[@]}"; do
  IFS=: read -r target _ _ min_seconds <<<"$spec"
  [[ -n ${min_seconds:-} ]] || run_one "$spec"
done
for pid in "${long_runs[@]}"; do wait "$pid"; done

status=0
for spec in "${targets[@]}"; do
  IFS=: read -r target _ <<<"$spec"
  log="$artifacts/$target.log"
  echo "== $target"
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | sed 's/^/   /'
  if [[ -f "$artifacts/$target.failed" ]]; then
    echo "   FAILED; see $log" >&2
    grep -E 'ERROR:|SUMMARY:|Test unit written|not built' "$log" | head -n5 | sed 's/^/   /' >&2
    status=1
  fi
done
exit $status
