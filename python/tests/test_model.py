"""cubekit.model: performance models of a series, planted laws of two parameters coming back
(the laws are the test's own, written into reports with ReportBuilder)."""

import json
import math
import os
import subprocess

import pytest

import cubekit

XS = [2, 4, 8, 16, 32]
YS = [1, 3, 9, 27]


def law(x, y):
    return 1 + 0.5 * x ** 2 * y


def write_grid(folder):
    """exp.x<X>y<Y>.r1/profile.cubex: main's exclusive time is law(x, y) on location 0 and
    twice that on location 1."""
    files = []
    for x in XS:
        for y in YS:
            b = cubekit.ReportBuilder()
            time = b.add_metric("time", dtype="DOUBLE", kind="EXCLUSIVE", unit="sec")
            b.add_cnode(b.add_region("main"))
            group = b.add_location_group("rank 0", b.add_system_node("machine"), rank=0)
            b.add_location("thread 0", group)
            b.add_location("thread 1", group)
            b.set_values(time, [[law(x, y), 2 * law(x, y)]])
            path = folder / f"exp.x{x}y{y}.r1" / "profile.cubex"
            path.parent.mkdir(parents=True)
            b.save(path)
            files.append(({"x": x, "y": y}, path))
    return files


def expect_law(model, constant, coefficient):
    """constant + coefficient · x^2 · y."""
    assert math.isclose(model["constant"], constant, rel_tol=1e-6), model["model"]
    [term] = model["terms"]
    assert math.isclose(term["coefficient"], coefficient, rel_tol=1e-6), model["model"]
    assert term["factors"] == [{"parameter": "x", "exponent": 2.0, "log_exponent": 0},
                               {"parameter": "y", "exponent": 1.0, "log_exponent": 0}]
    assert (term["parameter"], term["exponent"]) == ("x", 2.0)


def test_a_grid_gives_its_planted_law_per_location_and_pooled(workdir):
    files = write_grid(workdir)
    pooled = cubekit.model(workdir, predict=[{"y": 2, "x": 100}])
    assert [(m["callpath"], m["flavour"]) for m in pooled] == [(["main"], "incl"),
                                                               (["main"], "excl")]
    for m in pooled:  # weak scaling: the mean of the two locations, 1.5 · law
        assert m["metric"] == "time" and "location" not in m
        expect_law(m, 1.5, 0.75)
        [prediction] = m["predictions"]
        assert prediction["point"] == {"x": 100.0, "y": 2.0}
        assert math.isclose(prediction["value"], 1.5 * law(100, 2), rel_tol=1e-9)
        assert set(m) >= {"model", "rss", "smape", "adjusted_r2"}
    per_location = cubekit.model(workdir, per_location=True)
    assert [m["location"] for m in per_location if m["flavour"] == "excl"] == [0, 1]
    for m in per_location:
        factor = m["location"] + 1
        expect_law(m, factor, 0.5 * factor)
    # The same series as a list of (point, file).
    listed = cubekit.model(files)
    assert [m["model"] for m in listed] == [m["model"] for m in pooled]
    strong = cubekit.model([(p, str(f)) for p, f in files], scaling="strong", measure="median")
    expect_law(strong[1], 3, 1.5)  # the sum of the two locations


def test_the_dicts_are_what_cubekit_model_prints_as_json(workdir):
    """One text for both: the library's model JSON, as `cubekit model -s json` prints it."""
    tool = os.environ.get("CUBEKIT_TOOL")
    if not tool:
        pytest.skip("CUBEKIT_TOOL (the cubekit executable) is not set; ctest sets it")
    write_grid(workdir)
    for options, kwargs in [([], {}), (["--per-location"], {"per_location": True}),
                            (["--predict", "x=100,y=2", "--predict", "y=1,x=3"],
                             {"predict": [{"x": 100, "y": 2}, {"y": 1, "x": 3}]})]:
        printed = subprocess.run([tool, "model", "-s", "json", *options, str(workdir)],
                                 check=True, capture_output=True, text=True).stdout
        assert cubekit.model(workdir, **kwargs) == json.loads(printed), options


def test_bad_requests_raise_cubekit_errors(workdir):
    write_grid(workdir)
    with pytest.raises(cubekit.Error, match="measure 'average'"):
        cubekit.model(workdir, measure="average")
    with pytest.raises(cubekit.Error, match="the series' parameters are x, y"):
        cubekit.model(workdir, predict=[{"x": 1}])
    with pytest.raises(cubekit.Error, match="not a folder"):
        cubekit.model(workdir / "absent")
    with pytest.raises(TypeError):
        cubekit.model([(10, workdir / "exp.x2y1.r1" / "profile.cubex")])
