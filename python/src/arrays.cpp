#include "arrays.hpp"

#include <memory>
#include <string>

namespace cubekit::python {

namespace {

py::dtype structured(py::list fields) {
  return py::dtype::from_args(std::move(fields));
}

py::tuple field(const char* name, const char* format) {
  return py::make_tuple(name, format);
}

py::tuple array_field(const char* name, uint32_t n) {
  return py::make_tuple(name, "f8", py::make_tuple(n));
}

}  // namespace

py::dtype numpy_dtype(DataType type) {
  switch (type.kind()) {
    case TypeKind::kInt8:
      return py::dtype::of<int8_t>();
    case TypeKind::kUInt8:
      return py::dtype::of<uint8_t>();
    case TypeKind::kInt16:
      return py::dtype::of<int16_t>();
    case TypeKind::kUInt16:
      return py::dtype::of<uint16_t>();
    case TypeKind::kInt32:
      return py::dtype::of<int32_t>();
    case TypeKind::kUInt32:
      return py::dtype::of<uint32_t>();
    case TypeKind::kInt64:
      return py::dtype::of<int64_t>();
    case TypeKind::kUInt64:
      return py::dtype::of<uint64_t>();
    case TypeKind::kDouble:
    case TypeKind::kMinDouble:
    case TypeKind::kMaxDouble:
      return py::dtype::of<double>();
    case TypeKind::kComplex: {
      py::list f;
      f.append(field("re", "f8"));
      f.append(field("im", "f8"));
      return structured(f);
    }
    case TypeKind::kRate: {
      py::list f;
      f.append(field("main", "f8"));
      f.append(field("time", "f8"));
      return structured(f);
    }
    case TypeKind::kTauAtomic: {  // the count is kept as a double in memory (exact)
      py::list f;
      for (const char* name : {"n", "min", "max", "sum", "sum2"}) f.append(field(name, "f8"));
      return structured(f);
    }
    case TypeKind::kHistogram: {
      py::list f;
      f.append(field("min", "f8"));
      f.append(field("max", "f8"));
      f.append(array_field("bins", type.param()));
      return structured(f);
    }
    case TypeKind::kNDoubles: {
      py::list f;
      f.append(array_field("values", type.param()));
      return structured(f);
    }
    case TypeKind::kScaleFunc: {  // opaque slot (cube-format.md §7.3), host byte order
      py::list f;
      f.append(field("raw", ("V" + std::to_string(kScaleFuncSize)).c_str()));
      return structured(f);
    }
  }
  throw std::logic_error("numpy_dtype: unknown data type");
}

py::array borrowed_array(DataType type, std::vector<py::ssize_t> shape,
                         std::vector<py::ssize_t> strides, const void* data, py::object owner) {
  py::array a(numpy_dtype(type), std::move(shape), std::move(strides), data, owner);
  // Values stored in the report are read-only: writing would change every later answer.
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

py::str text(const std::string& s) {
  PyObject* decoded = PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "replace");
  if (!decoded) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::array values_array(Values&& values) {
  auto owned = std::make_unique<Values>(std::move(values));
  const Values* v = owned.get();
  if (v->size() == 0)
    return py::array(numpy_dtype(v->type()), std::vector<py::ssize_t>{0}, nullptr);
  py::capsule owner(owned.release(), [](void* p) { delete static_cast<Values*>(p); });
  const auto n = static_cast<py::ssize_t>(v->size());
  const auto stride = static_cast<py::ssize_t>(v->stride());
  return py::array(numpy_dtype(v->type()), {n}, {stride}, v->data(), owner);
}

}  // namespace cubekit::python
