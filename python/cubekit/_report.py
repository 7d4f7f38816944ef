"""The Report class: one open report, its trees and its values as numpy arrays."""

import os
from typing import NamedTuple, Optional, Tuple, Union

import numpy as np

from cubekit import _native

MetricLike = Union[str, int, "_native.Metric"]
CallPathLike = Union[int, "_native.CallPath"]


class SystemValues(NamedTuple):
    """One value per system-tree node and per location group (indexed like the report's lists)."""

    nodes: np.ndarray
    groups: np.ndarray


class FlatProfile(NamedTuple):
    """Per region (indexed like ``Report.regions``): exclusive value summed over its call paths,
    and "subroutines" (inclusive − exclusive), as ``cube_dump -r`` prints them; NaN where a
    region has no such value (nothing adds to it, of a type such as MIN/MAXDOUBLE, where
    ``cube_dump -r`` prints "0.")."""

    exclusive: np.ndarray
    subroutines: np.ndarray


def open(path: Union[str, os.PathLike]) -> "Report":
    """Opens a .cubex archive or a Cube 3 .cube / .cube.gz document.

    Only the definitions are read now; a metric's values are decoded when first asked for.
    Raises cubekit.IoError / cubekit.FormatError with the file and member named."""
    return Report(_native.NativeReport(os.fspath(path)))


class Report:
    """An open report. Use it as a context manager, or call close()."""

    def __init__(self, native: "_native.NativeReport"):
        self._native = native

    # -- lifetime ---------------------------------------------------------------------------
    def __enter__(self) -> "Report":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Forgets the report. Arrays already handed out stay valid."""
        self._native.close()

    @property
    def closed(self) -> bool:
        return self._native.closed

    def __repr__(self) -> str:
        if self.closed:
            return "<cubekit.Report (closed)>"
        return f"<cubekit.Report {self.path!r}: {len(self.metrics)} metrics, " \
               f"{len(self.cnodes)} call paths, {len(self.locations)} locations>"

    # -- definitions ------------------------------------------------------------------------
    path = property(lambda self: self._native.path)
    version = property(lambda self: self._native.version, doc="<cube version=...>")
    attributes = property(lambda self: self._native.attributes, doc="global attributes")
    members = property(lambda self: self._native.members, doc="(name, size) of archive members")
    metrics = property(lambda self: self._native.metrics,
                       doc="every metric in metric-tree pre-order, then defined ones")
    metric_roots = property(lambda self: self._native.metric_roots)
    regions = property(lambda self: self._native.regions)
    cnodes = property(lambda self: self._native.cnodes, doc="call paths in call-tree pre-order")
    cnode_roots = property(lambda self: self._native.cnode_roots)
    system_nodes = property(lambda self: self._native.system_nodes)
    system_roots = property(lambda self: self._native.system_roots)
    location_groups = property(lambda self: self._native.location_groups)
    locations = property(lambda self: self._native.locations,
                         doc="locations; column j of every values array is the location with id j")

    def member(self, name: str) -> Optional[bytes]:
        """The bytes of an archive member (e.g. "remapping.spec"), or None."""
        return self._native.member_content(name)

    def metric(self, which: MetricLike) -> "_native.Metric":
        """A metric by unique name, index or Metric. Raises cubekit.LookupError if unknown."""
        return self._native.metric_view(self._metric_index(which))

    def cnode(self, cnode_id: int) -> "_native.CallPath":
        """The call path with this id (as written in the report)."""
        index = self._native.cnode_index(cnode_id)
        if index is None:
            raise _native.LookupError(f"{self.path}: no call path with id {cnode_id}")
        return self.cnodes[index]

    def define(self, name: str, expression: str) -> "_native.Metric":
        """Defines a POSTDERIVED DOUBLE metric by a CubePL expression, e.g.
        ``report.define("tpv", "metric::time(i)/metric::visits(e)")``. Raises cubekit.CubePLError
        (with line:column) when it does not compile."""
        return self._native.metric_view(self._native.define(name, expression))

    # -- values -----------------------------------------------------------------------------
    def stored(self, metric: MetricLike) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """The metric's rows as stored, without a copy: (cnode index of each row, rows × locations
        array), rows in storage order. None when the metric has no stored data (derived, VOID,
        or all zero). Cube stores EXCLUSIVE metrics call-tree exclusive, others inclusive."""
        return self._native.stored(self._metric_index(metric))

    def values(self, metric: MetricLike, call_tree: str = "excl",
               metric_tree: str = "incl") -> np.ndarray:
        """Values of every call path (rows, indexed like ``cnodes``) at every location (columns).

        ``call_tree`` / ``metric_tree``: "incl" or "excl". When the answer is the stored data
        itself (the stored flavour, a row for every call path in pre-order) the array is a
        read-only view of the library's memory; otherwise it is computed."""
        return self._native.values(self._metric_index(metric), metric_tree, call_tree)

    def location_values(self, metric: MetricLike, cnode: CallPathLike, call_tree: str = "excl",
                        metric_tree: str = "incl") -> np.ndarray:
        """The values of one call path at every location."""
        return self._native.location_values(self._metric_index(metric), self._cnode_index(cnode),
                                            metric_tree, call_tree)

    def aggregated(self, metric: MetricLike, call_tree: str = "excl",
                   metric_tree: str = "incl") -> np.ndarray:
        """One value per call path, aggregated over all locations (the metric type's ⊕)."""
        return self._native.aggregated(self._metric_index(metric), metric_tree, call_tree)

    def system_values(self, metric: MetricLike, cnode: CallPathLike, call_tree: str = "excl",
                      metric_tree: str = "incl") -> SystemValues:
        """One call path's values per system-tree node and per location group."""
        nodes, groups = self._native.system_values(
            self._metric_index(metric), self._cnode_index(cnode), metric_tree, call_tree)
        return SystemValues(nodes, groups)

    def flat_profile(self, metric: MetricLike, metric_tree: str = "incl") -> FlatProfile:
        """Per region: the exclusive value summed over its call paths and the subroutines'
        share (inclusive − exclusive), aggregated over all locations."""
        return FlatProfile(*self._native.flat_profile(self._metric_index(metric), metric_tree))

    def pop_metrics(self, model: str = "mpi", focus=None, individually: bool = False):
        """POP efficiencies of this report (docs/pop_metrics.md); see ``cubekit.pop_metrics``."""
        return pop_metrics([self], model, focus, individually)

    def drop(self) -> None:
        """Forgets every decoded and computed value (memory is freed once no array holds it)."""
        self._native.drop()

    # -- pandas ----------------------------------------------------------------------------
    def dataframe(self, metrics=None, call_tree: str = "excl", metric_tree: str = "incl"):
        """A pandas.DataFrame: one row per call path (index: call path id), a column "name" (the
        region) and "parent" (parent's id or -1), and per metric its value aggregated over all
        locations. Needs pandas; metrics whose values are not single numbers are left out
        unless named."""
        from cubekit._frame import report_frame
        return report_frame(self, metrics, call_tree, metric_tree)

    def location_dataframe(self, metric: MetricLike, call_tree: str = "excl",
                           metric_tree: str = "incl"):
        """A pandas.DataFrame of one metric: rows are call paths (index: id), columns locations
        (by id)."""
        from cubekit._frame import location_frame
        return location_frame(self, metric, call_tree, metric_tree)

    # -- writing -----------------------------------------------------------------------------
    def save(self, path: Union[str, os.PathLike], compress: bool = False) -> None:
        """Writes the report (definitions, stored values, misc members) to a .cubex file,
        atomically; ``compress`` writes ZCUBEX data."""
        self._native.save(os.fspath(path), compress)

    # -- helpers ----------------------------------------------------------------------------
    def _metric_index(self, which: MetricLike) -> int:
        if isinstance(which, _native.Metric):
            return which.index
        if isinstance(which, str):
            index = self._native.metric_index(which)
            if index is None:
                raise _native.LookupError(f"{self.path}: no metric named \"{which}\"")
            return index
        if isinstance(which, (int, np.integer)):
            return int(which)
        raise TypeError(f"a metric is a name, an index or a cubekit.Metric, not {type(which)}")

    def _cnode_index(self, which: CallPathLike) -> int:
        if isinstance(which, _native.CallPath):
            return which.index
        if isinstance(which, (int, np.integer)):
            return int(which)
        raise TypeError(f"a call path is an index or a cubekit.CallPath, not {type(which)}")


class PopResult(NamedTuple):
    """The POP metrics of one focus of interest in one report of a series."""

    report: int          # index into the series
    focus: str           # region names of the focus
    call_paths: list     # call path ids of the focus
    values: dict         # key ("global_efficiency", ...) → number, or None when not available
    missing: dict        # key → why it is not available (the metric it needs)
    labels: dict         # key → the guide's name ("Global Efficiency", ...), in hierarchy order


def pop_metrics(reports, model: str = "mpi", focus=None, individually: bool = False):
    """POP efficiency metrics (the library's, as ``cube_pop_metrics`` prints them) of one report
    or a scaling series (scaling metrics against the first). ``model``: "mpi", "hybrid-add",
    "hybrid-mult" or "bsc"; ``focus``: call path ids or region names (default: the call-tree
    roots), accumulated unless ``individually``. One PopResult per focus and report."""
    if isinstance(reports, Report):
        reports = [reports]
    focus = [] if focus is None else [str(f) for f in focus]
    out = []
    for r in _native.pop_metrics([rep._native for rep in reports], model, focus, individually):
        values = {key: value for key, _, _, value, _ in r["values"]}
        missing = {key: why for key, _, _, value, why in r["values"] if value is None}
        labels = {key: label for key, label, _, _, _ in r["values"]}
        out.append(PopResult(r["report"], r["focus"], list(r["call_paths"]), values, missing,
                             labels))
    return out
