#!/usr/bin/env bash
# The viewer's line of the README: first paint and later clicks of `cubekit serve`'s viewer in
# headless Chromium on a generated report (`cubekit generate --size S --call-paths N`).
#
#   bench/viewer_paint.sh [BUILD_DIR] [OUT_DIR]      (SIZE=1GB, CALL_PATHS=5000 by default;
#                                                     issue 27's check: SIZE=100MB CALL_PATHS=100000)
#
# Needs Debian's chromium and the browser test's node_modules (`npm ci` in tests/browser, which
# tests/browser/run.sh does). A second report of the same size (seed 2) is what the diff tab and
# external percent compare with. The reports are removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
dir=$(mktemp -d "$out/cubekit-viewer.XXXXXX")
trap 'rm -rf "$dir"' EXIT
[[ -d $here/../tests/browser/node_modules ]] || (cd "$here/../tests/browser" && npm ci --no-audit --no-fund --silent)
"$build/cubekit" generate --size "${SIZE:-1GB}" --call-paths "${CALL_PATHS:-5000}" -o "$dir/report.cubex" >/dev/null
"$build/cubekit" generate --size "${SIZE:-1GB}" --call-paths "${CALL_PATHS:-5000}" --seed 2 -o "$dir/second.cubex" >/dev/null
node "$here/viewer_paint.js" "$build/cubekit" "$dir/report.cubex" "$dir/second.cubex"
