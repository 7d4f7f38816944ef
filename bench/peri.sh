#!/usr/bin/env bash
# The PERI-XML line of the README: export and import of a generated report
# (`cubekit generate --size S --call-paths 5000`) against one plain pass over the XML (reading
# it: cubekit_mmap_sum; writing a copy of it: dd), best of RUNS (2). "import vs read" is the
# ratio issue 30 sets a goal for (≤ 3×); the load average is printed below the table (on a
# shared machine wall times include waiting for a core).
#
#   bench/peri.sh [BUILD_DIR] [OUT_DIR]      (SIZE=100MB by default)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
runs=${RUNS:-2}
source "$here/timing.sh"
dir=$(mktemp -d "$out/cubekit-peri.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$build/cubekit" generate --size "${SIZE:-100MB}" --call-paths 5000 -o "$dir/r.cubex" >/dev/null
read -r te re _ < <(best_of "$runs" "$build/cubekit" export-peri -o "$dir/r.xml" "$dir/r.cubex")
read -r tr _ _ < <(plain_pass 3 "$build/bench/cubekit_mmap_sum" "$dir/r.xml")
read -r tw _ _ < <(best_of "$runs" dd if="$dir/r.xml" of="$dir/copy" bs=16M status=none)
rm -f "$dir/copy"
read -r ti ri _ < <(best_of "$runs" "$build/cubekit" import-peri -o "$dir/back.cubex" "$dir/r.xml")
awk -v rs="$(stat -c %s "$dir/r.cubex")" -v xs="$(stat -c %s "$dir/r.xml")" -v te="$te" \
  -v re="$re" -v tr="$tr" -v tw="$tw" -v ti="$ti" -v ri="$ri" 'BEGIN {
    printf "| report MB | XML MB | read XML s | write XML s | export s | import s | export vs write | import vs read | peak RSS MB (export / import) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    printf "| %.0f | %.0f | %.3f | %.3f | %.2f | %.2f | %.1f× | %.1f× | %.0f / %.0f |\n",
      rs / 1e6, xs / 1e6, tr, tw, te, ti, te / tw, ti / tr, re * 1024 / 1e6, ri * 1024 / 1e6 }'
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
