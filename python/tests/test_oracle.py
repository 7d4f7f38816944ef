"""Values through the Python module against what CubeLib 4.6's cube_dump printed for every real
profile (../shared/oracle): aggregated over all threads (call tree inclusive and exclusive)
and per location (call tree inclusive)."""

import re

import pytest

import cubekit
from conftest import need_shared, oracle_cases
from oracle_text import (actual_fields, aggregated_dump, as_cubelib_prints, close, csv2_dump,
                         expected_fields)

CASES = oracle_cases()
IDS = [name for name, _, _ in CASES]


def test_every_real_profile_has_an_oracle_case():
    shared = need_shared()
    assert len(CASES) >= 20, f"only {len(CASES)} oracle cases with dumps in {shared}"
    assert any("derive_post" in name for name in IDS)


# CubeLib prints 8-bit integers as characters (value 10 is a line break): not comparable as text.
CHARACTERS = ("INT8", "UINT8", "CHAR")


def _compare_aggregated(report, text, call_tree):
    blocks = aggregated_dump(text)
    assert blocks, "no metric blocks in the oracle dump"
    compared = 0
    for name, rows in blocks.items():
        metric = report.metric(name)
        values = report.aggregated(metric, call_tree=call_tree)
        dtype = values.dtype
        for cnode_id, value_text in rows.items():
            expected = expected_fields(dtype, value_text)
            if expected is None:
                assert metric.dtype in ("SCALE_FUNC",) + CHARACTERS, \
                    f"{name}: cannot read {value_text!r}"
                continue
            ours = actual_fields(values[report.cnode(cnode_id).index], expected)
            for field, want in expected.items():
                assert close(ours[field], want), \
                    f"{report.path} {name} ({call_tree}) cnode {cnode_id} {field}: " \
                    f"ours {ours[field]}, CubeLib {want}"
            compared += 1
    return compared


def _dump(prefix, kind):
    need_shared()
    return open(f"{prefix}{kind}.out", errors="replace").read()


@pytest.mark.parametrize("case,profile,prefix", CASES, ids=IDS)
@pytest.mark.parametrize("call_tree", ["incl", "excl"])
def test_aggregated_values_match_cube_dump(case, profile, prefix, call_tree):
    text = _dump(prefix, f"{call_tree}_aggr")
    with cubekit.open(profile) as report:
        assert _compare_aggregated(report, text, call_tree) > 0


@pytest.mark.parametrize("case,profile,prefix", CASES, ids=IDS)
def test_per_location_values_match_cube_dump_csv2(case, profile, prefix):
    names, rows = csv2_dump(_dump(prefix, "incl_csv2"))
    compared = 0
    with cubekit.open(profile) as report:
        index_of = {c.id: c.index for c in report.cnodes}
        for column, name in enumerate(names):
            metric = report.metric(name)
            values = report.values(metric, call_tree="incl")
            if values.dtype.names is not None or metric.dtype in CHARACTERS:
                continue  # structured values are compared in the aggregated dumps
            for cnode_id, thread, texts in rows:
                if column >= len(texts) or texts[column] == "":
                    continue
                ours = as_cubelib_prints(values[index_of[cnode_id], thread])
                assert close(ours, float(texts[column])), \
                    f"{profile} {name} cnode {cnode_id} thread {thread}: ours {ours}, " \
                    f"CubeLib {texts[column]}"
                compared += 1
    assert compared > 0


def _flat_profile_dump(text):
    """{metric: {region id: (exclusive text, subroutines text)}} of `cube_dump -r -t aggr`."""
    blocks, current, region = {}, None, None
    for line in text.split("\n"):
        if line.startswith("Print out the data of the metric "):
            current = blocks.setdefault(line.split("metric ", 1)[1].strip(), {})
        elif current is not None and line.startswith("   Subroutines"):
            current[region] = (current[region], line.split()[-1])
        elif current is not None:
            match = re.match(r"^(.*)\(id=(\d+)\)\s+(\S+)\s*$", line)
            if match:
                region = int(match.group(2))
                current[region] = match.group(3)
    return blocks


FLAT_CASES = [(n, p, f) for n, p, f in CASES
              if f.name == "dump_all_" and (f.parent / "dump_r_2m_aggr.out").is_file()]


@pytest.mark.parametrize("case,profile,prefix", FLAT_CASES, ids=[c[0] for c in FLAT_CASES])
def test_flat_profile_matches_cube_dump_r(case, profile, prefix):
    need_shared()
    blocks = _flat_profile_dump((prefix.parent / "dump_r_2m_aggr.out").read_text(errors="replace"))
    assert blocks
    with cubekit.open(profile) as report:
        index_of = {r.id: r.index for r in report.regions}
        for name, rows in blocks.items():
            if report.metric(name).dtype in CHARACTERS:
                continue  # printed as characters (see CHARACTERS)
            flat = report.flat_profile(name)
            if flat.exclusive.dtype.names is not None:
                continue  # record types: compared through the aggregated dumps
            for region_id, (exclusive, subroutines) in rows.items():
                at = index_of[region_id]
                assert close(flat.exclusive[at], float(exclusive)), (name, region_id, exclusive)
                assert close(flat.subroutines[at], float(subroutines)), (name, region_id)
