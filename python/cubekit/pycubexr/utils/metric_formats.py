"""numpy types of the data type names pyCubexR reads, as pyCubexR lays them out (keys: the
<dtype> texts of anchor.xml; callables take the parameter of NDOUBLES(n))."""

import numpy

METRIC_FORMATS = {
    "CHAR": numpy.uint8,
    "UINT8": numpy.uint8,
    "INT8": numpy.int8,
    "INT16": numpy.int16,
    "SHORT INT": numpy.int16,
    "SIGNED SHORT INT": numpy.int16,
    "UINT16": numpy.uint16,
    "UNSIGNED SHORT INT": numpy.uint16,
    "INT": numpy.int32,
    "INT32": numpy.int32,
    "SIGNED INT": numpy.int32,
    "UINT32": numpy.uint32,
    "UNSIGNED INT": numpy.uint32,
    "INT64": numpy.int64,
    "INTEGER": numpy.int64,
    "SIGNED INTEGER": numpy.int64,
    "UINT64": numpy.uint64,
    "UNSIGNED INTEGER": numpy.uint64,
    "DOUBLE": numpy.float64,
    "FLOAT": numpy.float64,
    "MINDOUBLE": numpy.float64,
    "MAXDOUBLE": numpy.float64,
    "COMPLEX": numpy.complex128,
    "RATE": [("main", numpy.float64), ("time", numpy.float64)],
    "TAU_ATOMIC": [("n", numpy.uint32), ("min", numpy.float64), ("max", numpy.float64),
                   ("sum", numpy.float64), ("sum2", numpy.float64)],
    "NDOUBLES": lambda n: (numpy.float64, (int(n),)),
}
