#!/usr/bin/env bash
# End-to-end timing of `cube_dump -m all -z incl -t aggr` (decode every metric, aggregate over
# locations, inclusive call-tree values) against a plain pass over the same file.
#
#   bench/e2e.sh [--synthetic] [BUILD_DIR] [REPORT...]
#
# BUILD_DIR defaults to ./build (it must hold cube_dump and bench/cubekit_{mmap_sum,
# make_synthetic}). Without REPORTs: the largest .cubex under ../shared/data/real.
# --synthetic: also generate reports of ~10, ~100 and ~500 MB in /tmp (removed afterwards).
#
# Each program runs 3 times; the best wall time is kept (so the file is in the page cache:
# this measures decoding, not the disk). Wall time comes from bash's EPOCHREALTIME around the
# run (microseconds; /usr/bin/time's %e has only 10 ms resolution), peak RSS from
# /usr/bin/time -f %M. The ratio is dump time / plain-pass time; the target is at most 3.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
synthetic=0
if [[ ${1:-} == --synthetic ]]; then
  synthetic=1
  shift
fi
build=${1:-$here/../build}
[[ $# -gt 0 ]] && shift
dump=$build/cube_dump
plain=$build/bench/cubekit_mmap_sum
gen=$build/bench/cubekit_make_synthetic
for exe in "$dump" "$plain"; do
  [[ -x $exe ]] || { echo "e2e.sh: $exe not found; build first (ninja -C $build)" >&2; exit 1; }
done
if ! command -v /usr/bin/time >/dev/null; then
  echo "e2e.sh: /usr/bin/time missing (Debian package 'time'); peak RSS not measured" >&2
  have_time=0
else
  have_time=1
fi

reports=("$@")
tmp_reports=()
cleanup() { [[ ${#tmp_reports[@]} -eq 0 ]] || rm -f "${tmp_reports[@]}"; }
trap cleanup EXIT

if [[ $synthetic -eq 1 ]]; then
  [[ -x $gen ]] || { echo "e2e.sh: $gen not found" >&2; exit 1; }
  # CNODES LOCATIONS METRICS: 4 metrics × C × L × 8 bytes ≈ 10, 100, 500 MB of metric data.
  for shape in "2000 160 4" "5000 640 4" "8000 2048 4"; do
    read -r c l m <<<"$shape"
    out=/tmp/cubekit_synthetic_${c}x${l}x${m}.cubex
    tmp_reports+=("$out")
    "$gen" "$out" "$c" "$l" "$m" >/dev/null
    reports+=("$out")
  done
elif [[ ${#reports[@]} -eq 0 ]]; then
  real=$here/../../shared/data/real
  largest=$(find "$real" -type f -name '*.cubex' -printf '%s %p\n' 2>/dev/null |
    sort -n | tail -1 | cut -d' ' -f2-)
  if [[ -z $largest ]]; then
    echo "e2e.sh: no .cubex under $real; pass REPORTs or --synthetic" >&2
    exit 1
  fi
  reports=("$largest")
fi

source "$here/timing.sh"
best_of_3() { best_of 3 "$@"; }

printf '%-38s %7s %7s %7s %9s %7s %7s %7s %10s %5s %7s\n' report 'file MB' 'data MB' \
  'dump s' 'data MB/s' 'RSS MB' 'cpu s' 'plain s' 'plain GB/s' ratio 'cpu rat'
for r in "${reports[@]}"; do
  size=$(stat -c %s "$r")
  data=$("$plain" "$r" | awk '{ print $4 }')
  read -r dump_s dump_kib dump_cpu < <(best_of_3 "$dump" -m all -z incl -t aggr "$r")
  read -r plain_s _ plain_cpu < <(plain_pass 3 "$plain" "$r")
  awk -v name="$(basename "$r")" -v size="$size" -v data="$data" -v ds="$dump_s" \
    -v kib="$dump_kib" -v dc="$dump_cpu" -v ps="$plain_s" -v pc="$plain_cpu" 'BEGIN {
    cpu_ratio = pc > 0 ? sprintf("%.1f", dc / pc) : "-"
    printf "%-38s %7.1f %7.1f %7.3f %9.0f %7.1f %7.2f %7.4f %10.2f %5.1f %7s\n", name,
      size / 1e6, data / 1e6, ds, data / 1e6 / ds, kib * 1024 / 1e6, dc, ps, size / 1e9 / ps,
      ds / ps, cpu_ratio }'
done
