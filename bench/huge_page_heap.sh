#!/usr/bin/env bash
# What the tools' huge-page heap (cubekit::use_huge_page_heap, include/cubekit/process_heap.hpp)
# gives each kind of work: every command runs with the heap as the tools set it up and with
# CUBEKIT_HUGE_PAGES=0 (glibc's malloc as it comes), in interleaved rounds; each cell is the mean
# of `perf stat -r REPEAT` (10): wall ms, CPU ms (task-clock), page faults; and the peak RSS of
# one run (/usr/bin/time). Needs `perf` (Debian: linux-perf).
#
#   bench/huge_page_heap.sh [BUILD_DIR] [OUT_DIR]     (ROUNDS=2 REPEAT=10 SIZE=400MB)
#
# Reports (`cubekit generate --size SIZE`, 5,000 and 50,000 call paths, and a copy of the
# first) go to OUT_DIR (default ${TMPDIR:-/tmp}) and are removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
rounds=${ROUNDS:-2} repeat=${REPEAT:-10} size=${SIZE:-400MB}
command -v perf >/dev/null || { echo "bench/huge_page_heap.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
work=$(mktemp -d "$out/cubekit-heap.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/cubekit" generate --size "$size" --call-paths 5000 -o "$work/a.cubex" >/dev/null
cp "$work/a.cubex" "$work/b.cubex"
"$build/cubekit" generate --size "$size" --call-paths 50000 -o "$work/wide.cubex" >/dev/null
"$build/cubekit" generate --size 10MB --call-paths 500 -o "$work/small.cubex" >/dev/null

commands=(
  "cube_info $work/wide.cubex"
  "cube_info $work/small.cubex"
  "cube_dump -m all -z incl -t aggr $work/a.cubex -o /dev/null"
  "cube_dump -m all -z incl -t aggr $work/wide.cubex -o /dev/null"
  "cube_stat -p -m time,visits $work/a.cubex"
  "cube_diff -o $work/out.cubex $work/a.cubex $work/b.cubex"
  "cube_merge -o $work/out.cubex $work/a.cubex $work/b.cubex"
  "cube_mean -o $work/out.cubex $work/a.cubex $work/b.cubex"
)

# "wall_ms cpu_ms faults" of perf stat -r REPEAT, the command's own output discarded.
measure() {
  perf stat -r "$repeat" -e task-clock,page-faults -x, "$@" 2>&1 >/dev/null |
    awk -F, '$3 == "task-clock" { cpu = $1 } $3 == "page-faults" { pf = $1 } END { printf "%.1f %.0f\n", cpu, pf }'
}
wall_ms() { perf stat -r "$repeat" "$@" 2>&1 >/dev/null | awk '/time elapsed/ { printf "%.1f", $1 * 1000 }'; }
rss_mb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.0f", $1 / 1024 }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "| command | heap | wall ms | CPU ms | page faults | peak RSS MB |"
echo "|---|---|---:|---:|---:|---:|"
for ((r = 1; r <= rounds; ++r)); do
  for c in "${commands[@]}"; do
    read -r -a argv <<<"$c"
    tool=$build/${argv[0]}
    for setting in 0 1; do
      label=$([[ $setting == 1 ]] && echo "huge pages" || echo "CUBEKIT_HUGE_PAGES=0")
      read -r cpu pf < <(CUBEKIT_HUGE_PAGES=$setting measure "$tool" "${argv[@]:1}")
      wall=$(CUBEKIT_HUGE_PAGES=$setting wall_ms "$tool" "${argv[@]:1}")
      rss=$(CUBEKIT_HUGE_PAGES=$setting rss_mb "$tool" "${argv[@]:1}")
      echo "| \`${c//$work\//}\` | $label | $wall | $cpu | $pf | $rss |"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
