// cubekit._native: the C++ library as a Python extension. The pure-Python package `cubekit`
// (python/cubekit/) builds the user-facing API on top of it.
#include <pybind11/pybind11.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cubekit/error.hpp"
#include "views.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_native, m) {
  m.doc() = "cubekit's C++ library (use the cubekit package, not this module)";
  // Library errors keep their message (file, member, what was wrong). Registered base first:
  // pybind11 tries the most recently registered translator first.
  static py::exception<cubekit::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<cubekit::FormatError> format(m, "FormatError", error.ptr());
  static py::exception<cubekit::IoError> io(m, "IoError", error.ptr());
  static py::exception<cubekit::LookupError> lookup(m, "LookupError", error.ptr());
  static py::exception<cubekit::CubePLError> cubepl(m, "CubePLError", error.ptr());
  // Messages quote the report (names, bytes); bytes that are not UTF-8 become U+FFFD rather
  // than turning the error into a UnicodeDecodeError.
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const py::object& type, const std::exception& e) {
      PyErr_SetObject(type.ptr(), cubekit::python::text(e.what()).ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cubekit::FormatError& e) {
      raise(format, e);
    } catch (const cubekit::IoError& e) {
      raise(io, e);
    } catch (const cubekit::LookupError& e) {
      raise(lookup, e);
    } catch (const cubekit::CubePLError& e) {
      raise(cubepl, e);
    } catch (const cubekit::Error& e) {
      raise(error, e);
    }
  });
  cubekit::python::bind_views(m);
  cubekit::python::bind_report(m);
  cubekit::python::bind_builder(m);
  cubekit::python::bind_model(m);
  m.def(
      "dtype",
      [](const std::string& text) {
        return cubekit::python::numpy_dtype(cubekit::DataType::parse(text));
      },
      py::arg("dtype_text"), "The numpy dtype of a Cube data type name such as \"HISTOGRAM(5)\".");
}
