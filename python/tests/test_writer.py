"""Writing reports from numpy arrays, and read → write → read round trips."""

import numpy as np
import pytest

import cubekit
from conftest import need_shared, real_profiles


def small_builder():
    b = cubekit.ReportBuilder()
    time = b.add_metric("time", dtype="DOUBLE", kind="INCLUSIVE", unit="sec")
    visits = b.add_metric("visits", dtype="UINT64", kind="EXCLUSIVE", unit="occ")
    hist = b.add_metric("sizes", dtype="HISTOGRAM(2)", kind="EXCLUSIVE", unit="bytes")
    main, work = b.add_region("main"), b.add_region("work")
    root = b.add_cnode(main)
    b.add_cnode(work, parent=root)
    b.add_cnode(work, parent=root, line=42)
    node = b.add_system_node("machine")
    for rank in range(2):
        group = b.add_location_group(f"rank {rank}", node, rank=rank)
        b.add_location("thread 0", group)
    return b, time, visits, hist


def test_a_report_built_from_arrays_reads_back(workdir):
    b, time, visits, hist = small_builder()
    # Call paths × locations; INCLUSIVE time: the root holds its children's time.
    b.set_values(time, [[10.0, 12.0], [3.0, 4.0], [5.0, 6.0]])
    b.set_values(visits, np.array([[1, 1], [7, 0], [2, 9]], dtype=np.uint64))
    sizes = np.zeros((3, 2), dtype=cubekit.dtype("HISTOGRAM(2)"))
    sizes[1, 0] = (1.0, 8.0, [3.0, 4.0])
    b.set_values(hist, sizes)
    path = workdir / "built.cubex"
    b.save(path)
    with cubekit.open(path) as report:
        assert [c.name for c in report.cnodes] == ["main", "work", "work"]
        assert report.cnodes[2].line == 42
        assert [loc.name for loc in report.locations] == ["thread 0", "thread 0"]
        assert report.values("time", call_tree="incl").tolist() == [[10, 12], [3, 4], [5, 6]]
        # Exclusive root time: 10 − 3 − 5 and 12 − 4 − 6, by hand.
        assert report.values("time", call_tree="excl")[0].tolist() == [2, 2]
        assert report.values("visits").tolist() == [[1, 1], [7, 0], [2, 9]]
        assert report.aggregated("visits", call_tree="incl")[0] == 20
        got = report.values("sizes")[1, 0]
        assert (got["min"], got["max"], got["bins"].tolist()) == (1, 8, [3, 4])
    assert sorted(p.name for p in workdir.iterdir()) == ["built.cubex"]  # no temporary left


def test_compressed_output_reads_the_same(workdir):
    b, time, visits, _ = small_builder()
    b.set_values(time, np.arange(6, dtype=float).reshape(3, 2))
    b.save(workdir / "z.cubex", compress=True)
    with cubekit.open(workdir / "z.cubex") as report:
        assert report.values("time", call_tree="incl").tolist() == [[0, 1], [2, 3], [4, 5]]


def test_bad_arrays_are_refused_with_the_metric_named(workdir):
    b, time, _, hist = small_builder()
    b.set_values(time, np.zeros((2, 2)))
    with pytest.raises(cubekit.FormatError, match="metric \"time\": expected shape \\(3, 2\\)"):
        b.save(workdir / "bad.cubex")
    b, time, _, hist = small_builder()
    b.set_values(hist, np.zeros((3, 2)))
    with pytest.raises(cubekit.FormatError, match="metric \"sizes\": dtype"):
        b.save(workdir / "bad.cubex")
    assert list(workdir.iterdir()) == []  # nothing half-written
    with pytest.raises(cubekit.FormatError, match="unknown kind"):
        b.add_metric("x", kind="SIDEWAYS")
    with pytest.raises(cubekit.LookupError, match="region index 9"):
        b.add_cnode(9)


@pytest.mark.parametrize("folder,profile", real_profiles(), ids=[n for n, _ in real_profiles()])
def test_round_trip_of_every_real_profile(folder, profile, workdir):
    need_shared()
    copy = workdir / "copy.cubex"
    with cubekit.open(profile) as original:
        original.save(copy)
        with cubekit.open(copy) as again:
            assert [m.name for m in again.metrics] == [m.name for m in original.metrics]
            assert [c.id for c in again.cnodes] == [c.id for c in original.cnodes]
            for metric in original.metrics:
                if metric.derived or metric.void or not np.dtype(cubekit.dtype(metric.dtype)).names is None:
                    continue
                assert np.array_equal(again.values(metric.name), original.values(metric)), metric.name


def test_builder_from_report_replaces_one_metric(workdir):
    source = need_shared() / "data" / "real" / "pycubexr" / "call_tree_test" / "call_tree_test.cubex"
    with cubekit.open(source) as report:
        b = cubekit.ReportBuilder.from_report(report)
        doubled = np.array(report.values("visits")) * 2
        b.set_values(report.metric("visits").index, doubled)
        b.save(workdir / "doubled.cubex")
        with cubekit.open(workdir / "doubled.cubex") as out:
            assert np.array_equal(out.values("visits"), doubled)
            assert np.array_equal(out.values("time", call_tree="incl"),
                                  report.values("time", call_tree="incl"))
