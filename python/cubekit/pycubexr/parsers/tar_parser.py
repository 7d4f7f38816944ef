"""CubexParser on cubekit's reader: definitions become pyCubexR's objects, values come from the
C++ library as numpy arrays (no Python-side decoding or decompression)."""

import errno
import gc
import os
import tarfile
import warnings
from functools import cached_property
from typing import Dict, List, Tuple, Union

import numpy as np

from cubekit import _native
from cubekit.pycubexr.classes import CNode, Location, LocationGroup, Metric, MetricValues, Region
from cubekit.pycubexr.classes import SystemTreeNode
from cubekit.pycubexr.classes.metric import MetricType
from cubekit.pycubexr.classes.values import convert_type
from cubekit.pycubexr.parsers.checksums import has_bad_checksum
from cubekit.pycubexr.utils.exceptions import (CorruptIndexError, MissingMetricError,
                                               UnsupportedMetricFormatError)
from cubekit.pycubexr.utils.metric_formats import METRIC_FORMATS

CHECKSUM_WARNING = ("Detected invalid checksum in CUBE file header. Proceeding without checking "
                    "checksums. If CubeWriter 4.8 was used to create this file, you can ignore "
                    "this warning.")



class BrokenReportError(tarfile.ReadError, _native.FormatError):
    """A report cubekit cannot read: pyCubexR raises tarfile.ReadError there; the message is
    cubekit's (file, member, what was wrong)."""


class BrokenMetricDataError(CorruptIndexError, _native.FormatError):
    """A metric's index or data is broken: pyCubexR's CorruptIndexError, cubekit's message."""


# Kinds whose values cubekit computes (pyCubexR has no values for them).
_DERIVED = {MetricType.POSTDERIVED, MetricType.PREDERIVED_INCLUSIVE, MetricType.PREDERIVED_EXCLUSIVE}


class CubexParser:
    """Opens a report in ``with CubexParser(path) as cubex:`` (pyCubexR's API)."""

    def __init__(self, cubex_filename: Union[str, os.PathLike]):
        self._cubex_filename = cubex_filename
        self._metric_values: Dict[Tuple[int, bool], MetricValues] = {}
        self._report = None

    # -- opening ---------------------------------------------------------------------------
    def __enter__(self):
        path = os.fspath(self._cubex_filename)
        if not os.path.exists(path):  # what tarfile raises in pyCubexR (callers rely on it)
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        if has_bad_checksum(path):
            warnings.warn(CHECKSUM_WARNING)
        try:
            self._report = _native.NativeReport(path)
        except _native.FormatError as e:
            raise BrokenReportError(str(e)) from e
        # Hundreds of thousands of linked objects: the cyclic collector would walk them again
        # and again while they are made (a third of the time), and none of them is garbage.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._build_definitions()
        finally:
            if collecting:
                gc.enable()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self._metric_values.clear()
        if self._report is not None:
            self._report.close()

    def _build_definitions(self):
        report = self._report
        self._regions = [Region(_id=i, begin=b, end=e, name=n, mangled_name=m, paradigm=p,
                                role=r, url=u, descr=d, mod=mod)
                         for i, b, e, n, m, p, r, u, d, mod in report.region_table()]
        self.regions_by_id = {r.id: r for r in self._regions}
        # Call path objects are made when first asked for (_cnodes): reading a metric's values
        # needs only the ids, and a report may have millions of call paths.
        # What they are made of is taken now, so that they can be made after the report closes.
        self._cnode_table = report.cnode_table()
        self._cnode_ids = self._cnode_table[0].tolist()
        self._cnode_root_indices = [c.index for c in report.cnode_roots]
        with_parameters = report.cnodes_with_parameters()
        views = report.cnodes if len(with_parameters) else None
        self._cnode_parameters = {i: _parameters(views[i].parameters) for i in with_parameters}
        self._metrics = self._build_metrics()
        self._system_roots = [_system_node(n) for n in report.system_roots]

    @cached_property
    def _cnodes(self) -> List[CNode]:
        # Hundreds of thousands of linked objects: see __enter__ on the cyclic collector.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._build_call_tree()
        finally:
            if collecting:
                gc.enable()

    @cached_property
    def _root_cnodes(self) -> List[CNode]:
        return [self._cnodes[i] for i in self._cnode_root_indices]

    @cached_property
    def _all_cnodes(self) -> Dict[int, CNode]:
        # The model lists call paths in pre-order, the order pyCubexR's walk from the roots gives.
        return {c.id: c for c in self._cnodes}

    def _build_call_tree(self) -> List[CNode]:
        ids, region_indices, parents = (a.tolist() for a in self._cnode_table)
        regions = self._regions
        cnodes = []
        make = CNode.__new__  # CNode.__init__'s fields, set at once: a report has millions
        for cnode_id, region_index in zip(ids, region_indices):
            cnode = make(CNode)
            region = regions[region_index]
            cnode.__dict__ = {"_children": [], "id": cnode_id, "callee_region_id": region.id,
                              "region": region, "parameters": {}, "parent": None}
            cnodes.append(cnode)
        for cnode, parent in zip(cnodes, parents):
            if parent >= 0:
                cnode.parent = cnodes[parent]
                cnodes[parent]._children.append(cnode)
        for index, parameters in self._cnode_parameters.items():
            cnodes[index].parameters = parameters
        return cnodes

    def _row_order(self, kind: str) -> Dict[int, int]:
        """Row position → cnode id for a metric of this kind (Cube's storage orders)."""
        ids = self._cnode_ids
        return {position: ids[c] for position, c in enumerate(self._report.storage_order(kind))}

    def _build_metrics(self) -> List[Metric]:
        self._native_index = {}
        orders = {}
        objects = []
        for native in self._report.metrics:
            kind = native.kind
            metric = Metric(name=native.name, _id=native.id, display_name=native.display_name,
                            description=native.description, metric_type=kind,
                            data_type=native.dtype, units=native.unit, url=native.url, childs=[])
            if kind not in _DERIVED:
                if kind not in orders:
                    orders[kind] = self._row_order(kind)
                metric.tree_index_to_cid_map = orders[kind]
            self._native_index[metric.id] = native.index
            objects.append(metric)
        roots = []
        for native, metric in zip(self._report.metrics, objects):
            if native.parent is None:
                roots.append(metric)
            else:
                objects[native.parent.index].childs.append(metric)
        return roots

    # -- values ----------------------------------------------------------------------------
    def get_metric_values(self, metric: Metric, cache: bool = True, *,
                          allow_full_uint64_values: bool = False) -> MetricValues:
        """The metric's values (MissingMetricError when the report stores none;
        UnsupportedMetricFormatError for HISTOGRAM and SCALE_FUNC, as pyCubexR). Derived metrics
        are computed by cubekit."""
        key = (metric.id, allow_full_uint64_values)
        if key in self._metric_values:
            return self._metric_values[key]
        try:
            if metric.metric_type in _DERIVED:
                values = self._derived_values(metric)
            else:
                values = self._stored_values(metric, allow_full_uint64_values)
        except _native.FormatError as e:
            raise BrokenMetricDataError(str(e)) from e
        if cache:
            self._metric_values[key] = values
        return values

    def _stored_values(self, metric: Metric, allow_full_uint64_values: bool) -> MetricValues:
        type_name, parameters = _split_type(metric.data_type)
        if type_name not in METRIC_FORMATS:
            raise UnsupportedMetricFormatError(metric.data_type, metric)
        index = self._native_index[metric.id]
        stored = self._report.stored(index) if self._report.has_data(index) else None
        if stored is None:
            raise MissingMetricError(metric)
        cnodes, rows = stored
        flat = _pycubexr_layout(type_name, rows)
        cnode_ids = self._cnode_ids
        ids = [cnode_ids[c] for c in cnodes.tolist()]
        values = convert_type(type_name, parameters, flat, allow_full_uint64_values)
        return MetricValues(metric=metric, cnode_indices=ids, values=values)

    def _derived_values(self, metric: Metric) -> MetricValues:
        # Call-tree flavour of the answer: as pyCubexR treats the stored kinds.
        call = "excl" if metric.metric_type == MetricType.PREDERIVED_EXCLUSIVE else "incl"
        rows = self._report.values(self._native_index[metric.id], "incl", call)
        values = MetricValues(metric=metric, cnode_indices=list(self._cnode_ids),
                              values=np.ascontiguousarray(rows).reshape(-1))
        return values

    # -- definitions (pyCubexR's accessors) --------------------------------------------------
    def get_metrics(self) -> List[Metric]:
        """The roots of the metric tree."""
        return self._metrics

    @cached_property
    def _metrics_dict(self) -> Dict[str, Metric]:
        found = {}
        for root in self._metrics:
            for metric in root.get_all_children():
                found[metric.name] = metric
        return found

    def all_metrics(self) -> List[Metric]:
        return list(self._metrics_dict.values())

    def get_metric_by_name(self, metric_name: str) -> Metric:
        return self._metrics_dict[metric_name]

    def get_region(self, cnode: CNode) -> Region:
        return self.regions_by_id[cnode.callee_region_id]

    def get_cnode(self, cnode_id: int) -> CNode:
        return self._all_cnodes.get(cnode_id)

    def get_root_cnodes(self) -> List[CNode]:
        return self._root_cnodes

    def get_region_by_name(self, name: str) -> Region:
        return [region for region in self._regions if region.name == name][0]

    def all_cnodes(self) -> List[CNode]:
        return list(self._all_cnodes.values())

    def get_cnodes_for_region(self, region_id: int) -> List[CNode]:
        return [c for c in self._all_cnodes.values() if c.callee_region_id == region_id]

    def get_locations(self) -> List[Location]:
        found = []
        for root in self._system_roots:
            found.extend(root.all_locations())
        return found

    def _depth_first(self, start: CNode, depth: int):
        """(call path, depth) below and with `start`, in pre-order. A list as the stack, not
        Python's: a recursion in the measured program can be deeper than its limit."""
        pending = [(start, depth)]
        while pending:
            node, at = pending.pop()
            yield node, at
            pending.extend((child, at + 1) for child in reversed(node.get_children()))

    def get_calltree(self, indent: int = 0, cnode: CNode = None) -> str:
        """The call tree as text, one region name per line, "-" per level."""
        start = cnode if cnode is not None else self._root_cnodes[0]
        return "".join("-" * depth + self.get_region(node).name + "\n"
                       for node, depth in self._depth_first(start, indent))

    def print_calltree(self, indent: int = 0, cnode: CNode = None) -> None:
        start = cnode if cnode is not None else self._root_cnodes[0]
        for node, depth in self._depth_first(start, indent):
            print("\t" * depth, self.get_region(node).name)

    def _tar_file_members(self) -> List[str]:
        return [name for name, _ in self._report.members]


def _parameters(native_parameters) -> dict:
    parameters = {}
    for kind, key, value in native_parameters:
        if kind == "numeric":
            try:
                value = int(value)
            except ValueError:
                value = float(value)
        parameters[key] = value
    return parameters


def _system_node(native) -> SystemTreeNode:
    node = SystemTreeNode(_id=native.id, _class=native.class_name, name=native.name,
                          attrs=native.attributes)
    for child in native.children:
        node.add_system_tree_node_child(_system_node(child))
    for group in native.groups:
        converted = LocationGroup(_id=group.id, name=group.name, rank=str(group.rank), _type=group.type)
        for location in group.locations:
            converted.add_location(Location(_id=location.id, name=location.name,
                                            rank=str(location.rank), _type=location.type))
        node.add_location_group(converted)
    return node


def _split_type(data_type: str):
    """("NDOUBLES", ["10"]) for "NDOUBLES(10)"; (name, None) without parameters."""
    if "(" not in data_type:
        return data_type, None
    name, _, rest = data_type.partition("(")
    return name.strip(), [p.strip() for p in rest.rstrip().rstrip(")").split(",")]


def _pycubexr_layout(type_name: str, rows: np.ndarray):
    """The stored rows as one flat sequence of values in pyCubexR's types (a view where the
    layouts agree)."""
    if type_name == "COMPLEX":
        flat = np.ascontiguousarray(rows).reshape(-1)
        return flat.view(np.complex128)
    if type_name == "TAU_ATOMIC":  # cubekit keeps the count as a double in memory
        flat = rows.reshape(-1)
        converted = np.empty(flat.shape, dtype=np.dtype(METRIC_FORMATS["TAU_ATOMIC"]))
        for name in converted.dtype.names:
            converted[name] = flat[name]
        return converted
    if type_name == "NDOUBLES":
        flat = rows.reshape(-1)
        return flat["values"]
    return rows.reshape(-1)
