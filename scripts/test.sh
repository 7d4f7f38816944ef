#!/usr/bin/env bash
# Sets up, builds and runs every test: the normal build, then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, then each fuzzer for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)

# Tests must leave nothing behind: each ctest run gets a fresh temporary folder, which has to
# be empty again when the run ends.
ctest_in_fresh_tmpdir() {
  local build=$1 tmp
  tmp=$(mktemp -d)
  TMPDIR=$tmp "${@:2}" ctest --test-dir "$build" --output-on-failure -j "$jobs" |
    tee "$build/ctest.log"
  if [ -n "$(ls -A "$tmp")" ]; then
    echo "test.sh: the tests left files in the temporary folder:" >&2
    ls -A "$tmp" | head -n 20 >&2
    rm -rf "$tmp"
    exit 1
  fi
  rmdir "$tmp"
}

echo "== build and test (RelWithDebInfo)"
bash scripts/build.sh
ctest_in_fresh_tmpdir build
echo "== the README's main job (scripts/example.sh)"
bash scripts/example.sh >/dev/null

echo "== the viewer in headless Chromium (tests/browser)"
bash tests/browser/run.sh build

# The Python tests (pytest, registered in ctest as python_tests) are not in this build: the
# sanitizer runtime would have to be loaded before the interpreter (CMakeLists.txt leaves the
# Python package out when CUBEKIT_SANITIZE is on).
echo "== build and test under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUBEKIT_SANITIZE=ON \
  -DCUBEKIT_BENCH=OFF >/dev/null
ninja -C build-asan
ctest_in_fresh_tmpdir build-asan env ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if [ -f tests/fuzz/run_fuzzers.sh ]; then
  echo "== fuzz the readers (${CUBEKIT_FUZZ_SECONDS:-100} s each)"
  CXX=clang++ CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCUBEKIT_FUZZ=ON -DCUBEKIT_SANITIZE=ON -DCUBEKIT_TESTS=OFF -DCUBEKIT_BENCH=OFF >/dev/null
  ninja -C build-fuzz
  bash tests/fuzz/run_fuzzers.sh build-fuzz "${CUBEKIT_FUZZ_SECONDS:-100}"
fi

# One closing line for whoever reads the log (the fuzzers' statistics come last otherwise).
# ctest counts the whole pytest run as one test (python_tests); count its tests one by one.
total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' build/ctest.log | tail -n1)
if [ -f build/pytest.xml ]; then
  python_tests=$(/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot(); s = r if r.tag == "testsuite" else r[0]
print(int(s.get("tests")) - int(s.get("skipped")))' build/pytest.xml)
  total=$((total - 1 + python_tests))
fi
echo "tests: ${total} passed, 0 failed"
