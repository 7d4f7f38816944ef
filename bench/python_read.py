"""Timings of reading one metric from Python (bench/python_read.sh runs it; see docs/python.md).

    python_read.py compare REPORT METRIC PYCUBEXR_SRC   one metric: pyCubexR vs cubekit.pycubexr
                                                       vs cubekit.open(...).stored(...); REPORT
                                                       is first rewritten with sparse indexes
    python_read.py plain REPORT METRIC                 one metric as numpy vs one plain pass over
                                                       its data member (page cache warm)
Each timing is the best of RUNS (default 3) runs, each in a fresh interpreter state (the
report is opened anew; nothing is cached between runs)."""

import io
import mmap
import os
import struct
import sys
import tarfile
import time

import numpy as np

RUNS = int(os.environ.get("RUNS", "3"))


def best(fn):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def pycubexr_read(module, path, metric_name):
    with module.CubexParser(path) as cubex:
        values = cubex.get_metric_values(cubex.get_metric_by_name(metric_name), cache=False)
        return values.values


def with_sparse_indexes(source, target, cnodes):
    """A copy of a report whose dense .index members are rewritten as sparse ones listing every
    row (the same rows): cubekit writes ZCUBEX indexes dense, pyCubexR reads only sparse ones
    (CubeLib's writer also writes sparse indexes)."""
    with tarfile.open(source) as src, tarfile.open(target, "w", format=tarfile.GNU_FORMAT) as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()
            if member.name.endswith(".index") and data[17] == 3:
                data = data[:17] + b"\x01" + struct.pack("<I", cnodes) + \
                    struct.pack(f"<{cnodes}I", *range(cnodes))
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))


def compare(path, metric_name, pycubexr_src):
    import cubekit
    import cubekit.pycubexr as ours
    sys.path.insert(0, pycubexr_src)
    import pycubexr as original  # the pure-Python pyCubexR, from its source folder
    assert original.__file__.startswith(pycubexr_src), original.__file__
    with cubekit.open(path) as report:
        cnodes = len(report.cnodes)
    sparse = path + ".sparse.cubex"
    with_sparse_indexes(path, sparse, cnodes)
    os.replace(sparse, path)

    def native():
        with cubekit.open(path) as report:
            return report.stored(metric_name)[1]

    a = np.asarray(pycubexr_read(original, path, metric_name), dtype=float)
    b = np.asarray(pycubexr_read(ours, path, metric_name), dtype=float)
    assert np.array_equal(a, b), "pyCubexR and cubekit.pycubexr disagree"
    t_original = best(lambda: pycubexr_read(original, path, metric_name))
    t_layer = best(lambda: pycubexr_read(ours, path, metric_name))
    t_native = best(native)
    size = os.path.getsize(path) / 1e6
    print(f"| {size:.0f} MB, metric {metric_name} ({a.size} values) | {t_original:.3f} s | "
          f"{t_layer:.3f} s ({t_original / t_layer:.0f}×) | {t_native:.3f} s "
          f"({t_original / t_native:.0f}×) |")


def data_member_range(path, metric_id):
    with tarfile.open(path) as archive:
        member = archive.getmember(f"{metric_id}.data")
        return member.offset_data, member.size


def plain(path, metric_name):
    import cubekit
    with cubekit.open(path) as report:
        metric = report.metric(metric_name)
        metric_id = metric.id
    offset, size = data_member_range(path, metric_id)

    def plain_pass():  # touches every byte of the member once: the floor of any reader
        with open(path, "rb") as f:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                start = offset - offset % 8
                words = np.frombuffer(m, dtype=np.uint64, count=(size + offset - start) // 8,
                                      offset=start)
                total = int(words.sum())
                del words
                return total

    def as_numpy():
        with cubekit.open(path) as report:
            return report.stored(metric_name)[1]

    plain_pass()
    t_plain = best(plain_pass)
    t_numpy = best(as_numpy)
    print(f"| {os.path.getsize(path) / 1e9:.2f} GB report, metric {metric_name}: "
          f"{size / 1e9:.2f} GB of data | {t_plain:.3f} s | {t_numpy:.3f} s | "
          f"{t_numpy / t_plain:.2f}× |")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        plain(sys.argv[2], sys.argv[3])
