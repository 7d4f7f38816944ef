// The parts of the native module `cubekit._native`, bound by module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace cubekit::python {

namespace py = pybind11;

void bind_report(py::module_& m);
void bind_builder(py::module_& m);
void bind_model(py::module_& m);

}  // namespace cubekit::python
