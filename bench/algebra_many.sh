#!/usr/bin/env bash
# cube_mean and cube_merge of many inputs (issue 11: 100 inputs stream, memory for one
# metric, not for 100 reports): N copies of one generated report
# (`cubekit generate --size S --call-paths 3000`), the tools' wall time and peak RSS against
# one metric's data (call paths × locations × 8 bytes) and against all inputs together.
#
#   bench/algebra_many.sh [BUILD_DIR] [OUT_DIR]      (N=100, SIZE=20MB by default)
#
# Needs N × SIZE free in OUT_DIR (default ${TMPDIR:-/tmp}); everything is removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
n=${N:-100}
size=${SIZE:-20MB}
source "$here/timing.sh"
work=$(mktemp -d "$out/cubekit-algebra-many.XXXXXX")
trap 'rm -rf "$work"' EXIT
line=$("$build/cubekit" generate --size "$size" --call-paths 3000 -o "$work/r0.cubex")
metric_bytes=$(awk '{ print $2 * $5 * 8 }' <<<"$line")
inputs=("$work/r0.cubex")
for ((i = 1; i < n; ++i)); do
  cp "$work/r0.cubex" "$work/r$i.cubex"
  inputs+=("$work/r$i.cubex")
done
total=$(du -cb "${inputs[@]}" | tail -1 | cut -f1)
cd "$work"
read -r tm rm _ < <(best_of 1 "$build/cube_mean" -o mean "${inputs[@]}")
rm -f mean.cubex
read -r tg rg _ < <(best_of 1 "$build/cube_merge" -o merge "${inputs[@]}")
rm -f merge.cubex
awk -v n="$n" -v t="$total" -v m="$metric_bytes" -v tm="$tm" -v rm="$rm" -v tg="$tg" -v rg="$rg" 'BEGIN {
  printf "| inputs | all inputs MB | one metric MB | mean s | merge s | peak RSS MB (mean / merge) | RSS vs one metric (mean / merge) |\n|---:|---:|---:|---:|---:|---:|---:|\n"
  printf "| %d | %.0f | %.1f | %.2f | %.2f | %.0f / %.0f | %.1f× / %.1f× |\n", n, t / 1e6, m / 1e6, tm, tg,
    rm * 1024 / 1e6, rg * 1024 / 1e6, rm * 1024 / m, rg * 1024 / m }'
