#!/usr/bin/env bash
# The CubePL row of the README's performance table (issue 30): values per second per core of
# `metric::time(e) / metric::visits(e)` over every call path and location of a generated report
# (2,000 call paths × 256 locations), of Score-P's scorep.spec hierarchy over the same report,
# and of a plain pass summing the same stored rows (time and visits), all in one run; the ratio
# says how many plain passes the CubePL evaluation costs. Best of RUNS (5) repetitions each;
# one thread, CPU time (so "per core"), with the load average beside it (the figures of a
# shared machine are noisy: compare the ratios of one run).
#
#   bench/cubepl.sh [BUILD_DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
runs=${RUNS:-5}
bench=$build/bench/cubekit_bench
[[ -x $bench ]] || { echo "cubepl.sh: $bench not found; build cubekit_bench first" >&2; exit 1; }

json=$(mktemp "${TMPDIR:-/tmp}/cubekit-cubepl.XXXXXX")
trap 'rm -f "$json"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$bench" --benchmark_filter='PrederivedRatio|PlainRowPass|ScorepSpecHierarchy' \
  --benchmark_repetitions="$runs" --benchmark_format=json >"$json"
echo "load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg); best of $runs"
python3 - "$json" <<'EOF'
import json, sys
best = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") != "iteration" or "error_occurred" in b:
        continue
    name = b["run_name"].removeprefix("BM_")
    best[name] = max(best.get(name, 0), b["items_per_second"])
plain = best.get("PlainRowPass")
for name, label in [("PrederivedRatio", "time(e) / visits(e)"),
                    ("ScorepSpecHierarchy", "scorep.spec (48 derived metrics)"),
                    ("PlainRowPass", "plain pass over time + visits rows")]:
    if name not in best:
        print(f"{label}: not run (see the benchmark's message)")
        continue
    line = f"{label}: {best[name] / 1e6:.0f} M values/s per core"
    if plain and name != "PlainRowPass":
        line += f", {plain / best[name]:.2f}x the plain pass"
    print(line)
EOF
