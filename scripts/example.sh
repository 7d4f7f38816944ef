#!/usr/bin/env bash
# The main job on an example profile cubekit makes itself: write a synthetic report (2,000 call
# paths, 64 locations, 6 metrics), show its structure and the inclusive time of its call paths.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p example
build/bench/cubekit_make_synthetic example/profile.cubex 2000 64 6
echo "== structure (metrics and system tree)"
build/cube_dump -w metrics example/profile.cubex
build/cube_dump -w systemtree example/profile.cubex | head -12
echo "== inclusive time of the top of the call tree, all locations summed"
build/cube_dump -m time0,visits0 -z incl -t aggr -c 'level<3' example/profile.cubex | head -40
