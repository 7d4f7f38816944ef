#!/usr/bin/env bash
# Fails when a C++ file git tracks is not as clang-format (.clang-format) writes it, and names
# the files: the code is kept formatted, so a diff shows changes, not layout.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
clang-format --dry-run -Werror "${files[@]}"
