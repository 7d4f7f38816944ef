"""Fixtures of the Python tests: where ../shared is, and a temporary folder per test."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_dir():
    """../shared beside the clone (real profiles, the original tools' outputs), or None."""
    path = Path(os.environ.get("CUBEKIT_SHARED_DIR", REPO.parent / "shared"))
    return path if (path / "data" / "real").is_dir() else None


def need_shared():
    """The shared folder; skips the test without it, but under CI=true that is a failure."""
    path = shared_dir()
    if path is None:
        message = "../shared (real profiles and oracle) is absent"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required under CI=true)")
        pytest.skip(message)
    return path


def real_profiles():
    """(oracle folder name, profile path) of every real profile the oracle has dumps for."""
    shared = shared_dir()
    if shared is None:
        return []
    found = []
    for folder in sorted((shared / "oracle").iterdir()):
        command = folder / "dump_all_incl_aggr.cmd"
        if not command.is_file():
            continue
        found.append((folder.name, _profile_of(shared, folder.name)))
    return found


def oracle_cases():
    """(case name, report, dump prefix) for every report the oracle dumped with cube_dump: the
    real profiles (dumps `<prefix>incl_aggr.out`, `excl_aggr`, `incl_csv2`) and the reports
    CubeLib's own tools wrote in oracle/_algebra (derived metrics among them)."""
    shared = shared_dir()
    if shared is None:
        return []
    cases = [(name, path, shared / "oracle" / name / "dump_all_") for name, path in real_profiles()]
    for report in sorted((shared / "oracle" / "_algebra").glob("*/*.cubex")):
        prefix = report.parent / (report.name + ".dump_")
        if Path(str(prefix) + "incl_aggr.out").is_file():
            cases.append((f"{report.parent.name}/{report.name}", report, prefix))
    return cases


def _profile_of(shared, folder_name):
    """The oracle's folder naming (oracle/README.md) back to data/real/... ."""
    real = shared / "data" / "real"
    origin, *rest = folder_name.split("__")
    candidates = []
    if origin == "cubelib" and rest[0] == "examples":
        candidates.append(real / "cubelib" / "examples" / rest[-1])
    elif origin == "cubelib":
        test = rest[1].split("_")[0]
        candidates.append(real / "cubelib" / test / rest[-1])
    elif origin == "extrap" and rest[0] == "single_parameter":
        candidates.append(real / "extrap" / "single_parameter" / (rest[1] + ".cubex"))
    elif origin == "extrap":
        candidates.append(real / "extrap" / rest[0] / rest[-1])
    else:
        candidates.append(real / origin / rest[0] / rest[-1])
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(f"no profile for oracle folder {folder_name}: tried {candidates}")


@pytest.fixture
def workdir():
    """A fresh folder for one test, removed afterwards (nothing is left in the temp folder)."""
    path = Path(tempfile.mkdtemp(prefix="cubekit-pytest-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
