#!/usr/bin/env bash
# The POP line of the README: `cube_pop_metrics` with each model on a generated report
# (`cubekit generate --size S --call-paths 5000`: MPI and OpenMP call paths, time and visits)
# against one plain pass over the same mapped bytes, both cores.
#
#   bench/pop.sh [BUILD_DIR] [OUT_DIR]      (SIZES="1GB" by default)
#
# Best of RUNS (3); the report is removed at the end.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
sizes=${SIZES:-1GB}
runs=${RUNS:-3}
source "$here/timing.sh"

plain=$build/bench/cubekit_mmap_sum
for exe in "$build/cubekit" "$plain" "$build/cube_pop_metrics"; do
  [[ -x $exe ]] || { echo "pop.sh: $exe not found; build first" >&2; exit 1; }
done
r=$(mktemp "$out/cubekit-pop.XXXXXX.cubex")
trap 'rm -f "$r"' EXIT

echo "| report | plain pass s | mpi s | hybrid-add s | hybrid-mult s | bsc s | worst vs plain | peak RSS MB (worst) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for s in $sizes; do
  "$build/cubekit" generate --size "$s" --call-paths 5000 -o "$r" >/dev/null
  read -r p _ _ < <(plain_pass "$runs" "$plain" "$r")
  row="| $s | $p"
  worst=0 rss_worst=0
  for model in mpi hybrid-add hybrid-mult bsc; do
    read -r t rss _ < <(best_of "$runs" "$build/cube_pop_metrics" -a "$model" "$r" 2>/dev/null)
    row="$row | $t"
    worst=$(awk -v a="$worst" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
    rss_worst=$(awk -v a="$rss_worst" -v b="$rss" 'BEGIN { print (b > a ? b : a) }')
  done
  awk -v row="$row" -v w="$worst" -v p="$p" -v r="$rss_worst" \
    'BEGIN { printf "%s | %.1f× | %.0f |\n", row, w / p, r * 1024 / 1e6 }'
done
