#!/usr/bin/env bash
# Runs ctest in BUILD with a fresh temporary folder, which must be empty again at the end: tests
# leave nothing behind. Usage: ctest_in_fresh_tmpdir.sh BUILD [env VAR=value …]
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT  # also when ctest fails (set -e ends the script there)
TMPDIR=$tmp "${@:2}" ctest --test-dir "$build" --output-on-failure -j "$(nproc)" |
  tee "$build/ctest.log"
if [ -n "$(ls -A "$tmp")" ]; then
  echo "ctest_in_fresh_tmpdir.sh: the tests left files in the temporary folder:" >&2
  ls -A "$tmp" | head -n 20 >&2
  exit 1
fi
