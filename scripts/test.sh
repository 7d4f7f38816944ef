#!/usr/bin/env bash
# The README's test command: sets up, checks the formatting, builds, and runs every test (gtest,
# pytest, the layer and install checks), the example job and the viewer in headless Chromium.
# The sanitizer builds (ASan + UBSan, TSan) and the fuzzers are scripts/sanitizers.sh, which
# .ci/run adds after this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# The gtest tests run as shards, a process each (tests/CMakeLists.txt says why); their JUnit
# files count them one by one at the end.
echo "== [${SECONDS} s] formatting (scripts/check_format.sh)"
bash scripts/check_format.sh
echo "== [${SECONDS} s] build (RelWithDebInfo)"
bash scripts/build.sh -DCUBEKIT_TEST_SHARDS=4
echo "== [${SECONDS} s] test"
rm -rf build/gtest build/pytest.xml
bash scripts/ctest_in_fresh_tmpdir.sh build
echo "== [${SECONDS} s] the README's main job (scripts/example.sh)"
bash scripts/example.sh >/dev/null

echo "== [${SECONDS} s] the viewer in headless Chromium (tests/browser)"
bash tests/browser/run.sh build

scripts/count_tests.py build
