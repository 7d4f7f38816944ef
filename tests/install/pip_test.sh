#!/usr/bin/env bash
# `pip install .` works offline with Debian's build tools (docs/python.md): copies the files pip
# reads (pyproject.toml, setup.py, python/) into a fresh temporary folder, installs from there
# into a virtual environment that sees Debian's numpy, with no index and no build isolation
# (setuptools, wheel and pybind11 from Debian; CUBEKIT_BUILD_DIR=BUILD lets setup.py build the
# native module in this build folder instead of compiling the library again), then imports the
# installed package from outside the checkout and reads a report the build's `cubekit generate`
# wrote: the call paths and locations its options imply, the root's inclusive visits.
#   tests/install/pip_test.sh BUILD SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cubekit-pip-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "pip_test: $*" >&2
  exit 1
}

mkdir "$work/src"
cp "$source_dir/pyproject.toml" "$source_dir/setup.py" "$work/src/"
cp -r "$source_dir/python" "$work/src/python"
# Debian's pip, setuptools, wheel and numpy seen from the environment (no pip copied into it).
/usr/bin/python3 -m venv --without-pip --system-site-packages "$work/venv"
CUBEKIT_BUILD_DIR="$build" "$work/venv/bin/python" -m pip install --no-build-isolation --no-index \
  --no-cache-dir --quiet "$work/src" >"$work/pip.log" 2>&1 ||
  fail "pip install failed: $(cat "$work/pip.log")"

"$build/cubekit" generate --call-paths 60 --machines 1 --nodes 1 --processes 2 --threads 2 \
  -o "$work/generated.cubex" >/dev/null
cd "$work"  # not the checkout: the import must find the installed package
"$work/venv/bin/python" - "$work/generated.cubex" "$work/venv" <<'PY' || fail "the installed module"
import sys
import cubekit
assert cubekit.__file__.startswith(sys.argv[2]), f"imported {cubekit.__file__}, not the venv's"
with cubekit.open(sys.argv[1]) as report:
    assert len(report.cnodes) == 60, len(report.cnodes)
    assert len(report.locations) == 4, len(report.locations)
    # One root: its inclusive visits (the largest) are every call path's exclusive ones.
    exclusive = report.aggregated("visits", call_tree="excl")
    inclusive = report.aggregated("visits", call_tree="incl")
    assert len(report.cnode_roots) == 1 and exclusive.sum() > 0
    assert inclusive.max() == exclusive.sum(), (inclusive.max(), exclusive.sum())
PY
echo "pip_test: pip installed the package offline and it reads a report"
