#!/usr/bin/env bash
# Issue 30's cube_dump row: `cube_dump -m all -z incl -t aggr` of a SIZE (400MB) report of
# `cubekit generate --call-paths CALL_PATHS` (5000; 50000 gives a 4 MB anchor and 168
# locations: the call tree's reading and the tables' printing then weigh more) against one
# plain pass over the same bytes, as the ratio of their wall times in the same run (goal:
# ≤ 1.2×). The plain pass is the faster of cubekit_mmap_sum's two, --map and --read (on a
# virtual machine that makes page table entries slowly the second can be 2-4 times as fast,
# docs/benchmarks.md; a ratio to the slower would flatter).
#
#   bench/dump_ratio.sh [BUILD_DIR] [OUT_DIR]
#
# ALL_TYPES=1 generates the report with `--papi --all-types`: a metric of every data type
# besides Score-P's, among them a HISTOGRAM(8) of 154 MB whose inclusive values CubeLib folds
# over each call path's whole subtree (docs/benchmarks.md).
#
# ROUNDS (5) interleaved rounds, each the mean wall time of `perf stat -r REPEAT` (30) of the
# plain pass, then of the dump (CUBEKIT_THREADS as set, default all cores). Needs `perf`
# (Debian: linux-perf); the mean of 30 runs is steady to about 0.5 ms where single runs of
# 20–30 ms are not. The report is removed afterwards. On a shared machine the ratios say little:
# the load average is printed with each round.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
rounds=${ROUNDS:-5} repeat=${REPEAT:-30}
command -v perf >/dev/null || { echo "bench/dump_ratio.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
report=$out/cubekit-dump-ratio.$$.cubex
trap 'rm -f "$report"' EXIT
types=()
[[ ${ALL_TYPES:-0} == 1 ]] && types=(--papi --all-types)
"$build/cubekit" generate --size "${SIZE:-400MB}" --call-paths "${CALL_PATHS:-5000}" "${types[@]}" \
  -o "$report" >/dev/null
wall_ms() { perf stat -r "$repeat" "$@" 2>&1 >/dev/null | awk '/time elapsed/ { printf "%.2f", $1 * 1000 }'; }
for ((r = 1; r <= rounds; ++r)); do
  mapped=$(wall_ms "$build/bench/cubekit_mmap_sum" --map "$report")
  read=$(wall_ms "$build/bench/cubekit_mmap_sum" --read "$report")
  dump=$(wall_ms "$build/cube_dump" -m all -z incl -t aggr "$report" -o /dev/null)
  awk -v r="$r" -v m="$mapped" -v rd="$read" -v d="$dump" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    'BEGIN { p = m < rd ? m : rd
             printf "round %d: plain pass %.2f ms (mapped %.2f, read %.2f), cube_dump %.2f ms: %.3f× (load average %s)\n", r, p, m, rd, d, d / p, load }'
done
