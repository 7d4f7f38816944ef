"""Reading what CubeLib 4.6's cube_dump printed (../shared/oracle) back into numbers."""

import re

import numpy as np

_ROW = re.compile(r"^(.*)\(id=(\d+)\)\s(.*)$")
_HEADER = "Print out the data of the metric "


def aggregated_dump(text):
    """{metric name: {cnode id: value text}} of a `cube_dump -m all ... -t aggr` output."""
    blocks = {}
    current = None
    for line in text.split("\n"):
        if line.startswith(_HEADER):
            current = blocks.setdefault(line[len(_HEADER):].strip(), {})
            continue
        match = _ROW.match(line) if current is not None else None
        if match:
            current[int(match.group(2))] = match.group(3).strip()
    return blocks


def csv2_dump(text):
    """(metric names, rows of (cnode id, thread id, [value texts])) of a `-s csv2` output."""
    lines = [line for line in text.split("\n") if line]
    names = [n.strip() for n in lines[0].split(",")[2:]]
    rows = []
    for line in lines[1:]:
        fields = line.split(",")
        rows.append((int(fields[0]), int(fields[1]), fields[2:]))
    return names, rows


_FLOAT = r"([-+0-9.eEinfa]+)"


def expected_fields(dtype, text):
    """The numbers a value text of this numpy dtype shows, as {field: value} (field None for
    single numbers). None when the text cannot be compared (SCALE_FUNC polynomials, CHAR)."""
    names = dtype.names
    if names is None:
        try:
            return {None: float(text)}
        except ValueError:
            return None
    if names == ("main", "time"):  # RATE: ratio[(main)/(time)]
        m = re.fullmatch(rf"{_FLOAT}\[\({_FLOAT}\)/\({_FLOAT}\)\]", text)
        return m and {"main": float(m.group(2)), "time": float(m.group(3))}
    if names == ("re", "im"):  # COMPLEX: (re) +i(im)
        m = re.fullmatch(rf"\({_FLOAT}\) \+i\({_FLOAT}\)", text)
        return m and {"re": float(m.group(1)), "im": float(m.group(2))}
    if names == ("n", "min", "max", "sum", "sum2"):  # TAU_ATOMIC: (n,min,max):mean,deviation
        m = re.fullmatch(rf"\({_FLOAT},{_FLOAT},{_FLOAT}\):{_FLOAT},{_FLOAT}", text)
        return m and {"n": float(m.group(1)), "min": float(m.group(2)),
                      "max": float(m.group(3)), "mean": float(m.group(4))}
    if names == ("min", "max", "bins"):  # HISTOGRAM: min:(bins):max
        m = re.fullmatch(rf"{_FLOAT}:\((.*)\):{_FLOAT}", text)
        return m and {"min": float(m.group(1)), "max": float(m.group(3)),
                      "bins": [float(x) for x in m.group(2).split(",")]}
    if names == ("values",):  # NDOUBLES: (v0, v1, ...)
        m = re.fullmatch(r"\((.*)\)", text)
        return m and {"values": [float(x) for x in m.group(1).split(",")]}
    return None


def as_cubelib_prints(value):
    """CubeLib hands 64-bit integers through a double before printing: a UINT64 that rounds to
    2^64 (a wrapped negative difference) prints as 0 (x86's conversion)."""
    if isinstance(value, np.uint64) and float(value) >= 2.0 ** 64:
        return 0.0
    return float(value)


def actual_fields(value, expected):
    """Our value (a numpy scalar or record) in the shape of `expected`."""
    out = {}
    for field in expected:
        if field is None:
            out[field] = as_cubelib_prints(value)
        elif field == "mean":
            out[field] = float(value["sum"]) / float(value["n"]) if value["n"] else 0.0
        else:
            out[field] = np.asarray(value[field], dtype=float).tolist()
    return out


def close(ours, theirs, rtol=2e-5, atol=1e-9):
    return bool(np.allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float),
                            rtol=rtol, atol=atol))


def printed_close(value, text):
    """Equal to the number as printed: within half a unit of the last digit the text shows
    (pyCubexR's own suite compares CubeLib's CSV dumps to the printed decimals, too)."""
    mantissa = text.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    if "e" in text.lower():
        decimals -= int(text.lower().split("e")[1])
    expected = float(text)
    return abs(float(value) - expected) <= 0.5 * 10.0 ** -decimals + abs(expected) * 1e-15
