#!/usr/bin/env bash
# Opening a report whose anchor has 1,000,000 locations and 100,000 call paths (issue 5: at
# most 2 s and at most 4× the anchor's size in memory). The report is written by
# `cubekit generate --definitions-only` (trees only, no values) and removed afterwards.
#
#   bench/open_anchor.sh [BUILD_DIR] [OUT_DIR]
#
# 1 machine × 1,000 nodes × 250 ranks × 4 threads = 1,000,000 locations. Prints the anchor's
# size, the best of 3 opening times (wall, as measured inside the program, and of the whole
# process) and the peak RSS of that run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
source "$here/timing.sh"
report=$out/cubekit-open-anchor.$$.cubex
trap 'rm -f "$report"' EXIT
"$build/cubekit" generate --definitions-only --call-paths 100000 --machines 1 --nodes 1000 \
  --processes 250 --threads 4 -o "$report" >/dev/null
anchor=$(tar tvf "$report" anchor.xml | awk '{ print $3 }')
read -r open_s cnodes locations < <("$build/bench/cubekit_open_report" "$report")
read -r wall kib cpu < <(best_of 3 "$build/bench/cubekit_open_report" "$report")
awk -v a="$anchor" -v o="$open_s" -v w="$wall" -v k="$kib" -v c="$cpu" -v cn="$cnodes" \
  -v l="$locations" 'BEGIN {
  printf "anchor %.1f MB (%d call paths, %d locations): open %.2f s (process %.2f s wall, %.2f s CPU), peak RSS %.0f MB = %.1f× the anchor\n",
    a / 1e6, cn, l, o, w, c, k * 1024 / 1e6, k * 1024 / a }'
