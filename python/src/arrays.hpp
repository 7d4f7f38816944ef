// numpy views of cubekit's values: the dtype of each Cube data type in memory layout, arrays
// that borrow memory owned by the library (arr.base keeps the owner alive), and arrays that
// take over a computed Values buffer without copying it.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/data_type.hpp"

namespace cubekit::python {

namespace py = pybind11;

// The numpy dtype of one value in memory: integers and doubles as themselves; COMPLEX, RATE,
// TAU_ATOMIC, HISTOGRAM(n), NDOUBLES(n) and SCALE_FUNC as structured records of their lanes.
py::dtype numpy_dtype(DataType type);

// An array over memory owned by `owner` (no copy; arr.base is `owner`).
py::array borrowed_array(DataType type, std::vector<py::ssize_t> shape,
                         std::vector<py::ssize_t> strides, const void* data, py::object owner);

// Text of a report as a Python str. Reports are meant to be UTF-8; bytes that are not become
// U+FFFD instead of failing (a broken name must not make the whole report unreadable).
py::str text(const std::string& s);

// A 1-D array that owns `values` (moved, not copied).
py::array values_array(Values&& values);

}  // namespace cubekit::python
