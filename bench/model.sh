#!/usr/bin/env bash
# The model line of the README: `cubekit model` against Extra-P (`extrapcmd --cube`) on the
# same series of 10 generated reports, 5 points × 2 repetitions: p = 16, 24, 32, 64, 128
# locations (`cubekit generate --call-paths 2000 --nodes 1 --processes p/4 --threads 4`, the
# generator's 6 metrics; the call tree depends on the seed only, so every report has the same
# 2,000 call paths; the second repetition differs in which call paths send bytes, --sparsity).
# cubekit: best of RUNS (3); Extra-P: once (minutes). Prints both times and the ratios (wall
# and CPU: cubekit uses every core, Extra-P one; it models only the exclusive values, cubekit both).
#
#   bench/model.sh [BUILD_DIR] [OUT_DIR]
#   EXTRAP=/path/to/extrap-checkout  (the folder holding the extrap package; default
#   /work/extrap-oracle/extrap), PYCUBEXR=folder with pycubexr (/work/extrap-oracle/pyc),
#   PYTHON=python with numpy, scipy, marshmallow, tqdm (/usr/bin/python3); EXTRAP_RUN=0 skips it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
runs=${RUNS:-3}
extrap=${EXTRAP:-/work/extrap-oracle/extrap}
pycubexr=${PYCUBEXR:-/work/extrap-oracle/pyc}
python=${PYTHON:-/usr/bin/python3}
source "$here/timing.sh"
dir=$(mktemp -d "$out/cubekit-model.XXXXXX")
trap 'rm -rf "$dir"' EXIT
for p in 16 24 32 64 128; do
  for r in 1 2; do
    sparsity=$([[ $r == 1 ]] && echo 0.25 || echo 0.4)
    mkdir -p "$dir/series/exp.p$p.r$r"
    "$build/cubekit" generate --call-paths 2000 --nodes 1 --processes $((p / 4)) --threads 4 \
      --sparsity "$sparsity" -o "$dir/series/exp.p$p.r$r/profile.cubex" >/dev/null
  done
done
bytes=$(du -cb "$dir"/series/*/profile.cubex | tail -1 | cut -f1)
read -r tc rc cc < <(best_of "$runs" "$build/cubekit" model -s csv "$dir/series")
models=$("$build/cubekit" model -s csv "$dir/series" 2>/dev/null | tail -n +2 | wc -l)
te=""
if [[ ${EXTRAP_RUN:-1} != 0 ]]; then
  read -r te re ce < <(PYTHONPATH="$extrap:$pycubexr" best_of 1 "$python" -m extrap.extrap.extrapcmd \
    --cube "$dir/series" --print functions --disable-progress)
fi
awk -v mb="$bytes" -v tc="$tc" -v rc="$rc" -v cc="$cc" -v n="$models" -v te="$te" -v re="${re:-0}" \
  -v ce="${ce:-0}" 'BEGIN {
    printf "series: 10 reports, %.1f MB; cubekit: %d models (incl and excl)\n", mb / 1e6, n
    printf "cubekit model: %.2f s wall, %.2f s CPU, %.0f MB peak RSS (best of runs)\n", tc, cc, rc * 1024 / 1e6
    if (te != "") {
      printf "Extra-P --cube: %.1f s wall, %.1f s CPU, %.0f MB peak RSS (exclusive models only)\n", te, ce, re * 1024 / 1e6
      printf "ratio: %.0fx wall, %.0fx CPU (on a busy machine the CPU ratio is the steadier one)\n", te / tc, ce / cc
    } }'
