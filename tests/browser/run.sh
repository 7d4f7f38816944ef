#!/usr/bin/env bash
# Runs the viewer's browser test (viewer_test.js) in headless Chromium against build/cubekit.
# Screenshots go to <build>/browser-screenshots. Without Chromium or ../shared it says so and
# skips, except under CI=true, where that is a failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-build}" && pwd)"
shared="$(cd "$here/../../.." && pwd)/shared"
missing=""
[ -x /usr/bin/chromium ] || missing="chromium (/usr/bin/chromium)"
[ -d "$shared/data/real" ] || missing="${missing:+$missing, }../shared"
command -v node >/dev/null || missing="${missing:+$missing, }node"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then echo "browser test: missing $missing under CI" >&2; exit 1; fi
  echo "browser test skipped: missing $missing"
  exit 0
fi
cd "$here"
npm ci --no-audit --no-fund --silent
node viewer_test.js "$build/cubekit" "$shared" "$build/browser-screenshots"
