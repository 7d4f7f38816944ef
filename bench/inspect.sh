#!/usr/bin/env bash
# The inspection tools' line of the README: `cube_stat` and `cube_calltree` on a generated
# report (`cubekit generate --size S --call-paths 5000`) against one plain pass over the same
# mapped bytes, on both cores.
#
#   bench/inspect.sh [BUILD_DIR] [OUT_DIR]      (SIZES="1GB" by default)
#
# Commands timed: `cube_stat -p -m time,visits` (per-location statistics of two metrics),
# `cube_stat -t 20` (the 20 most expensive regions), `cube_calltree -m time -i` (the call tree
# with inclusive times). Best of RUNS (3); the report is removed at the end.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
sizes=${SIZES:-1GB}
runs=${RUNS:-3}
source "$here/timing.sh"

plain=$build/bench/cubekit_mmap_sum
for exe in "$build/cubekit" "$plain" "$build/cube_stat" "$build/cube_calltree"; do
  [[ -x $exe ]] || { echo "inspect.sh: $exe not found; build first" >&2; exit 1; }
done
r=$(mktemp "$out/cubekit-inspect.XXXXXX.cubex")
trap 'rm -f "$r"' EXIT

echo "| report | plain pass s | cube_stat -p -m time,visits s | cube_stat -t 20 s | cube_calltree -m time -i s | worst vs plain | peak RSS MB (stat -p / stat -t / calltree) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for s in $sizes; do
  "$build/cubekit" generate --size "$s" --call-paths 5000 -o "$r" >/dev/null
  read -r p _ _ < <(plain_pass "$runs" "$plain" "$r")
  read -r t1 r1 _ < <(best_of "$runs" "$build/cube_stat" -p -m time,visits "$r" 2>/dev/null)
  read -r t2 r2 _ < <(best_of "$runs" "$build/cube_stat" -t 20 "$r" 2>/dev/null)
  read -r t3 r3 _ < <(best_of "$runs" "$build/cube_calltree" -m time -i "$r" 2>/dev/null)
  awk -v s="$s" -v p="$p" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v r1="$r1" -v r2="$r2" \
    -v r3="$r3" 'BEGIN {
      w = t1; if (t2 > w) w = t2; if (t3 > w) w = t3
      printf "| %s | %.3f | %.3f | %.3f | %.3f | %.1f× | %.0f / %.0f / %.0f |\n", s, p, t1, t2, t3,
        w / p, r1 * 1024 / 1e6, r2 * 1024 / 1e6, r3 * 1024 / 1e6 }'
done
