#!/usr/bin/env bash
# The main job on an example profile cubekit makes itself: generate a Score-P-like report (2,000
# call paths, 2 machines × 2 nodes × 4 MPI ranks × 4 threads, PAPI counters, seed 1), show its
# structure, the hottest call paths near the root and the leaves with the most exclusive time.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p example
build/cubekit generate --seed 1 --call-paths 2000 --machines 2 --nodes 2 --processes 4 \
  --threads 4 --papi -o example/profile.cubex
echo "== structure (metrics and system tree)"
build/cube_dump -w metrics example/profile.cubex
build/cube_dump -w systemtree example/profile.cubex | sed -n 1,12p
# Value lines read "name(id=N)   value": sort on what follows the ')'.
hottest() { tail -n +6 | sort -t')' -k2 -g -r | sed -n "1,$1p"; }
echo "== hottest call paths of the top three levels: inclusive time, all locations summed"
build/cube_dump -m time -z incl -t aggr -c 'level<3' example/profile.cubex | hottest 15
echo "== leaves with the most exclusive time"
build/cube_dump -m time -z excl -t aggr -c leafs example/profile.cubex | hottest 15
