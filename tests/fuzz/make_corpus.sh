#!/usr/bin/env bash
# Builds seed corpora for the fuzzers from the real reports in ../shared/data/real (or $2):
#   CORPUS/tar          whole .cubex archives (up to 256 KiB)
#   CORPUS/anchor       anchor.xml members (gunzipped)
#   CORPUS/metric_data  4 selector bytes (see fuzz_metric_data.cpp) + <id>.index + <id>.data
#   CORPUS/cube3        Cube 3 documents, plain and gzip-compressed
#   CORPUS/cubepl       CubePL expressions of the remap .spec files
#   CORPUS/spec         the remap .spec files themselves
#   CORPUS/peri         PERI-XML documents (the project's own, tests/data, and, when CUBEKIT
#                       names the cubekit executable, the exports of the small real reports)
#   CORPUS/series_names experiment folder names in Extra-P's layout (written here, and the
#                       names of Extra-P's test reports)
# Usage: make_corpus.sh CORPUS_DIR [REAL_DATA_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: make_corpus.sh CORPUS_DIR [REAL_DATA_DIR]}
real=${2:-$here/../../../shared/data/real}
mkdir -p "$out"/{tar,anchor,metric_data,cube3,cubepl,spec,peri,series_names}
cp "$here"/../data/peri_*.xml "$out/peri/"
n=0
for name in mm.x10y1z1.r1 lulesh.p8.size30.r2 run.p2,5q16 scorep-p64 a.x1.y2.r10 x4; do
  printf %s "$name" >"$out/series_names/seed$((n++))"
done
if [[ ! -d $real ]]; then
  echo "make_corpus.sh: no real data at $real; corpora stay empty (the fuzzers start from scratch)" >&2
  exit 0
fi

python3 - "$out" "$real" <<'PY'
import gzip, hashlib, os, re, struct, sys

out, real = sys.argv[1], sys.argv[2]

# Must match kTypes in fuzz_metric_data.cpp.
TYPES = ["INT8", "UINT16", "INT32", "UINT64", "DOUBLE", "MINDOUBLE", "COMPLEX", "TAU_ATOMIC",
         "HISTOGRAM", "NDOUBLES", "SCALE_FUNC", "RATE"]
ALIASES = {"INTEGER": "UINT64", "UNSIGNED INTEGER": "UINT64", "FLOAT": "DOUBLE",
           "INT64": "UINT64", "UINT8": "INT8", "INT16": "UINT16", "UINT32": "INT32",
           "MAXDOUBLE": "MINDOUBLE"}

def save(kind, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)

def members(archive):
    """Own scanner: Python's tarfile stops at CubeW's lone zero block (cube-format.md 2.6)
    and rejects the CubeW 4.8 checksum bug."""
    result, off = {}, 0
    while off + 512 <= len(archive):
        h = archive[off:off + 512]
        if h == b"\0" * 512:
            off += 512
            continue
        size_field = h[124:136].split(b"\0")[0].strip()
        try:
            size = int(size_field or b"0", 8)
        except ValueError:
            break
        name = h[:100].split(b"\0")[0].decode("utf-8", "replace")
        if h[156:157] in (b"0", b"\0"):
            result[name] = archive[off + 512:off + 512 + size]
        off += 512 + (size + 511) // 512 * 512
    return result

for root, _, files in os.walk(real):
    for fn in sorted(files):
        path = os.path.join(root, fn)
        data = open(path, "rb").read()
        if fn.endswith(".cube") or fn.endswith(".cube.gz"):
            if len(data) <= 256 * 1024:
                save("cube3", data)
                save("cube3", gzip.compress(data if not fn.endswith(".gz") else gzip.decompress(data)))
            continue
        if not fn.endswith(".cubex"):
            continue
        if len(data) <= 256 * 1024:
            save("tar", data)
        m = members(data)
        anchor = m.get("anchor.xml")
        if anchor is None:
            continue
        if anchor[:2] == b"\x1f\x8b":
            anchor = gzip.decompress(anchor)
        save("anchor", anchor)
        text = anchor.decode("utf-8", "replace")
        cnodes = len(re.findall(r"<cnode\b", text))
        locations = len(re.findall(r"<location\b", text))
        # Sub-metrics nest inside their parent, so take the first <dtype> after each start tag.
        for mt in re.finditer(r'<metric\b[^>]*\bid="(\d+)"[^>]*>', text):
            mid = mt.group(1)
            dt = re.compile(r"<dtype>\s*([^<(]*)").search(text, mt.end())
            dtype = (dt.group(1).strip() if dt else "DOUBLE")
            dtype = ALIASES.get(dtype, dtype)
            idx, dat = m.get(mid + ".index"), m.get(mid + ".data")
            if idx is None or dat is None:
                continue
            sel = bytes([TYPES.index(dtype) if dtype in TYPES else 4,
                         (min(cnodes, 32) - 1) % 32, locations % 8,
                         min(max(len(idx) - 18, 0) // 4, 255)])
            blob = sel + idx + dat
            if len(blob) <= 64 * 1024:
                save("metric_data", blob)
PY
# CubePL seeds: the expressions of the Score-P and Scalasca metric hierarchies (remap .spec),
# and two long chains.
python3 - "$real" "$out/cubepl" <<'PY'
import html, pathlib, re, sys
real, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
n = 0
for spec in sorted((real / "cubelib/remap").glob("*.spec")):
    for text in re.findall(r"<cubepl[^>]*>(.*?)</cubepl", spec.read_text(errors="replace"), re.S):
        (out / f"seed{n:04d}").write_text(html.unescape(text))
        n += 1
# Long chains just below the height bound (docs/cubepl.md, "Depth"): from these the fuzzer
# reaches over-high trees by copying parts, the class of the 30,000-term crash of issue 9.
(out / "long_sum").write_text("metric::visits()" + "+1" * 900)
(out / "long_conditions").write_text("{ if (1 == 1" + " and 1 == 1" * 400 + ") { ${r} = 1; }; return ${r}; }")
PY
cp "$real"/cubelib/remap/*.spec "$out/spec/" 2>/dev/null || true
# PERI-XML of real reports: several metrics, system trees and value types where the one
# hand-written document has few; those within fuzz_peri's 64 KiB (run_fuzzers.sh).
if [[ -x ${CUBEKIT:-} ]]; then
  while IFS= read -r -d '' report; do
    doc=$out/peri/$(basename "$report" .cubex).xml
    # (its notes on metrics PERI-XML cannot hold are shown only if it fails)
    notes=$("$CUBEKIT" export-peri "$report" -o "$doc" 2>&1 >/dev/null) ||
      { echo "make_corpus.sh: export-peri of $report failed: $notes" >&2; exit 1; }
    (($(stat -c %s "$doc") <= 65536)) || rm -f "$doc"
  done < <(find "$real" -name '*.cubex' -size -200k -print0)
fi
for report in "$real"/extrap/*/*.cubex; do
  [[ -e $report ]] && printf %s "$(basename "$report" .cubex)" >"$out/series_names/$(basename "$report")"
done
for d in tar anchor metric_data cube3 cubepl spec peri series_names; do
  echo "$d: $(ls "$out/$d" | wc -l) seeds"
done
