// Values of one data type as values of another (algebra.hpp: convertible, convert_values).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "core/unaligned.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"

namespace cubekit {
namespace {

using core::load_any;
using core::store_any;

bool is_signed(DataType t) {
  switch (t.kind()) {
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
      return true;
    default:
      return false;
  }
}

// An integer value widened to 64 bits (two's complement for unsigned ones).
uint64_t integer_bits(DataType t, const std::byte* v) {
  switch (t.kind()) {
    case TypeKind::kInt8:
      return static_cast<uint64_t>(int64_t{load_any<int8_t>(v)});
    case TypeKind::kUInt8:
      return load_any<uint8_t>(v);
    case TypeKind::kInt16:
      return static_cast<uint64_t>(int64_t{load_any<int16_t>(v)});
    case TypeKind::kUInt16:
      return load_any<uint16_t>(v);
    case TypeKind::kInt32:
      return static_cast<uint64_t>(int64_t{load_any<int32_t>(v)});
    case TypeKind::kUInt32:
      return load_any<uint32_t>(v);
    default:
      return load_any<uint64_t>(v);
  }
}

void put_integer(DataType t, std::byte* dst, uint64_t bits) {
  switch (t.kind()) {
    case TypeKind::kInt8:
      return store_any(dst, static_cast<int8_t>(bits));
    case TypeKind::kUInt8:
      return store_any(dst, static_cast<uint8_t>(bits));
    case TypeKind::kInt16:
      return store_any(dst, static_cast<int16_t>(bits));
    case TypeKind::kUInt16:
      return store_any(dst, static_cast<uint16_t>(bits));
    case TypeKind::kInt32:
      return store_any(dst, static_cast<int32_t>(bits));
    case TypeKind::kUInt32:
      return store_any(dst, static_cast<uint32_t>(bits));
    default:
      return store_any(dst, bits);
  }
}

// The range of integer type t, as doubles (the 64-bit limits rounded down to representable ones).
std::pair<double, double> integer_range(DataType t) {
  switch (t.kind()) {
    case TypeKind::kInt8:
      return {-128.0, 127.0};
    case TypeKind::kUInt8:
      return {0.0, 255.0};
    case TypeKind::kInt16:
      return {-32768.0, 32767.0};
    case TypeKind::kUInt16:
      return {0.0, 65535.0};
    case TypeKind::kInt32:
      return {-2147483648.0, 2147483647.0};
    case TypeKind::kUInt32:
      return {0.0, 4294967295.0};
    case TypeKind::kInt64:
      return {-9223372036854775808.0, 9223372036854774784.0};
    default:
      return {0.0, 18446744073709549568.0};
  }
}

// A double as an integer of type t: truncated toward zero, out-of-range values clamp to the
// type's limits, NaN is 0 (a C++ cast would be undefined for all three).
uint64_t integer_of(DataType t, double d) {
  if (std::isnan(d)) return 0;
  const auto [low, high] = integer_range(t);
  d = std::clamp(std::trunc(d), low, high);
  if (is_signed(t)) return static_cast<uint64_t>(static_cast<int64_t>(d));
  return static_cast<uint64_t>(d);
}

}  // namespace

bool convertible(DataType from, DataType to) {
  return from == to || (from.is_single_number() && to.is_single_number());
}

void convert_values(DataType from, const std::byte* src, DataType to, std::byte* dst, size_t n,
                    const std::string& what) {
  if (from == to) {
    std::memcpy(dst, src, n * from.memory_size());
    return;
  }
  if (!convertible(from, to))
    throw Error(what + ": values of type " + from.dtype_text() + " cannot be stored as " +
                to.dtype_text());
  const size_t in = from.memory_size(), out = to.memory_size();
  for (size_t i = 0; i < n; ++i, src += in, dst += out) {
    if (from.is_integer() && to.is_integer()) {
      put_integer(to, dst, integer_bits(from, src));
    } else if (to.is_integer()) {
      put_integer(to, dst, integer_of(to, scalar(from, src)));
    } else {
      store_any(dst, scalar(from, src));
    }
  }
}

}  // namespace cubekit
