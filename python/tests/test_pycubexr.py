"""cubekit.pycubexr behaves as pyCubexR 2.x on the pyCubexR profiles (../shared/data/real/
pycubexr): the call tree, metric list, row order maps, values with conversions, warnings and
exceptions, overflow handling; plus what pyCubexR cannot do (derived metrics, Cube 3)."""

import warnings

import numpy as np
import pytest

import cubekit
from cubekit.pycubexr import CubexParser
from cubekit.pycubexr.classes import CNode, Metric, MetricValues
from cubekit.pycubexr.classes.metric import MetricType
from cubekit.pycubexr.classes.values import CubeValues, MaxValues, MinValues, convert_type
from cubekit.pycubexr.utils.exceptions import (InvalidConversionInstructionError,
                                               MissingMetricError, UnsupportedMetricFormatError)
from conftest import need_shared
from oracle_text import csv2_dump, printed_close


def data(*parts):
    return need_shared().joinpath("data", "real", *parts)


CALL_TREE = ("pycubexr", "call_tree_test", "call_tree_test.cubex")
TIME_P4 = ("pycubexr", "time.p4.n2000.x1.r0", "profile.cubex")
BLAST = ("pycubexr", "blast.p64.r1", "profile.cubex")


@pytest.fixture
def call_tree():
    with CubexParser(data(*CALL_TREE)) as cubex:
        yield cubex


def test_call_tree_structure(call_tree):
    roots = call_tree.get_root_cnodes()
    assert len(roots) == 1 and roots[0].id == 0
    assert (roots[0].region.name, roots[0].region.id) == ("test.x", 2)
    main = roots[0].get_children()[0]
    assert [c.region.mangled_name for c in main.get_children()] == ["a", "b", "c", "d"]
    assert [c.region.mangled_name for c in main.get_children()[3].get_children()] == ["d1", "d2", "d3"]
    assert [c.id for c in call_tree.all_cnodes()] == list(range(18))  # pre-order
    assert call_tree.get_cnode(4).parent.id == 2
    assert call_tree.get_cnode(99) is None
    assert call_tree.get_calltree().splitlines()[:3] == ["test.x", "-main", "--signed char"]
    assert call_tree.get_region_by_name("b2").name == "b2"
    region = call_tree.get_region(call_tree.get_cnode(5))
    assert [c.id for c in call_tree.get_cnodes_for_region(region.id)] == [5]

    def nested(c):  # pyCubexR's repr, recursive as there (this tree is four levels deep)
        inner = ", ".join(nested(child) for child in c.get_children())
        return f"CNode<{c.id}, region:<{c.callee_region_id}, {c.region.name}>, children:[{inner}]>"
    assert repr(roots[0]) == nested(roots[0])
    bare, child = CNode(_id=1, callee_region_id=3), CNode(_id=2, callee_region_id=4)
    bare.add_child(child)
    assert repr(bare) == "CNode<1, region_id:3, children:[CNode<2, region_id:4, children:[]>]>"


def test_call_path_objects_are_made_when_first_asked_for():
    # Reading values needs only the ids; the objects come on demand, even after closing.
    with CubexParser(data(*CALL_TREE)) as cubex:
        values = cubex.get_metric_values(cubex.get_metric_by_name("time"))
        assert "_cnodes" not in cubex.__dict__
        assert len(values.cnode_indices) == 18
    roots = cubex.get_root_cnodes()
    assert roots[0].id == 0 and roots[0].region.name == "test.x"
    assert [c.id for c in cubex.all_cnodes()] == list(range(18))
    assert values.value(cubex.get_cnode(0)) == values.value(roots[0])


def test_metrics_in_file_order_with_types(call_tree):
    metrics = call_tree.get_metrics()
    assert [m.name for m in metrics] == ["visits", "time", "min_time", "max_time", "bytes_put",
                                         "bytes_get", "io_bytes_read", "io_bytes_written"]
    assert [m.id for m in metrics] == list(range(8))
    assert [m.metric_type for m in metrics][:3] == [MetricType.EXCLUSIVE, MetricType.INCLUSIVE,
                                                   MetricType.EXCLUSIVE]
    assert call_tree.get_metric_by_name("time").data_type == "DOUBLE"
    with pytest.raises(KeyError):
        call_tree.get_metric_by_name("nope")
    assert len(call_tree.get_locations()) == 1


def test_row_order_maps_follow_the_storage_order(call_tree):
    visits, time = call_tree.get_metric_by_name("visits"), call_tree.get_metric_by_name("time")
    # EXCLUSIVE rows: pre-order. INCLUSIVE rows: each parent's children listed together after
    # the parent (root, main, a b c d, then a's, b's, c's, d's children).
    assert visits.tree_index_to_cid_map == {i: i for i in range(18)}
    assert list(time.tree_index_to_cid_map.values()) == [0, 1, 2, 6, 10, 14, 3, 4, 5, 7, 8, 9,
                                                         11, 12, 13, 15, 16, 17]
    values = call_tree.get_metric_values(time)
    assert values.cnode_indices == {cid: i for i, cid in time.tree_index_to_cid_map.items()}
    with pytest.warns(DeprecationWarning):
        assert time.tree_enumeration[6] == 3


def test_sparse_rows_of_bytes_sent():
    with CubexParser(data(*TIME_P4)) as cubex:
        values = cubex.get_metric_values(cubex.get_metric_by_name("bytes_sent"), False)
        assert values.cnode_indices == {cid: i for i, cid in
                                        enumerate([10, 13, 16, 19, 22, 25, 28, 31, 34, 38])}
        assert values.cnode_values(cubex.get_cnode(0)).tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("case", [CALL_TREE, TIME_P4, BLAST], ids=lambda c: c[1])
@pytest.mark.parametrize("inclusive", [False, True])
def test_converted_values_match_the_csv_dumps(case, inclusive):
    csv = data(*case).parent / ("incl.csv" if inclusive else "excl.csv")
    names, rows = csv2_dump(csv.read_text())
    with CubexParser(data(*case)) as cubex:
        for column, name in enumerate(names):
            metric = cubex.get_metric_by_name(name)
            try:
                values = cubex.get_metric_values(metric, allow_full_uint64_values=True)
            except MissingMetricError:
                assert all(float(texts[column]) == 0 for _, _, texts in rows), name
                continue
            for cnode_id, thread, texts in rows:
                row = values.cnode_values(cubex.get_cnode(cnode_id),
                                          convert_to_exclusive=not inclusive,
                                          convert_to_inclusive=inclusive)
                value = row[thread]
                if isinstance(value, CubeValues):
                    value = value.astype(float)
                assert printed_close(value, texts[column]), (name, cnode_id, thread, value)


def test_value_sums_over_locations_and_mean():
    with CubexParser(data(*TIME_P4)) as cubex:
        visits = cubex.get_metric_values(cubex.get_metric_by_name("visits"))
        root = cubex.get_cnode(0)
        assert visits.value(root) == visits.cnode_values(root).sum()
        assert visits.mean(root) == pytest.approx(visits.cnode_values(root).mean())
        assert visits.location_value(root, 3) == visits.cnode_values(root)[3]
        assert cubex.get_metric_values(cubex.get_metric_by_name("visits")) is visits  # cached


def test_big_endian_blast_profile_reads_with_missing_metrics():
    with CubexParser(data(*BLAST)) as cubex:
        for name in ("task_migration_loss", "bytes_put"):
            with pytest.raises(MissingMetricError):
                cubex.get_metric_values(cubex.get_metric_by_name(name))
        visits = cubex.get_metric_values(cubex.get_metric_by_name("visits"))
        # pyCubexR's expected exclusive visits of the first call paths (its test_blast).
        assert [visits.value(c) for c in cubex.all_cnodes()[:4]] == [64, 64, 2752, 2560]


def test_checksum_bug_warns_and_still_reads():
    with pytest.warns(UserWarning, match="checksum"):
        with CubexParser(data("pycubexr", "bt-mz_sum.p2.r1", "cube4.8_with_checksum_bug.cubex")) as c:
            assert c.all_metrics()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with CubexParser(data(*CALL_TREE)):
            pass


def test_metric_types_and_unsupported_formats():
    with CubexParser(data("pycubexr", "test_only_files", "cube-values_example.cubex")) as cubex:
        types = {m.name: m.data_type for m in cubex.get_metrics()}
        assert types["HISTOGRAM5"] == "HISTOGRAM(5)" and types["NDOUBLES10"] == "NDOUBLES(10)"
        assert types["SCALE_FUNC3"] == "SCALE_FUNC" and types["TAU_ATOMIC2"] == "TAU_ATOMIC"
        for metric in cubex.get_metrics():
            if metric.name in ("HISTOGRAM5", "SCALE_FUNC3"):
                with pytest.raises(UnsupportedMetricFormatError):
                    cubex.get_metric_values(metric)
            else:
                cubex.get_metric_values(metric)
        main = cubex.get_cnode(0)
        complex_ = cubex.get_metric_values(cubex.get_metric_by_name("COMPLEX"))
        assert complex_.value(main) == pytest.approx(abs(4 + 10j))
        tau = cubex.get_metric_values(cubex.get_metric_by_name("TAU_ATOMIC")).values._values
        assert tau.dtype["n"] == np.uint32 and tau["n"].sum() == 74
        nd = cubex.get_metric_values(cubex.get_metric_by_name("NDOUBLES10"))
        assert nd.cnode_values(main).sum(axis=0).tolist() == [6, 10, 14, 18, 22, 26, 30, 34, 38, 42]


def test_conversion_arguments():
    with CubexParser(data(*CALL_TREE)) as cubex:
        values = cubex.get_metric_values(cubex.get_metric_by_name("visits"))
        with pytest.raises(InvalidConversionInstructionError):
            values.cnode_values(cubex.get_cnode(0), True, True)
        with pytest.warns(DeprecationWarning):
            assert values.cnode_values(4)[0] == 2  # a2: visited twice
        with pytest.raises(InvalidConversionInstructionError), pytest.warns(DeprecationWarning):
            values.cnode_values(2, convert_to_inclusive=True)


def _tree():
    root, left, right = (CNode(_id=i, callee_region_id=0) for i in range(3))
    for child in (left, right):
        root.add_child(child)
        child.parent = root
    return root, left, right


def _metric(kind, dtype="DOUBLE"):
    return Metric(name="m", _id=0, display_name="m", description="", metric_type=kind,
                  data_type=dtype, units="", url="", childs=[])


def test_min_and_max_values_treat_all_zero_children_as_absent():
    root, left, right = _tree()
    values = MinValues(np.array([5.0, 7.0, 0.0, 0.0, 2.0, 9.0]))
    mv = MetricValues(metric=_metric(MetricType.EXCLUSIVE, "MINDOUBLE"), cnode_indices=[0, 1, 2],
                      values=values)
    # Root [5, 7]; left [0, 0] is skipped; right [2, 9] → min([5, 7], [2, 9]) = [2, 7].
    assert mv.cnode_values(root, convert_to_inclusive=True)._values.tolist() == [2, 7]
    assert mv.value(root, convert_to_inclusive=True) == 2
    peak = MaxValues(np.array([1.0, 3.0]))
    assert (peak + MaxValues(np.array([2.0, 2.0])))._values.tolist() == [2, 3]
    assert peak.sum()._values == 3


def test_exclusive_integers_do_not_wrap():
    root, left, right = _tree()
    # INCLUSIVE UINT64 whose children add up to more than the parent (counter noise).
    mv = MetricValues(metric=_metric(MetricType.INCLUSIVE, "UINT64"), cnode_indices=[0, 1, 2],
                      values=np.array([10, 5, 8, 6, 4, 1], dtype=np.uint64))
    assert mv.cnode_values(root, convert_to_exclusive=True).tolist() == [0, 0]
    # Sums that overflow uint64 are done with Python integers.
    big = MetricValues(metric=_metric(MetricType.EXCLUSIVE, "UINT64"), cnode_indices=[0],
                       values=np.array([2**63 + 2**12] * 2, dtype=np.uint64))
    assert big.value(CNode(_id=0, callee_region_id=0)) == 2**64 + 2**13


def test_negative_overflow_detection_by_hand():
    a = np.array([-128, 0, 127], dtype=np.int8)
    b = MetricValues._detect_negative_overflow(a, np.array([1, 1, -1], dtype=np.int8))
    assert b.dtype.itemsize > 1 and (a - b).tolist() == [-129, -1, 128]
    a = np.array([np.iinfo(np.int64).min, 5, np.iinfo(np.int64).max], dtype=np.int64)
    b = MetricValues._detect_negative_overflow(a, np.array([3, 3, -3], dtype=np.int16))
    assert (a - b).tolist() == [np.iinfo(np.int64).min, 2, np.iinfo(np.int64).max]
    unsigned = np.array([2, 9], dtype=np.uint32)
    assert MetricValues._detect_negative_overflow(unsigned, np.array([5, 1], dtype=np.uint32)).tolist() == [2, 1]


def test_uint64_values_cubelib_cannot_represent_become_zero():
    raw = np.array([1, 0xFFFF_FFFF_FFFF_FC00, 0xFFFF_FFFF_FFFF_FBFF], dtype=np.uint64)
    assert convert_type("UINT64", None, raw).tolist() == [1, 0, 0xFFFF_FFFF_FFFF_FBFF]
    assert convert_type("UINT64", None, raw, allow_full_uint64_values=True).tolist() == raw.tolist()
    assert raw[1] != 0  # the input is left alone


def test_derived_metrics_and_cube3_files_beyond_pycubexr():
    derived = need_shared() / "oracle" / "_algebra" / "A_extrap_single_x1_vs_x10" / "derive_post.cubex"
    with CubexParser(derived) as cubex:
        metric = cubex.get_metric_by_name("time_per_visit")
        assert metric.metric_type == MetricType.POSTDERIVED
        tpv = cubex.get_metric_values(metric)
        time = cubex.get_metric_values(cubex.get_metric_by_name("time"))
        visits = cubex.get_metric_values(cubex.get_metric_by_name("visits"))
        for cnode in cubex.all_cnodes()[:5]:
            # Per location: inclusive time over exclusive visits (CubePL's metric::x(i) / (e)).
            expected = time.cnode_values(cnode) / visits.cnode_values(cnode)
            assert np.allclose(tpv.cnode_values(cnode), expected)
    with CubexParser(data("cubelib", "test0.0", "test0.0.cube")) as cube3:
        metric = cube3.get_metrics()[0]
        values = cube3.get_metric_values(metric)
        assert values.num_locations() == len(cube3.get_locations())


def test_call_tree_deeper_than_pythons_recursion_limit(workdir, capsys):
    """A recursion 3,000 calls deep (Python stops recursing at 1,000): printed level by level."""
    depth = 3000
    b = cubekit.ReportBuilder()
    visits = b.add_metric("visits", dtype="UINT64", kind="EXCLUSIVE", unit="occ")
    main, fib = b.add_region("main"), b.add_region("fib")
    parent = b.add_cnode(main)
    for _ in range(depth - 1):
        parent = b.add_cnode(fib, parent=parent)
    b.add_location("thread 0", b.add_location_group("rank 0", b.add_system_node("machine")))
    b.set_values(visits, np.ones((depth, 1), dtype=np.uint64))
    b.save(workdir / "chain.cubex")
    with CubexParser(str(workdir / "chain.cubex")) as cubex:
        lines = cubex.get_calltree().splitlines()
        assert len(lines) == depth
        assert lines[0] == "main" and lines[1] == "-fib" and lines[-1] == "-" * (depth - 1) + "fib"
        cubex.print_calltree()
        printed = capsys.readouterr().out.splitlines()
        assert len(printed) == depth
        assert printed[0] == " main" and printed[-1] == "\t" * (depth - 1) + " fib"
        # pyCubexR's repr nests each call path's children in its text; built here from the
        # deepest call path up.
        chain = cubex.all_cnodes()
        assert len(chain) == depth
        expected = "[]"
        for cnode in reversed(chain):
            expected = (f"[CNode<{cnode.id}, region:<{cnode.callee_region_id}, "
                        f"{cnode.region.name}>, children:{expected}>]")
        assert repr(chain[0]) == expected[1:-1]
