// Values of one data type as values of another (algebra.hpp: convertible, convert_values).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/unaligned.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"

namespace cubekit {
namespace {

using core::load_any;
using core::store_any;

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

// A double as an integer of type To: truncated toward zero, out-of-range values clamp to the
// type's limits [low, high] (integer_range), NaN is 0 (a C++ cast would be undefined for all
// three).
template <class To>
To integer_of(double d, double low, double high) {
  if (std::isnan(d)) return 0;
  d = std::clamp(std::trunc(d), low, high);
  if constexpr (std::is_signed_v<To>) return static_cast<To>(static_cast<int64_t>(d));
  return static_cast<To>(d);
}

}  // namespace

bool convertible(DataType from, DataType to) {
  return from == to || (from.is_single_number() && to.is_single_number());
}

namespace {

// Calls f(T{}) with the C++ type that holds single-number type t's values.
template <class F>
void with_number_type(DataType t, F&& f) {
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
    default:  // DOUBLE, MINDOUBLE, MAXDOUBLE
      return f(double{});
  }
}

// One row from type `from` (held as From) to `to` (held as To), one loop per pair of types:
// integers keep their bits (two's complement, cut to the target's width), numbers become
// integers as integer_of makes them, anything else is the number as a double.
template <class From, class To>
void convert_row(const std::byte* src, DataType to, std::byte* dst, size_t n) {
  const auto [low, high] = integer_range(to);
  for (size_t i = 0; i < n; ++i) {
    const From v = load_any<From>(src + i * sizeof(From));
    To out;
    if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
      using Wide = std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t>;
      out = static_cast<To>(static_cast<uint64_t>(static_cast<Wide>(v)));
    } else if constexpr (std::is_integral_v<To>) {
      out = integer_of<To>(static_cast<double>(v), low, high);
    } else {
      out = static_cast<double>(v);
    }
    store_any(dst + i * sizeof(To), out);
  }
}

}  // namespace

void convert_values(DataType from, const std::byte* src, DataType to, std::byte* dst, size_t n,
                    const std::string& what) {
  if (from == to) {
    std::memcpy(dst, src, n * from.memory_size());
    return;
  }
  if (!convertible(from, to))
    throw Error(what + ": values of type " + from.dtype_text() + " cannot be stored as " +
                to.dtype_text());
  with_number_type(from, [&](auto from_value) {
    with_number_type(to, [&](auto to_value) {
      convert_row<decltype(from_value), decltype(to_value)>(src, to, dst, n);
    });
  });
}

namespace {

template <class T>
void scale_row(std::byte* x, size_t n, double factor, DataType type) {
  const auto [low, high] = integer_range(type);
  for (size_t i = 0; i < n; ++i) {
    const double scaled = static_cast<double>(load_any<T>(x + i * sizeof(T))) * factor;
    if constexpr (std::is_integral_v<T>)
      store_any(x + i * sizeof(T), integer_of<T>(scaled, low, high));
    else
      store_any(x + i * sizeof(T), scaled);
  }
}

}  // namespace

void scale_values(DataType type, std::byte* x, size_t n, double factor, const std::string& what) {
  if (scale_lanes(type, x, n, factor)) return;
  if (!type.is_single_number())
    throw Error(what + ": values of type " + type.dtype_text() + " cannot be scaled");
  with_number_type(type, [&](auto value) { scale_row<decltype(value)>(x, n, factor, type); });
}

}  // namespace cubekit
