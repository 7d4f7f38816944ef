#!/usr/bin/env bash
# Reading one metric from Python (the table in docs/python.md):
#  1. a 40 MB ZCUBEX report from `cubekit generate --compress`: pyCubexR (pure Python, run from
#     its source folder with Debian's numpy) against cubekit.pycubexr and cubekit.open(...).stored;
#  2. an uncompressed report whose metric `time` holds about 1 GB: the metric as a numpy array
#     against one plain pass over its bytes.
#
#   bench/python_read.sh BUILD_DIR PYCUBEXR_SOURCE_DIR [OUT_DIR]
#
# PYCUBEXR_SOURCE_DIR: a checkout of https://github.com/extra-p/pycubexr (the folder holding
# the package `pycubexr`). Reports go to OUT_DIR (default ${TMPDIR:-/tmp}; about 4.5 GB) and
# are removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$1" && pwd)
pycubexr=$(cd "$2" && pwd)
out=${3:-${TMPDIR:-/tmp}}
python=${PYTHON:-/usr/bin/python3}
export PYTHONPATH=$build/python
small=$out/cubekit-python-40MB.$$.cubex
large=$out/cubekit-python-1GB.$$.cubex
trap 'rm -f "$small" "$large"' EXIT

"$build/cubekit" generate --compress --size 40MB -o "$small" >/dev/null  # rewritten with sparse indexes by python_read.py
echo "| report | pyCubexR | cubekit.pycubexr | cubekit.open().stored() |"
echo "|---|---:|---:|---:|"
"$python" "$here/python_read.py" compare "$small" time "$pycubexr"
rm -f "$small"

# 4 dense metrics of 8-byte values: a 4.3 GB report puts about 1 GB into `time`.
"$build/cubekit" generate --size 4300MB --call-paths 5000 -o "$large" >/dev/null
echo
echo "| report | plain pass over the metric's bytes | metric as numpy (open + stored) | ratio |"
echo "|---|---:|---:|---:|"
"$python" "$here/python_read.py" plain "$large" time
