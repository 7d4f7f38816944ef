#!/usr/bin/env bash
# Before/after of `cube_mean` in the same rounds (issue 30's row "also with 16 inputs"): two
# builds (BASE, NEW) alternate on N copies of one generated report (`cubekit generate --size S
# --call-paths 3000`), each round also measuring the physical work of each N (a plain pass over
# every input, `cubekit_mmap_sum`, plus writing one input's bytes with fsync, `dd`), so each
# ratio has its denominator from the same minutes of a shared machine. Prints per round and N the
# wall and CPU time (user + sys) of the physical work and of both builds, their ratios, peak RSS,
# the load average, and whether the two builds wrote the same members (names, sizes, bytes; the
# tar headers hold the time of writing). Which build runs first alternates from round to round.
#
#   bench/mean_ab.sh BASE_BUILD NEW_BUILD [OUT_DIR]     (NS="2 16" SIZE=400MB ROUNDS=3)
#
# Needs max(NS) × SIZE free in OUT_DIR (default ${TMPDIR:-/tmp}) plus two outputs; everything is
# removed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
base=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
out=${3:-${TMPDIR:-/tmp}}
ns=${NS:-2 16}
size=${SIZE:-400MB}
rounds=${ROUNDS:-3}
source "$here/timing.sh"
for exe in "$base/cube_mean" "$new/cube_mean" "$new/cubekit" "$new/bench/cubekit_mmap_sum"; do
  [[ -x $exe ]] || { echo "mean_ab.sh: $exe not found; build first" >&2; exit 1; }
done
work=$(mktemp -d "$out/cubekit-mean-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$new/cubekit" generate --size "$size" --call-paths 3000 -o "$work/r0.cubex" >/dev/null
most=$(tr ' ' '\n' <<<"$ns" | sort -n | tail -1)
for ((i = 1; i < most; ++i)); do cp "$work/r0.cubex" "$work/r$i.cubex"; done

# The members of a report without the tar headers' time stamps.
same_members() {
  cmp -s <(tar -tvf "$1" | awk '{ print $3, $6 }') <(tar -tvf "$2" | awk '{ print $3, $6 }') &&
    cmp -s <(tar -xOf "$1") <(tar -xOf "$2")
}

echo "| round | inputs | load (1 min) | physical s (CPU) | before s (CPU) | after s (CPU) | before / after vs physical, wall | CPU | peak RSS MB before / after | same bytes |"
echo "|---:|---:|---|---|---|---|---|---|---|---|"
for ((r = 1; r <= rounds; ++r)); do
  for n in $ns; do
    inputs=()
    for ((i = 0; i < n; ++i)); do inputs+=("$work/r$i.cubex"); done
    load=$(cut -d' ' -f1 /proc/loadavg)
    tp=0 cp=0
    for input in "${inputs[@]}"; do
      read -r t _ c < <(plain_pass 1 "$new/bench/cubekit_mmap_sum" "$input")
      read -r tp cp < <(awk -v a="$tp" -v b="$t" -v x="$cp" -v y="$c" 'BEGIN { print a + b, x + y }')
    done
    read -r tw _ cw < <(best_of 1 dd if="$work/r0.cubex" of="$work/w.bin" bs=16M conv=fsync status=none)
    rm -f "$work/w.bin"
    # Which build runs first alternates from round to round (the one after the other finds the
    # other's output being written back by the kernel).
    if ((r % 2)); then
      read -r tb rb cb < <(best_of 1 "$base/cube_mean" -o "$work/before" "${inputs[@]}")
      read -r ta ra ca < <(best_of 1 "$new/cube_mean" -o "$work/after" "${inputs[@]}")
    else
      read -r ta ra ca < <(best_of 1 "$new/cube_mean" -o "$work/after" "${inputs[@]}")
      read -r tb rb cb < <(best_of 1 "$base/cube_mean" -o "$work/before" "${inputs[@]}")
    fi
    same=no
    same_members "$work/before.cubex" "$work/after.cubex" && same=yes
    rm -f "$work/before.cubex" "$work/after.cubex"
    awk -v r="$r" -v n="$n" -v load="$load" -v tp="$tp" -v cp="$cp" -v tw="$tw" -v cw="$cw" \
      -v tb="$tb" -v cb="$cb" -v ta="$ta" -v ca="$ca" -v rb="$rb" -v ra="$ra" -v same="$same" 'BEGIN {
      p = tp + tw; c = cp + cw
      printf "| %d | %d | %s | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | %.2f× / %.2f× | %.2f× / %.2f× | %.0f / %.0f | %s |\n",
        r, n, load, p, c, tb, cb, ta, ca, tb / p, ta / p, cb / c, ca / c, rb * 1024 / 1e6,
        ra * 1024 / 1e6, same }'
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
