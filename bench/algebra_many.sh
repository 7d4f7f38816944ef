#!/usr/bin/env bash
# cube_mean and cube_merge of many inputs (issue 11: 100 inputs stream, memory for one
# metric, not for 100 reports): N copies of one generated report
# (`cubekit generate --size S --call-paths 3000`), the tools' wall time and peak RSS against
# one metric's data (call paths × locations × 8 bytes) and against all inputs together; and the
# wall and CPU time (user + sys) against the physical work: one plain pass over every input plus
# writing one input's bytes with fsync (dd). Issue 30's row: N=16 SIZE=400MB.
#
#   bench/algebra_many.sh [BUILD_DIR] [OUT_DIR]      (N=100, SIZE=20MB, RUNS=1 by default)
#
# Needs N × SIZE free in OUT_DIR (default ${TMPDIR:-/tmp}); everything is removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
n=${N:-100}
size=${SIZE:-20MB}
runs=${RUNS:-1}
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
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The physical work, in the same run: each input read once (best of RUNS each), one written.
tp=0 cp=0
for input in "${inputs[@]}"; do
  read -r t _ c < <(plain_pass "$runs" "$build/bench/cubekit_mmap_sum" "$input")
  read -r tp cp < <(awk -v a="$tp" -v b="$t" -v x="$cp" -v y="$c" 'BEGIN { print a + b, x + y }')
done
read -r tw _ cw < <(best_of "$runs" dd if="$work/r0.cubex" of="$work/w.bin" bs=16M conv=fsync status=none)
rm -f w.bin
read -r tm rm cm < <(best_of "$runs" "$build/cube_mean" -o mean "${inputs[@]}")
rm -f mean.cubex
read -r tg rg cg < <(best_of "$runs" "$build/cube_merge" -o merge "${inputs[@]}")
rm -f merge.cubex
awk -v n="$n" -v t="$total" -v m="$metric_bytes" -v tm="$tm" -v rm="$rm" -v tg="$tg" -v rg="$rg" \
  -v phys="$(awk -v a="$tp" -v b="$tw" 'BEGIN { print a + b }')" \
  -v cphys="$(awk -v a="$cp" -v b="$cw" 'BEGIN { print a + b }')" -v cm="$cm" -v cg="$cg" 'BEGIN {
  printf "| inputs | all inputs MB | one metric MB | physical work s | mean s | merge s | vs physical (mean / merge) | CPU s physical / mean / merge | CPU vs physical (mean / merge) | peak RSS MB (mean / merge) | RSS vs one metric (mean / merge) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
  printf "| %d | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f× / %.2f× | %.2f / %.2f / %.2f | %.2f× / %.2f× | %.0f / %.0f | %.1f× / %.1f× |\n",
    n, t / 1e6, m / 1e6, phys, tm, tg, tm / phys, tg / phys, cphys, cm, cg, cm / cphys, cg / cphys,
    rm * 1024 / 1e6, rg * 1024 / 1e6, rm * 1024 / m, rg * 1024 / m }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
