#!/usr/bin/env bash
# Strong scaling of the tools that run as one MPI job (docs/mpi.md): the same work alone and
# under `mpirun --oversubscribe -np 1|2|4`, wall time (best of RUNS, default 1) and its ratio to
# the run alone, and whether the output is the same bytes.
#
#   bench/mpi_scaling.sh [BUILD_DIR] [OUT_DIR]
#
# REPORTS (default 256) reports written by `cubekit generate` (GEN_OPTIONS, default
# "--call-paths 1000 --nodes 1 --processes 16 --threads 4", about 4 MB each) into a fresh folder
# under OUT_DIR (default ${TMPDIR:-/tmp}), removed at the end:
#   cube_mean -o OUT (every report), cube_stat -% (every report),
#   cubekit model over a generated series on a 5 × 5 grid of two parameters, SERIES_REPS
#   (default 2) repetitions, 2 × SERIES_LAWS (default 60) call paths with known laws.
# One huge report (HUGE_SIZE, default 512M, as `cubekit generate --size` takes it, with
# HUGE_CALL_PATHS call paths, default 2000, so that the size comes from many locations; 0:
# none), split over the ranks by its locations: cube_dump -m all of it to a file (-o; with
# HUGE_STDOUT=1 also to standard output, compared by its SHA-256, not kept: under mpirun it
# passes through mpirun's forwarding of rank 0's output), cube_dump -m all -t aggr and
# cube_stat -% of it.
# More ranks than cores are oversubscribed: on a 2-core machine 4 ranks share 2 cores, so the
# best ratio there is about 2×.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/mpi-scaling.XXXXXX")
reports=${REPORTS:-256}
runs=${RUNS:-1}
gen_options=${GEN_OPTIONS:---call-paths 1000 --nodes 1 --processes 16 --threads 4}
source "$here/timing.sh"
trap 'rm -rf "$out"' EXIT
mpirun=$(command -v mpirun) || { echo "mpi_scaling.sh: no mpirun (openmpi-bin)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUBEKIT_PROGRESS=0
cd "$out"

# REPORTS=0: only the huge report.
inputs=()
for i in $(seq 1 "$reports"); do
  # shellcheck disable=SC2086
  "$build/cubekit" generate -o "r$i.cubex" --seed "$i" $gen_options >/dev/null
  inputs+=("r$i.cubex")
done
laws=()
for i in $(seq 1 "${SERIES_LAWS:-60}"); do
  laws+=(--law "main/solve$i:time=$i*x^1.5*y+2" --law "main/io$i:time=0.5*log2(x)+$i*y")
done
[ "$reports" -eq 0 ] || "$build/cubekit" generate --series series --points x=2,4,8,16,32 --points y=1,2,3,4,5 \
  --repetitions "${SERIES_REPS:-2}" --noise 0.05 --seed 5 "${laws[@]}" >/dev/null
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$reports" -eq 0 ] ||
  echo "$reports reports of $(du -sh --apparent-size r1.cubex | cut -f1) to $(du -ch --apparent-size r*.cubex | tail -1 | cut -f1) in all; series: $(find series -name '*.cubex' | wc -l) reports"
echo
echo "| work | ranks | wall s | CPU s | speed-up vs alone | same output |"
echo "|---|---|---|---|---|---|"

# row NAME OUTPUT CMD...: alone, then on 1, 2, 4 ranks. OUTPUT: a file the command writes
# (compared by its members' bytes for .cubex, by its SHA-256 otherwise, and removed after each
# run: a 5 GB report's dump is 22 GB of text), - for standard output, or # for standard output
# compared by its SHA-256 (output too large to keep). A written file is the timed run's own;
# standard output needs a second run (best_of discards it).
row() {
  local name=$1 output=$2
  shift 2
  local alone t rss cpu same
  read -r alone rss cpu < <(best_of "$runs" "$@")
  keep_output "$output" alone "$@"
  printf '| %s | alone | %.2f | %.2f | 1.00 | — |\n' "$name" "$alone" "$cpu"
  for np in 1 2 4; do
    read -r t rss cpu < <(best_of "$runs" "$mpirun" -q --oversubscribe -np $np "$@")
    keep_output "$output" ranks "$mpirun" -q --oversubscribe -np $np "$@"
    same=yes
    if [[ $output == *.cubex ]]; then
      python3 -c 'import sys, tarfile
def m(p):
    with tarfile.open(p) as t: return [(x.name, t.extractfile(x).read()) for x in t.getmembers()]
sys.exit(m(sys.argv[1]) != m(sys.argv[2]))' alone.out.cubex ranks.out.cubex || same=no
      rm -f ranks.out.cubex
    else
      cmp -s alone.out ranks.out || same=no
    fi
    printf '| %s | %d | %.2f | %.2f | %.2f | %s |\n' "$name" $np "$t" "$cpu" \
      "$(awk -v a="$alone" -v b="$t" 'BEGIN { print a / b }')" $same
  done
  rm -f alone.out alone.out.cubex ranks.out
}

# keep_output OUTPUT PREFIX CMD...: what the run just timed gave, as PREFIX.out (a SHA-256 for #
# and for written files other than .cubex, which stay as PREFIX.out.cubex).
keep_output() {
  local output=$1 prefix=$2
  shift 2
  case $output in
    -) "$@" >"$prefix.out" ;;
    "#") "$@" | sha256sum >"$prefix.out" ;;
    *.cubex) mv "$output" "$prefix.out.cubex" ;;
    *) sha256sum <"$output" >"$prefix.out" && rm -f "$output" ;;
  esac
}

huge_size=${HUGE_SIZE:-512M}
if [ "$huge_size" != 0 ]; then
  "$build/cubekit" generate -o huge.cubex --size "$huge_size" \
    --call-paths "${HUGE_CALL_PATHS:-2000}" --seed 9
  row "cube_dump -m all -o FILE of one $huge_size report" dump.txt "$build/cube_dump" -m all \
    -o dump.txt huge.cubex
  [ -z "${HUGE_STDOUT:-}" ] ||
    row "cube_dump -m all of it to standard output" "#" "$build/cube_dump" -m all huge.cubex
  row "cube_dump -m all -t aggr of it" - "$build/cube_dump" -m all -t aggr huge.cubex
  row "cube_stat -% of it" - "$build/cube_stat" -% huge.cubex
  rm -f huge.cubex
fi
[ "$reports" -gt 0 ] || exit 0
row "cube_mean of $reports reports" mean.cubex "$build/cube_mean" -o mean "${inputs[@]}"
row "cube_stat -% of $reports reports" - "$build/cube_stat" -% "${inputs[@]}"
row "cubekit model of the series" - "$build/cubekit" model -s csv series

# The measured parts of the model of the time on P nodes (docs/mpi.md): on one rank, the time
# reading and preparing the rows, and rank 0's adding and writing (the part no rank shares).
"$mpirun" -q -np 1 env CUBEKIT_MPI_TIMES=1 "$build/cube_mean" -o mean "${inputs[@]}" 2>&1 >/dev/null |
  grep '^MPI times'
echo "input: $(du -cb r*.cubex | tail -1 | cut -f1) bytes, output: $(stat -c %s mean.cubex) bytes"
