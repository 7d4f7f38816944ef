"""Broken input through the module: cubekit's exceptions with file and member named, pyCubexR's
types in the pyCubexR layer, and no crash (checked in a child interpreter)."""

import subprocess
import sys
from pathlib import Path

import pytest

import cubekit
from cubekit.pycubexr import CubexParser
from cubekit.pycubexr.utils.exceptions import CorruptIndexError
from conftest import need_shared

CALL_TREE = ("pycubexr", "call_tree_test", "call_tree_test.cubex")


def source():
    return need_shared().joinpath("data", "real", *CALL_TREE)


def test_missing_file_is_an_io_error_naming_it(workdir):
    with pytest.raises(cubekit.IoError, match="nothing.cubex"):
        cubekit.open(workdir / "nothing.cubex")
    with pytest.raises(FileNotFoundError):  # pyCubexR's behaviour, which callers rely on
        CubexParser(workdir / "nothing.cubex").__enter__()


def test_truncated_report_names_the_file(workdir):
    broken = workdir / "truncated.cubex"
    broken.write_bytes(source().read_bytes()[:5000])
    with pytest.raises(cubekit.FormatError, match="truncated.cubex"):
        with cubekit.open(broken) as report:
            for metric in report.metrics:
                report.values(metric)
    with pytest.raises(cubekit.FormatError) as caught:
        with CubexParser(broken) as cubex:
            for metric in cubex.all_metrics():
                cubex.get_metric_values(metric)
    assert "truncated.cubex" in str(caught.value)


def test_broken_metric_data_is_corrupt_index_in_the_pycubexr_layer(workdir):
    data = source().read_bytes()
    at = data.find(b"CUBEX.DATA")  # the first data member; the archive itself stays valid
    assert at > 0
    broken = workdir / "bad_magic.cubex"
    broken.write_bytes(data[:at] + b"XUBEX.DATA" + data[at + 10:])
    with pytest.raises(cubekit.FormatError, match="bad_magic.cubex"):
        with cubekit.open(broken) as report:
            for metric in report.metrics:
                report.values(metric)
    with CubexParser(broken) as cubex:
        with pytest.raises(CorruptIndexError, match="bad_magic.cubex"):
            for metric in cubex.get_metrics():
                cubex.get_metric_values(metric)


def test_mutated_reports_never_crash_the_interpreter():
    script = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_module.py"
    result = subprocess.run([sys.executable, str(script), "--cases", "150", "--seed", "7",
                             str(source())], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "no crash" in result.stdout
