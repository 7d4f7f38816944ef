"""cubekit for Python: Cube 4 / Cube 3 performance reports as numpy arrays.

    import cubekit
    with cubekit.open("profile.cubex") as report:
        time = report.metric("time")
        values = report.values(time, call_tree="excl")   # call paths × locations
        per_call_path = report.aggregated(time)          # summed over locations

Values come from cubekit's C++ library (the native module ``cubekit._native``); arrays of
stored values are views of the library's memory (``arr.base`` keeps it alive). A pyCubexR
compatible API is in ``cubekit.pycubexr``.
"""

from cubekit._native import (  # noqa: F401  (re-exported)
    CallPath,
    CubePLError,
    Error,
    FormatError,
    IoError,
    Location,
    LocationGroup,
    LookupError,
    Metric,
    Region,
    SystemNode,
    dtype,
)
from cubekit._report import (  # noqa: F401
    FlatProfile, PopResult, Report, SystemValues, open, pop_metrics)
from cubekit._builder import ReportBuilder  # noqa: F401
from cubekit._model import model  # noqa: F401

__all__ = [
    "open", "Report", "ReportBuilder", "FlatProfile", "SystemValues", "dtype",
    "pop_metrics", "PopResult", "model",
    "Metric", "CallPath", "Region", "SystemNode", "LocationGroup", "Location",
    "Error", "FormatError", "IoError", "LookupError", "CubePLError",
]
