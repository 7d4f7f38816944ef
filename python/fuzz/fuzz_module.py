"""Feeds mutated reports through the Python module: the native API must read each or raise a
cubekit.Error; the pyCubexR layer may also raise what pyCubexR raises on degenerate reports
(listed at the end); nothing may crash the interpreter. Usage:

    PYTHONPATH=build/python /usr/bin/python3 python/fuzz/fuzz_module.py [--cases N] [--seed S] report...

Prints one line per 100 cases and a summary; a crash leaves the last "case" line printed (the
mutated file is kept as fuzz-crash.cubex in the working folder to reproduce it)."""

import argparse
import os
import random
import shutil
import sys
import tempfile
import warnings

import numpy as np

import cubekit
from cubekit.pycubexr import CubexParser
from cubekit.pycubexr.utils import exceptions as pycubexr_errors


def mutate(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        choice = rng.random()
        if choice < 0.5 and buf:  # flip bytes
            i = rng.randrange(len(buf))
            buf[i] = rng.randrange(256)
        elif choice < 0.7 and buf:  # truncate
            del buf[rng.randrange(len(buf)):]
        elif choice < 0.85:  # insert junk
            i = rng.randrange(len(buf) + 1)
            buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif buf:  # overwrite a run with a digit (sizes and ids in headers and XML)
            i = rng.randrange(len(buf))
            buf[i:i + 3] = str(rng.randrange(1000)).encode()
    return bytes(buf)


def exercise_native(path: str) -> None:
    with cubekit.open(path) as report:
        for metric in report.metrics[:12]:
            for call_tree in ("incl", "excl"):
                report.aggregated(metric, call_tree=call_tree)
            report.values(metric)
            if report.cnodes:
                report.system_values(metric, 0)
            report.flat_profile(metric)


def exercise_pycubexr(path: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with CubexParser(path) as cubex:
            for metric in cubex.all_metrics()[:12]:
                if metric.data_type in ("RATE", "TAU_ATOMIC"):
                    continue  # pyCubexR cannot sum these either (numpy has no + for records)
                try:
                    values = cubex.get_metric_values(metric)
                except (pycubexr_errors.MissingMetricError,
                        pycubexr_errors.UnsupportedMetricFormatError):
                    continue
                for cnode in cubex.all_cnodes()[:20]:
                    values.value(cnode, convert_to_inclusive=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seeds = [open(p, "rb").read() for p in args.reports]
    folder = tempfile.mkdtemp(prefix="cubekit-fuzz-")
    outcomes = {"read": 0, "cubekit.Error": 0, "pycubexr layer: pyCubexR/cubekit errors": 0}
    other = {}  # the pyCubexR layer's Python exceptions on degenerate reports (as pyCubexR's)
    try:
        for case in range(args.cases):
            path = os.path.join(folder, "case.cubex")
            with open(path, "wb") as f:
                f.write(mutate(rng.choice(seeds), rng))
            shutil.copy(path, "fuzz-crash.cubex") if os.environ.get("KEEP_CASE") else None
            if case % 100 == 0:
                print(f"case {case}", flush=True)
            try:
                exercise_native(path)
                outcomes["read"] += 1
            except cubekit.Error:
                outcomes["cubekit.Error"] += 1
            try:
                exercise_pycubexr(path)
            except (cubekit.Error, pycubexr_errors.CorruptIndexError,
                    pycubexr_errors.MissingMetricError, FileNotFoundError):
                outcomes["pycubexr layer: pyCubexR/cubekit errors"] += 1
            except Exception as e:  # e.g. no locations: numpy's min of nothing, as in pyCubexR
                key = f"{type(e).__name__}: {str(e)[:60]}"
                other[key] = other.get(key, 0) + 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.cases} mutated reports: {outcomes}")
    for key, count in sorted(other.items()):
        print(f"  pycubexr layer, {count}×: {key}")
    print("no crash")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
