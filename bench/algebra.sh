#!/usr/bin/env bash
# The report algebra table of the README: `cube_diff`, `cube_merge` and `cube_mean` of two
# reports of the same structure (`cubekit generate --size S --call-paths 3000`, written twice:
# the tools do the same work whatever the values), against the physical work: one plain pass
# over both inputs plus writing an output of the input's size with fsync. Also the tools'
# peak RSS against one metric's data (call paths × locations × 8 bytes). CPU time (user + sys,
# least of the runs) is printed beside the wall time: on a loaded machine the wall time is mostly
# waiting for a core, and the CPU ratio is the steadier one. The load average before and after
# is printed too.
#
#   bench/algebra.sh [BUILD_DIR] [OUT_DIR]      (SIZES="10MB 335MB 1GB 5GB" by default)
#
# Reports go to OUT_DIR (default ${TMPDIR:-/tmp}; 5 GB needs about 16 GB free there and the
# RAM to keep the inputs in the page cache) and are removed at the end. Best of RUNS (3).
# CALL_PATHS (3000) sets the call tree's size; CALL_PATHS=auto lets `generate --size` pick it
# (382,000 call paths and 64,000 regions at 400MB: the unification of the definitions then
# weighs, docs/benchmarks.md).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
sizes=${SIZES:-10MB 335MB 1GB 5GB}
runs=${RUNS:-3}
source "$here/timing.sh"

gen=$build/cubekit
plain=$build/bench/cubekit_mmap_sum
for exe in "$gen" "$plain" "$build/cube_diff" "$build/cube_merge" "$build/cube_mean"; do
  [[ -x $exe ]] || { echo "algebra.sh: $exe not found; build first" >&2; exit 1; }
done
work=$(mktemp -d "$out/cubekit-algebra.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| inputs | file MB (each) | one metric MB | physical work s | diff s | merge s | mean s | vs physical (diff / merge / mean) | CPU s physical / diff / merge / mean | CPU vs physical | peak RSS MB (diff / merge / mean) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for s in $sizes; do
  a=$work/a.cubex b=$work/b.cubex
  call_paths=(--call-paths "${CALL_PATHS:-3000}")
  [[ ${CALL_PATHS:-3000} == auto ]] && call_paths=()
  line=$("$gen" generate --size "$s" "${call_paths[@]}" -o "$a")
  cp "$a" "$b"
  # "a.cubex: 3000 call paths, 4096 locations, ..." gives one metric's size.
  metric_bytes=$(awk '{ print $2 * $5 * 8 }' <<<"$line")
  read -r pa _ ca < <(plain_pass "$runs" "$plain" "$a")
  read -r pb _ cb < <(plain_pass "$runs" "$plain" "$b")
  read -r pw _ cw < <(best_of "$runs" dd if="$a" of="$work/w.bin" bs=16M conv=fsync status=none)
  rm -f "$work/w.bin"
  declare -A t rss cpu
  for tool in diff merge mean; do
    read -r t[$tool] rss[$tool] cpu[$tool] < <(best_of "$runs" "$build/cube_$tool" -o "$work/out" "$a" "$b")
    rm -f "$work/out.cubex"
  done
  awk -v s="$s" -v size="$(stat -c %s "$a")" -v m="$metric_bytes" -v pa="$pa" -v pb="$pb" \
    -v pw="$pw" -v td="${t[diff]}" -v tg="${t[merge]}" -v tm="${t[mean]}" \
    -v rd="${rss[diff]}" -v rg="${rss[merge]}" -v rm="${rss[mean]}" -v ca="$ca" -v cb="$cb" \
    -v cw="$cw" -v cd="${cpu[diff]}" -v cg="${cpu[merge]}" -v cm="${cpu[mean]}" 'BEGIN {
      phys = pa + pb + pw
      cphys = ca + cb + cw
      printf "| %s | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.2f× / %.2f× / %.2f× | %.2f / %.2f / %.2f / %.2f | %.2f× / %.2f× / %.2f× | %.0f / %.0f / %.0f |\n",
        s, size / 1e6, m / 1e6, phys, td, tg, tm, td / phys, tg / phys, tm / phys,
        cphys, cd, cg, cm, cd / cphys, cg / cphys, cm / cphys,
        rd * 1024 / 1e6, rg * 1024 / 1e6, rm * 1024 / 1e6 }'
  rm -f "$a" "$b"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
