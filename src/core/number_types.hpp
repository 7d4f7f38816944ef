// The C++ type that holds each single-number data type's values (DataType::is_single_number):
// one dispatch for every row kernel that loops over such values with the type known.
#pragma once

#include <cstdint>

#include "cubekit/data_type.hpp"

namespace cubekit::core {

// Calls f(T{}) with the C++ type of single-number type t's values (double for DOUBLE,
// MINDOUBLE and MAXDOUBLE); t must be a single number.
template <class F>
decltype(auto) with_number_type(DataType t, F&& f) {
  switch (t.kind()) {
    case TypeKind::kInt8:
      return f(int8_t{});
    case TypeKind::kUInt8:
      return f(uint8_t{});
    case TypeKind::kInt16:
      return f(int16_t{});
    case TypeKind::kUInt16:
      return f(uint16_t{});
    case TypeKind::kInt32:
      return f(int32_t{});
    case TypeKind::kUInt32:
      return f(uint32_t{});
    case TypeKind::kInt64:
      return f(int64_t{});
    case TypeKind::kUInt64:
      return f(uint64_t{});
    default:
      return f(double{});
  }
}

}  // namespace cubekit::core
