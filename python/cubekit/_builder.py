"""ReportBuilder: a new report from definitions and numpy arrays, written as .cubex."""

import os
from typing import Optional, Union

import numpy as np

from cubekit import _native


class ReportBuilder:
    """Builds a report entity by entity, then ``save(path)``.

        b = cubekit.ReportBuilder()
        time = b.add_metric("time", dtype="DOUBLE", kind="EXCLUSIVE", unit="sec")
        main = b.add_cnode(b.add_region("main"))
        node = b.add_system_node("machine")
        rank0 = b.add_location_group("rank 0", node, rank=0)
        b.add_location("thread 0", rank0)
        b.set_values(time, np.array([[1.5]]))      # call paths × locations
        b.save("new.cubex")

    Every add_* returns the new entity's index (its id in the written report). Values are
    arrays of shape (call paths, locations) in the metric's numpy dtype (cubekit.dtype(...)),
    rows indexed like the call paths were added; rows that are all zero are left out."""

    def __init__(self, _native_builder=None):
        self._b = _native_builder if _native_builder is not None else _native.NativeBuilder()
        self._dtypes = {}

    @classmethod
    def from_report(cls, report) -> "ReportBuilder":
        """Starts from a report's definitions and values (replace values with set_values)."""
        builder = cls(_native.NativeBuilder.from_report(report._native))
        for m in report.metrics:
            if m.index < len(report.metrics) and not m.derived:
                builder._dtypes[m.index] = m.dtype
        return builder

    def add_metric(self, name: str, dtype: str = "DOUBLE", kind: str = "EXCLUSIVE",
                   display_name: Optional[str] = None, unit: str = "sec", description: str = "",
                   url: str = "", parent: Optional[int] = None, expression: str = "") -> int:
        """kind: EXCLUSIVE, INCLUSIVE, SIMPLE, or POSTDERIVED / PREDERIVED_* with ``expression``."""
        index = self._b.add_metric(name, dtype, kind, display_name, unit, description, url,
                                   parent, expression)
        self._dtypes[index] = dtype
        return index

    def add_region(self, name: str, mangled_name: str = "", paradigm: str = "user",
                   role: str = "function", module: str = "", begin: int = -1,
                   end: int = -1) -> int:
        return self._b.add_region(name, mangled_name, paradigm, role, module, begin, end)

    def add_cnode(self, region: int, parent: Optional[int] = None, line: int = -1) -> int:
        return self._b.add_cnode(region, parent, line)

    def add_system_node(self, name: str, class_name: str = "machine",
                        parent: Optional[int] = None) -> int:
        return self._b.add_system_node(name, class_name, parent)

    def add_location_group(self, name: str, node: int, rank: int = 0,
                           type: str = "process") -> int:
        return self._b.add_location_group(name, node, rank, type)

    def add_location(self, name: str, group: int, rank: int = 0, type: str = "thread") -> int:
        return self._b.add_location(name, group, rank, type)

    def set_values(self, metric: int, values) -> None:
        """Values of every call path × location. Plain numbers are converted to the metric's
        dtype (e.g. a list of lists of floats for DOUBLE); structured dtypes must match."""
        want = _native.dtype(self._dtypes.get(metric, "DOUBLE"))
        array = np.asarray(values)
        if want.names is None:
            array = array.astype(want, copy=False)
        self._b.set_values(metric, np.ascontiguousarray(array))

    def save(self, path: Union[str, os.PathLike], compress: bool = False) -> None:
        """Writes the report atomically (whole or not at all); ``compress``: ZCUBEX data."""
        self._b.save(os.fspath(path), compress)
