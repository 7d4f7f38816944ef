"""The native API: opening, the three trees, values as (zero-copy) numpy arrays, call-tree and
metric-tree flavours, system aggregation, flat profile, derived metrics, data types, pandas."""

import numpy as np
import pytest

import cubekit
from conftest import need_shared
from oracle_text import close, csv2_dump


def profile(*parts):
    return need_shared().joinpath("data", "real", *parts)


CALL_TREE = ("pycubexr", "call_tree_test", "call_tree_test.cubex")
TIME_P4 = ("pycubexr", "time.p4.n2000.x1.r0", "profile.cubex")
BLAST = ("pycubexr", "blast.p64.r1", "profile.cubex")
ALL_TYPES = ("pycubexr", "test_only_files", "cube-values_example.cubex")
SUMMARY = ("cubelib", "examples", "summary.cubex")


def test_open_is_a_context_manager_and_close_forbids_further_use():
    with cubekit.open(profile(*CALL_TREE)) as report:
        kept = report.values("visits")
        assert not report.closed
    assert report.closed
    with pytest.raises(ValueError, match="closed"):
        report.metric("visits")
    # Arrays handed out before closing stay valid.
    assert kept[0, 0] == 1


def test_call_tree_shape_names_and_links():
    with cubekit.open(profile(*CALL_TREE)) as report:
        cnodes = report.cnodes
        assert [c.id for c in cnodes] == list(range(18))
        assert [c.name for c in report.cnode_roots] == ["test.x"]
        main = cnodes[1]
        assert main.parent == cnodes[0]
        assert [c.region.mangled_name for c in main.children] == ["a", "b", "c", "d"]
        assert [len(c.children) for c in main.children] == [3, 3, 3, 3]
        assert all(child.parent == main for child in main.children)
        assert report.cnode(17).region.mangled_name == "d3"
        assert report.cnode_roots[0].region.id == 2


def test_metric_tree_and_system_tree():
    with cubekit.open(profile(*CALL_TREE)) as report:
        names = [m.name for m in report.metric_roots]
        assert names == ["visits", "time", "min_time", "max_time", "bytes_put", "bytes_get",
                         "io_bytes_read", "io_bytes_written"]
        time = report.metric("time")
        assert (time.kind, time.dtype, time.id) == ("INCLUSIVE", "DOUBLE", 1)
        assert report.metric("visits").kind == "EXCLUSIVE"
        with pytest.raises(cubekit.LookupError, match="no metric named \"nope\""):
            report.metric("nope")
    with cubekit.open(profile(*TIME_P4)) as report:
        assert len(report.locations) == 4
        assert [loc.id for loc in report.locations] == [0, 1, 2, 3]
        group = report.locations[2].parent
        assert group.rank == 2 and report.locations[2] in group.locations
        root = report.system_roots[0]
        assert root.parent is None and root.children


@pytest.mark.parametrize("case", [CALL_TREE, TIME_P4, BLAST], ids=lambda c: c[1])
@pytest.mark.parametrize("call_tree", ["incl", "excl"])
def test_values_match_the_csv_of_another_reader(case, call_tree):
    csv = profile(*case).parent / f"{call_tree}.csv"
    names, rows = csv2_dump(csv.read_text())
    with cubekit.open(profile(*case)) as report:
        index_of = {c.id: c.index for c in report.cnodes}
        for column, name in enumerate(names):
            values = report.values(name, call_tree=call_tree)
            assert values.shape == (len(report.cnodes), len(report.locations))
            for cnode_id, thread, texts in rows:
                assert close(values[index_of[cnode_id], thread], float(texts[column])), \
                    (name, cnode_id, thread)


def test_stored_values_are_views_of_the_library_memory():
    with cubekit.open(profile(*TIME_P4)) as report:
        cnodes, rows = report.stored("visits")
        assert rows.shape == (len(cnodes), 4) and not rows.flags.writeable
        assert rows.base is not None and type(rows.base).__name__ == "PyCapsule"
        # Same memory on every call: nothing copied.
        _, again = report.stored("visits")
        assert again.__array_interface__["data"][0] == rows.__array_interface__["data"][0]
        # EXCLUSIVE, a row for every call path in pre-order: values() is that same memory.
        dense = report.values("visits", call_tree="excl")
        assert np.shares_memory(dense, rows)
        # Another flavour has to be computed.
        assert not np.shares_memory(report.values("visits", call_tree="incl"), rows)
    # The array keeps the values alive after the report is gone.
    del report
    assert int(rows.sum()) > 0


def test_sparse_metric_rows_and_identity_elsewhere():
    with cubekit.open(profile(*TIME_P4)) as report:
        cnodes, rows = report.stored("bytes_sent")
        ids = [report.cnodes[c].id for c in cnodes]
        assert ids == [10, 13, 16, 19, 22, 25, 28, 31, 34, 38]  # pyCubexR's expected rows
        dense = report.values("bytes_sent")
        assert (dense[[c.index for c in report.cnodes if c.id not in ids]] == 0).all()


def test_aggregated_system_and_flat_profile_agree_with_sums():
    with cubekit.open(profile(*TIME_P4)) as report:
        per_location = report.values("time", call_tree="excl")
        aggregated = report.aggregated("time", call_tree="excl")
        assert np.allclose(aggregated, per_location.sum(axis=1))
        root = report.cnode_roots[0]
        system = report.system_values("time", root, call_tree="incl")
        incl = report.location_values("time", root, call_tree="incl")
        assert np.isclose(system.nodes[0], incl.sum())
        assert np.allclose(system.groups, [incl[loc.id] for g in report.location_groups
                                           for loc in g.locations])
        flat = report.flat_profile("time")
        by_region = np.zeros(len(report.regions))
        for c in report.cnodes:
            by_region[c.region.index] += aggregated[c.index]
        assert np.allclose(flat.exclusive, by_region)
        # Subroutines of the root region: everything below it.
        root_region = root.region.index
        assert np.isclose(flat.subroutines[root_region],
                          report.aggregated("time", call_tree="incl")[root.index]
                          - aggregated[root.index])


def test_metric_tree_exclusive_subtracts_sub_metrics():
    with cubekit.open(profile(*SUMMARY)) as report:
        time = report.metric("time")
        assert time.children, "summary.cubex has sub-metrics of time"
        incl = report.aggregated(time, call_tree="incl", metric_tree="incl")
        excl = report.aggregated(time, call_tree="incl", metric_tree="excl")
        children = sum(report.aggregated(c, call_tree="incl") for c in time.children)
        assert np.allclose(excl, incl - children, atol=1e-9)


def test_cubepl_definitions_and_derived_metrics():
    with cubekit.open(profile(*CALL_TREE)) as report:
        tpv = report.define("time_per_visit", "metric::time(i)/metric::visits(e)")
        assert tpv.kind == "POSTDERIVED" and tpv.derived
        assert report.metric("time_per_visit") == tpv
        got = report.aggregated(tpv, call_tree="excl")
        time = report.aggregated("time", call_tree="incl")
        visits = report.aggregated("visits", call_tree="excl")
        assert np.allclose(got, time / visits)
        with pytest.raises(cubekit.CubePLError):
            report.define("broken", "metric::time(i) / ")
        with pytest.raises(cubekit.LookupError, match="exists already"):
            report.define("time", "1")


def test_derived_metrics_of_a_report_are_computed():
    # Written by CubeLib's cube_derive (oracle/_algebra); its dumps are compared in test_oracle.
    path = need_shared() / "oracle" / "_algebra" / "A_extrap_single_x1_vs_x10" / "derive_post.cubex"
    with cubekit.open(path) as report:
        tpv = report.metric("time_per_visit")
        assert tpv.derived and tpv.expression == "metric::time(i)/metric::visits(e)"
        assert np.allclose(report.aggregated(tpv, call_tree="excl"),
                           report.aggregated("time", call_tree="incl")
                           / report.aggregated("visits", call_tree="excl"))


EXPECTED_DTYPES = {
    "INT16": np.int16, "UINT32": np.uint32, "INT64": np.int64, "DOUBLE": np.float64,
    "MINDOUBLE": np.float64, "COMPLEX": [("re", "f8"), ("im", "f8")],
    "RATE": [("main", "f8"), ("time", "f8")],
    "TAU_ATOMIC": [("n", "f8"), ("min", "f8"), ("max", "f8"), ("sum", "f8"), ("sum2", "f8")],
    "HISTOGRAM5": [("min", "f8"), ("max", "f8"), ("bins", "f8", (5,))],
    "NDOUBLES10": [("values", "f8", (10,))],
}


def test_every_data_type_as_numpy():
    with cubekit.open(profile(*ALL_TYPES)) as report:
        for name, dtype in EXPECTED_DTYPES.items():
            values = report.values(name)
            assert values.dtype == np.dtype(dtype), name
        # Hand-checked against CubeLib's dump of this file (oracle dump_all_incl_aggr).
        rate = report.aggregated("RATE", call_tree="incl")[0]
        assert (rate["main"], rate["time"]) == (4, 10)
        complex_ = report.aggregated("COMPLEX", call_tree="incl")[0]
        assert (complex_["re"], complex_["im"]) == (4, 10)
        ndoubles = report.aggregated("NDOUBLES10", call_tree="incl")[0]["values"]
        assert ndoubles.tolist() == [6, 10, 14, 18, 22, 26, 30, 34, 38, 42]
        tau = report.aggregated("TAU_ATOMIC", call_tree="incl")[0]
        assert (tau["n"], tau["min"], tau["max"]) == (74, 0, 37)
        assert report.values("SCALE_FUNC3").dtype.itemsize == 848
        assert cubekit.dtype("HISTOGRAM(3)")["bins"].shape == (3,)


def test_cube3_files_read_like_cubex():
    with cubekit.open(profile("cubelib", "test0.0", "test0.0.cube")) as cube3, \
            cubekit.open(profile("cubelib", "test0.0", "test0.0.cubex")) as cube4:
        assert [m.name for m in cube3.metrics] == [m.name for m in cube4.metrics]
        for metric in cube4.metrics:
            assert np.allclose(cube3.aggregated(metric.name, call_tree="incl"),
                               cube4.aggregated(metric.name, call_tree="incl"))


def test_dataframe_views():
    pandas = pytest.importorskip("pandas")
    with cubekit.open(profile(*CALL_TREE)) as report:
        frame = report.dataframe(call_tree="incl")
        assert isinstance(frame, pandas.DataFrame)
        assert frame.loc[0, "time"] == pytest.approx(74.0505, rel=1e-5)
        assert frame.loc[17, "name"] == "d3" and frame.loc[17, "parent"] == 14
        per_location = report.location_dataframe("visits")
        assert per_location.shape == (18, 1) and per_location.loc[4, 0] == 2  # a2: twice


def test_flat_profile_of_record_types():
    with cubekit.open(profile(*ALL_TYPES)) as report:
        flat = report.flat_profile("RATE")
        assert flat.exclusive.dtype.names == ("main", "time")
        assert flat.subroutines.dtype == flat.exclusive.dtype


def test_flat_profile_has_nan_where_a_maximum_has_no_value():
    # CubeLib 4.6's cube_dump -r -m MAXDOUBLE -t aggr of this file: main 4.4 with subroutines
    # 12.12; foo 8.8 and bar 12.12 call nothing, printed "0.": no value (the empty maximum).
    with cubekit.open(profile(*ALL_TYPES)) as report:
        flat = report.flat_profile("MAXDOUBLE")
        at = {r.name: r.index for r in report.regions}
        assert [flat.exclusive[at[n]] for n in ("main", "foo", "bar")] == [4.4, 8.8, 12.12]
        assert flat.subroutines[at["main"]] == 12.12
        assert np.isnan(flat.subroutines[at["foo"]]) and np.isnan(flat.subroutines[at["bar"]])
        # DOUBLE has a value everywhere: 0 where nothing adds, never NaN.
        assert not np.isnan(report.flat_profile("DOUBLE").subroutines).any()


def test_pop_metrics_of_a_report_and_a_series():
    # test16's trace analysis has Scalasca's wait states: the MPI hierarchy's identities hold.
    with cubekit.open(profile("cubelib", "test16", "trace.cube")) as report:
        (result,) = report.pop_metrics()
        v = result.values
        assert result.focus == "MAIN__" and result.call_paths == [0]
        assert v["global_efficiency"] == pytest.approx(
            v["parallel_efficiency"] * v["computation_efficiency"], rel=1e-12)
        assert v["parallel_efficiency"] == pytest.approx(
            v["load_balance_efficiency"] * v["communication_efficiency"], rel=1e-12)
        assert v["communication_efficiency"] == pytest.approx(
            v["serialisation_efficiency"] * v["transfer_efficiency"], rel=1e-12)
        assert 0 < v["global_efficiency"] <= 1
        # Without PAPI counters IPC is not guessed: None, with the metrics it needs.
        assert v["ipc"] is None and "PAPI_TOT_CYC" in result.missing["ipc"]
        assert list(result.labels)[0] == "global_efficiency"
        with pytest.raises(ValueError, match="model"):
            report.pop_metrics(model="posix")
    # A series of two: one result per report, the second compared with the first.
    x1 = cubekit.open(profile("extrap", "single_parameter", "mm.x1y1z1.r1.cubex"))
    x10 = cubekit.open(profile("extrap", "single_parameter", "mm.x10y1z1.r1.cubex"))
    with x1, x10:
        series = cubekit.pop_metrics([x1, x10], model="hybrid-add")
        assert [r.report for r in series] == [0, 1]
        first, second = series
        assert first.values["parallel_efficiency"] == pytest.approx(
            first.values["process_efficiency"] + first.values["thread_efficiency"] - 1, rel=1e-12)
        with pytest.raises(cubekit.Error):
            cubekit.pop_metrics([x1], focus=["no_such_region"])
