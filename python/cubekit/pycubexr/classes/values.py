"""Wrappers pyCubexR puts around values whose ⊕ is not a plain sum (MINDOUBLE, MAXDOUBLE) or
that are not single numbers (COMPLEX, TAU_ATOMIC, RATE). They behave as pyCubexR's do."""

import numpy as np


class CubeValues:
    """Values with + and − element-wise, sum/mean over all, astype to plain numbers."""

    def __init__(self, values):
        self._values = values

    def _same(self, values):
        return type(self)(values)

    def __add__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._same(self._values + other._values)

    def __sub__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._same(self._values - other._values)

    def __len__(self):
        return len(self._values)

    def __getitem__(self, item):
        return self._same(self._values[item])

    def sum(self):
        return self._same(np.sum(self._values))

    def mean(self):
        return self._same(np.mean(self._values))

    def astype(self, type_):
        return self._values.astype(type_)

    def copy(self):
        return self._same(self._values.copy())

    def __repr__(self):
        return f"{type(self).__name__}({self._values})"


class MinMaxValues(CubeValues):
    """MINDOUBLE / MAXDOUBLE: both + and − keep the smaller (larger) value, and an operand whose
    values are all zero counts as absent (pyCubexR's rule)."""

    @staticmethod
    def _pick(a, b, out=None):  # np.minimum or np.maximum
        raise NotImplementedError

    def _combine(self, other, in_place):
        if bool(np.all(other._values == 0)):
            return self
        if not isinstance(other, type(self)):
            return NotImplemented
        if in_place:
            self._pick(self._values, other._values, out=self._values)
            return self
        return self._same(self._pick(self._values, other._values))

    def __add__(self, other):
        return self._combine(other, in_place=False)

    __sub__ = __add__

    def __iadd__(self, other):
        return self._combine(other, in_place=True)

    __isub__ = __iadd__


class MinValues(MinMaxValues):
    _pick = staticmethod(np.minimum)

    def sum(self):
        return MinValues(self._values.min())

    mean = sum


class MaxValues(MinMaxValues):
    _pick = staticmethod(np.maximum)

    def sum(self):
        return MaxValues(self._values.max())

    mean = sum


class ComplexValues(CubeValues):
    def astype(self, type_):
        if type_ is complex:
            return self._values.astype(type_)
        return np.absolute(self._values).astype(type_)


class TauAtomicValues(CubeValues):
    def astype(self, type_):
        raise NotImplementedError()


class RateValues(CubeValues):
    def astype(self, type_):
        raise NotImplementedError()


VALUE_MAPPING = {
    "MINDOUBLE": MinValues,
    "MAXDOUBLE": MaxValues,
    "COMPLEX": ComplexValues,
    "TAU_ATOMIC": TauAtomicValues,
    "RATE": RateValues,
}

# The largest UINT64 that survives CubeLib's round trip through double (pyCubexR's constant).
MAX_UINT64_DOUBLE = 0xFFFF_FFFF_FFFF_FBFF


def convert_type(type_: str, parameters, values, allow_full_uint64_values: bool = False):
    """Wraps values of the types above; UINT64 values CubeLib cannot represent become 0."""
    if type_ in VALUE_MAPPING:
        return VALUE_MAPPING[type_](values)
    # pyCubexR's condition, operator precedence included: "UNSIGNED INTEGER" always clamps.
    clamp = (not allow_full_uint64_values and type_ == "UINT64") or type_ == "UNSIGNED INTEGER"
    if isinstance(values, np.ndarray):
        if clamp and bool(np.any(values > MAX_UINT64_DOUBLE)):
            values = np.array(values)
            values[values > MAX_UINT64_DOUBLE] = 0
        return values
    if clamp:
        return [0 if v > MAX_UINT64_DOUBLE else v for v in values]
    return list(values)
