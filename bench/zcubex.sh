#!/usr/bin/env bash
# ZCUBEX (rows deflated one by one) against plain data, in one run (issue 30):
#   - a plain pass over the plain report (bench/cubekit_mmap_sum);
#   - `cube_dump -m all -z incl -t aggr` on one core of the plain report and of its ZCUBEX twin:
#     decoded GB/s per core end to end;
#   - `cubekit generate` plain and --compress: write GB/s per core end to end;
#   - the codecs alone on the same rows (bench/cubekit_zcubex_codecs): decode GB/s per core of
#     libdeflate, ISA-L and zlib, write GB/s and ratio of cubekit's writer vs zlib level 6;
#   - the ratios to the goals (decode >= 1.5 GB/s per core; write >= 0.5 GB/s per core at a
#     ratio within 10% of zlib level 6).
#
#   bench/zcubex.sh [BUILD_DIR] [SCRATCH_DIR]     (SIZE=300MB RUNS=3 by default)
#
# Reports come from `cubekit generate --size SIZE --call-paths 5000` into SCRATCH_DIR (default
# ${TMPDIR:-/tmp}) and are removed at the end. GB/s count uncompressed metric data (the *.data
# members of the plain report) per CPU second (user + sys, best of RUNS): on a shared machine
# CPU time is steadier than wall time, which also counts waiting for a core.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-${TMPDIR:-/tmp}}
size=${SIZE:-300MB}
runs=${RUNS:-3}
source "$here/timing.sh"

gen=$build/cubekit
dump=$build/cube_dump
plain=$build/bench/cubekit_mmap_sum
codecs=$build/bench/cubekit_zcubex_codecs
for exe in "$gen" "$dump" "$plain" "$codecs"; do
  [[ -x $exe ]] || { echo "zcubex.sh: $exe not found; build first" >&2; exit 1; }
done
p=$out/cubekit-zcubex-plain.$$.cubex
z=$out/cubekit-zcubex-z.$$.cubex
trap 'rm -f "$p" "$z"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
read -r _ _ gen_p_cpu < <(best_of "$runs" "$gen" generate --size "$size" --call-paths 5000 -o "$p")
read -r _ _ gen_z_cpu < <(best_of "$runs" "$gen" generate --size "$size" --call-paths 5000 --compress -o "$z")
data=$("$plain" "$p" | awk '{ print $4 }')
read -r pass_s _ _ < <(plain_pass "$runs" "$plain" "$p")
read -r _ _ dump_p_cpu < <(CUBEKIT_THREADS=1 best_of "$runs" "$dump" -m all -z incl -t aggr "$p")
read -r _ _ dump_z_cpu < <(CUBEKIT_THREADS=1 best_of "$runs" "$dump" -m all -z incl -t aggr "$z")
codec_out=$("$codecs" "$p" "$runs")
get() { awk -v k="$1" '$1 == k { print $2 }' <<<"$codec_out"; }

awk -v data="$data" -v file_p="$(stat -c %s "$p")" -v file_z="$(stat -c %s "$z")" \
  -v pass="$pass_s" -v dp="$dump_p_cpu" -v dz="$dump_z_cpu" -v gp="$gen_p_cpu" -v gz="$gen_z_cpu" \
  -v ld6="$(get read_libdeflate_of_zlib6_gbs)" -v is6="$(get read_isal_of_zlib6_gbs)" \
  -v zl6="$(get read_zlib_of_zlib6_gbs)" -v ldc="$(get read_libdeflate_of_cubekit_gbs)" \
  -v isc="$(get read_isal_of_cubekit_gbs)" -v zlc="$(get read_zlib_of_cubekit_gbs)" \
  -v wc="$(get write_cubekit_gbs)" -v wl="$(get write_libdeflate6_gbs)" \
  -v wz6="$(get write_zlib6_gbs)" -v wz1="$(get write_zlib1_gbs)" \
  -v rc="$(get ratio_cubekit)" -v rl="$(get ratio_libdeflate6)" -v rz6="$(get ratio_zlib6)" \
  -v rz1="$(get ratio_zlib1)" 'BEGIN {
    printf "report: %.0f MB of metric data, plain file %.0f MB, ZCUBEX file %.0f MB\n",
      data / 1e6, file_p / 1e6, file_z / 1e6
    printf "plain pass (mmap sum): %.3f s, %.2f GB/s\n", pass, file_p / pass / 1e9
    printf "cube_dump -m all -z incl -t aggr, 1 thread, CPU s: plain %.2f, ZCUBEX %.2f (%.2fx plain dump, %.1fx plain pass)\n",
      dp, dz, dz / dp, dz / pass
    printf "  ZCUBEX decoded end to end: %.3f GB/s per core\n", data / dz / 1e9
    printf "codecs alone, GB/s per core of decoded data (thread CPU time, best of runs):\n"
    printf "  decode rows zlib-6 wrote:    libdeflate %.3f  ISA-L %.3f  zlib %.3f  (ISA-L/libdeflate %.2f)\n",
      ld6, is6, zl6, is6 / ld6
    printf "  decode rows cubekit wrote:   libdeflate %.3f  ISA-L %.3f  zlib %.3f  (ISA-L/libdeflate %.2f)\n",
      ldc, isc, zlc, isc / ldc
    printf "  write: cubekit (ISA-L 1) %.3f GB/s ratio %.3f | libdeflate-6 %.3f ratio %.3f | zlib-6 %.3f ratio %.3f | zlib-1 %.3f ratio %.3f\n",
      wc, rc, wl, rl, wz6, rz6, wz1, rz1
    printf "  cubekit writer vs zlib-6: %.1fx faster, ratio %.1f%% of zlib-6'"'"'s\n", wc / wz6, 100 * rc / rz6
    printf "cubekit generate (values + writing), CPU s: plain %.2f, --compress %.2f: %.3f GB/s per core of input for the compression (whole program: %.3f)\n",
      gp, gz, data / (gz - gp) / 1e9, data / gz / 1e9
    printf "goals: decode %.2fx of 1.5 GB/s (codec alone %.2fx); write %.2fx of 0.5 GB/s (codec alone %.2fx); ratio %.3fx of 0.9 x zlib-6\n",
      data / dz / 1e9 / 1.5, ld6 / 1.5, data / (gz - gp) / 1e9 / 0.5, wc / 0.5, rc / rz6 / 0.9
  }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
