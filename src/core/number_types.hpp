// The C++ type that holds each single-number data type's values (DataType::is_single_number):
// one dispatch for every row kernel that loops over such values with the type known.
#pragma once

#include <cstdint>
#include <cstring>

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

// A UINT64 as the double static_cast makes of it, without the branch on the top bit that the
// scalar conversion takes (x86-64 before AVX-512 has no vector instruction for it): both 32-bit
// halves become doubles exactly through their bits (2^84 + hi·2^32 and 2^52 + lo), and the one
// rounding of the last addition gives the correctly rounded value. Loops over it vectorize.
inline double exact_double(uint64_t x) {
  constexpr double kBias = 0x1p84 + 0x1p52;
  const uint64_t hi_bits = 0x4530000000000000u | (x >> 32);
  const uint64_t lo_bits = 0x4330000000000000u | (x & 0xffffffffu);
  double hi, lo;
  std::memcpy(&hi, &hi_bits, sizeof hi);
  std::memcpy(&lo, &lo_bits, sizeof lo);
  return (hi - kBias) + lo;
}

}  // namespace cubekit::core
