import logging
import warnings
from typing import List

import numpy as np

from cubekit.pycubexr.classes.cnode import CNode
from cubekit.pycubexr.classes.metric import Metric, MetricType
from cubekit.pycubexr.classes.values import CubeValues
from cubekit.pycubexr.utils.exceptions import InvalidConversionInstructionError


class MetricValues:
    """A metric's stored values: ``values`` holds the stored rows one after the other (one value
    per location each), ``cnode_indices`` maps a cnode id to its row position."""

    def __init__(self, *, metric: Metric, cnode_indices: List[int], values):
        self.metric = metric
        self.values = values
        self.cnode_indices = {cid: position for position, cid in enumerate(cnode_indices)}
        if len(self.values) % len(self.cnode_indices) != 0:
            raise ValueError("values are not a whole number of rows")
        self._num_locations = len(self.values) // len(self.cnode_indices)

    def num_locations(self) -> int:
        return self._num_locations

    def _zeros(self):
        if isinstance(self.values, CubeValues):
            return type(self.values)(np.zeros(self.num_locations(), dtype=self.values._values.dtype))
        return np.zeros(self.num_locations(), dtype=self.values.dtype)

    def _stored_row(self, cid: int):
        position = self.cnode_indices.get(cid)
        if position is None:
            return self._zeros()
        start = position * self.num_locations()
        return self.values[start:start + self.num_locations()]  # a view, not a copy

    def cnode_values(self, cnode: CNode, convert_to_exclusive: bool = False,
                     convert_to_inclusive: bool = False):
        """The values of a call path at every location, as stored or converted along the call
        tree (``convert_to_inclusive`` / ``convert_to_exclusive``)."""
        if isinstance(cnode, int):
            warnings.warn("Calling with Cnode ID is deprecated use Cnode directly.", DeprecationWarning)
            if convert_to_inclusive or convert_to_exclusive:
                raise InvalidConversionInstructionError("Conversion is not supported when passing a Cnode ID.")
            return self._stored_row(cnode)
        if convert_to_inclusive and convert_to_exclusive:
            raise InvalidConversionInstructionError()
        row = self._stored_row(cnode.id)
        kind = self.metric.metric_type
        if convert_to_exclusive and kind == MetricType.INCLUSIVE:
            return self._with_children(cnode, row, to_inclusive=False)
        if convert_to_inclusive and kind == MetricType.EXCLUSIVE:
            return self._with_children(cnode, row, to_inclusive=True)
        return row

    def location_value(self, cnode: CNode, location_id: int, convert_to_inclusive=False,
                       convert_to_exclusive=False):
        if not location_id < self.num_locations():
            raise IndexError(f"location {location_id} out of range ({self.num_locations()} locations)")
        values = self.cnode_values(cnode, convert_to_exclusive=convert_to_exclusive,
                                   convert_to_inclusive=convert_to_inclusive)
        return values[location_id]

    @staticmethod
    def _detect_negative_overflow(a, b):
        """``b`` adjusted so that ``a - b`` does not wrap around: unsigned results stop at 0;
        signed results are widened to a larger type, or for 64-bit integers stop at the type's
        limits."""
        if np.issubdtype(a.dtype, np.unsignedinteger):
            below = a < b
            if np.any(below):
                b = b.copy()
                b[below] = a[below]
            return b
        if not np.issubdtype(a.dtype, np.signedinteger):
            return b
        info = np.iinfo(a.dtype)
        positive = a > 0
        minus_b = -b.astype(np.int64)
        # a - b < min  ⇔  -b < min - a (a ≤ 0, so min - a does not wrap);  a - b > max likewise.
        too_low = ~positive & (minus_b < info.min - np.minimum(a, 0).astype(np.int64))
        too_high = positive & (minus_b > info.max - np.maximum(a, 0).astype(np.int64))
        if not (np.any(too_low) or np.any(too_high)):
            return b
        if a.dtype.itemsize < 8:
            return b.astype(np.min_scalar_type(int(info.min) - 1), copy=False)
        b = b.astype(np.int64)  # a copy when b was narrower; b's values clamp a - b below
        b[too_low] = a[too_low] - info.min
        b[too_high] = a[too_high] - info.max
        return b

    def _with_children(self, cnode: CNode, values, to_inclusive: bool):
        values = values.copy()
        for child in cnode.get_children():
            child_values = self.cnode_values(child, convert_to_inclusive=True)
            if to_inclusive:
                values += child_values
            else:
                if isinstance(values, np.ndarray) and np.issubdtype(values.dtype, np.integer):
                    child_values = self._detect_negative_overflow(values, child_values)
                values -= child_values
        return values

    def value(self, cnode: CNode, convert_to_exclusive: bool = False, convert_to_inclusive: bool = False):
        """The call path's values summed over all locations (⊕ for MIN/MAXDOUBLE); integer sums
        that could overflow are done with Python integers."""
        values = self.cnode_values(cnode, convert_to_exclusive, convert_to_inclusive)
        total = values.sum()
        if isinstance(values, np.ndarray) and np.issubdtype(values.dtype, np.integer) and len(values):
            if values.max() > np.iinfo(values.dtype).max // len(values):
                logging.info("Used overflow prevention for %s of %s", self.metric.name,
                             cnode.region.name if cnode.region is not None else cnode.id)
                total = sum(int(v) for v in values)
        if isinstance(total, CubeValues):
            return total.astype(float)
        return total

    def mean(self, cnode: CNode, convert_to_exclusive: bool = False, convert_to_inclusive: bool = False):
        result = self.cnode_values(cnode, convert_to_exclusive, convert_to_inclusive).mean()
        if isinstance(result, CubeValues):
            return result.astype(float)
        return result

    def __repr__(self):
        return f"MetricValues<{self.__dict__}>"
