#!/usr/bin/env bash
# The scaling table of the README: `cube_dump -m all -z incl -t aggr` on reports written by
# `cubekit generate` of growing size, against one plain pass over the same bytes, on one core
# and on all cores; plus the same at the largest size with ZCUBEX data, and the time to open
# the anchor (`cube_dump -w`).
#
#   bench/scaling.sh [BUILD_DIR] [OUT_DIR]      (SIZES="10MB 100MB 1GB 5GB" by default)
#
# Every report has 5,000 call paths; the generator adds ranks to reach the size (4 metrics of
# 8-byte values per call path and location, plus sparse byte counts). Reports are written to
# OUT_DIR (default ${TMPDIR:-/tmp}; 5 GB needs 5 GB free there and enough RAM to keep it in the
# page cache) and removed at the end. Each timing is the best of RUNS (default 3) runs; CPU time
# (user + sys, 1 ms steps, printed to the ms) is the least of them: on a loaded machine the
# wall time is mostly waiting for a core. NO_ZCUBEX=1 leaves out the ZCUBEX line. The load
# average is printed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
sizes=${SIZES:-10MB 100MB 1GB 5GB}
runs=${RUNS:-3}
source "$here/timing.sh"

gen=$build/cubekit
dump=$build/cube_dump
plain=$build/bench/cubekit_mmap_sum
for exe in "$gen" "$dump" "$plain"; do
  [[ -x $exe ]] || { echo "scaling.sh: $exe not found; build first" >&2; exit 1; }
done
reports=()
trap '[[ ${#reports[@]} -eq 0 ]] || rm -f "${reports[@]}"' EXIT

# Prints one markdown row for report $1 (label $2). MB/s counts the decoded metric data: the
# *.data members of a plain report, or $3 bytes (those of the same report uncompressed).
measure() {
  local r=$1 label=$2 size data plain_s t1 rss1 cpu1 t2 rss2 open_s open_rss
  size=$(stat -c %s "$r")
  data=${3:-$("$plain" "$r" | awk '{ print $4 }')}
  read -r plain_s _ plain_cpu < <(plain_pass "$runs" "$plain" "$r")
  read -r t1 rss1 cpu1 < <(CUBEKIT_THREADS=1 best_of "$runs" "$dump" -m all -z incl -t aggr "$r")
  read -r t2 rss2 cpu2 < <(CUBEKIT_THREADS=2 best_of "$runs" "$dump" -m all -z incl -t aggr "$r")
  read -r open_s open_rss _ < <(best_of "$runs" "$dump" -w "$r")
  awk -v label="$label" -v size="$size" -v data="$data" -v ps="$plain_s" -v t1="$t1" \
    -v c1="$cpu1" -v r1="$rss1" -v t2="$t2" -v r2="$rss2" -v os="$open_s" -v orss="$open_rss" \
    -v pc="$plain_cpu" -v c2="$cpu2" 'BEGIN {
      cpu_ratio = pc > 0 ? sprintf("%.2f×", c2 / pc) : "–"
      printf "| %s | %.0f | %.3f | %.3f | %.0f | %.3f | %.1f× | %.2f× | %.3f / %.3f s, %s | %.0f / %.0f | %.3f s, %.0f MB |\n",
        label, size / 1e6, ps, t1, data / 1e6 / t1, t2, t1 / t2, t2 / ps, pc, c2, cpu_ratio,
        r1 * 1024 / 1e6, r2 * 1024 / 1e6, os, orss * 1024 / 1e6 }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| report | file MB | plain pass s | dump 1 thread s | MB/s of data (1 thread) | dump 2 threads s | speedup | vs plain | CPU plain / dump 2 threads, ratio | peak RSS MB (1 / 2 threads) | open (-w) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
largest=""
for s in $sizes; do
  r=$out/cubekit-scaling-$s.$$.cubex
  reports+=("$r")
  "$gen" generate --size "$s" --call-paths 5000 -o "$r" >/dev/null
  measure "$r" "$s"
  largest=$s
  largest_data=$("$plain" "$r" | awk '{ print $4 }')
  [[ $s == "${sizes##* }" ]] || { rm -f "$r"; }
done
rm -f "${reports[@]}"
if [[ -n ${NO_ZCUBEX:-} ]]; then
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
r=$out/cubekit-scaling-$largest-z.$$.cubex
reports+=("$r")
"$gen" generate --size "$largest" --call-paths 5000 --compress -o "$r" >/dev/null
measure "$r" "$largest ZCUBEX" "$largest_data"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
