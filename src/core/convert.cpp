// Values of one data type as values of another (algebra.hpp: convertible, convert_values).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/number_types.hpp"
#include "core/unaligned.hpp"
#include "core/vector_clones.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"

namespace cubekit {
namespace {

using core::exact_double;
using core::load_any;
using core::store_any;
using core::with_number_type;

// The largest double that integer type T holds: its maximum with the bits below a double's
// precision cleared (2^63 − 1024 and 2^64 − 2048 for 64 bits; 2^63 and 2^64 would overflow).
template <class T>
constexpr double integer_max() {
  constexpr int drop = std::numeric_limits<T>::digits - std::numeric_limits<double>::digits;
  T max = std::numeric_limits<T>::max();
  if constexpr (drop > 0) max &= static_cast<T>(~((T{1} << drop) - 1));
  return static_cast<double>(max);
}
static_assert(integer_max<int64_t>() == 9223372036854774784.0);
static_assert(integer_max<uint64_t>() == 18446744073709549568.0);
static_assert(integer_max<int32_t>() == 2147483647.0);

// A double as an integer of type To: truncated toward zero, out-of-range values clamp to the
// type's limits, NaN is 0 (a C++ cast would be undefined for all three).
template <class To>
To integer_of(double d) {
  constexpr double low = static_cast<double>(std::numeric_limits<To>::min());  // exact
  constexpr double high = integer_max<To>();
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

// One row from type `from` (held as From) to `to` (held as To), one loop per pair of types:
// integers keep their bits (two's complement, cut to the target's width), numbers become
// integers as integer_of makes them, anything else is the number as a double.
template <class From, class To>
void convert_row(const std::byte* src, std::byte* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const From v = load_any<From>(src + i * sizeof(From));
    To out;
    if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
      using Wide = std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t>;
      out = static_cast<To>(static_cast<uint64_t>(static_cast<Wide>(v)));
    } else if constexpr (std::is_integral_v<To>) {
      out = integer_of<To>(static_cast<double>(v));
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
      convert_row<decltype(from_value), decltype(to_value)>(src, dst, n);
    });
  });
}

namespace {

template <class T>
void scale_row(const std::byte* src, std::byte* dst, size_t n, double factor) {
  for (size_t i = 0; i < n; ++i) {
    const double scaled = static_cast<double>(load_any<T>(src + i * sizeof(T))) * factor;
    if constexpr (std::is_integral_v<T>)
      store_any(dst + i * sizeof(T), integer_of<T>(scaled));
    else
      store_any(dst + i * sizeof(T), scaled);
  }
}

uint64_t bits_of(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

constexpr uint64_t kTwo52Bits = 0x4330000000000000u;  // the bits of 2^52

// Whether every src[i] · factor lies in [0, 2^52) (+0 included; −0 and NaN not): the products
// scale_uint64_row truncates itself. For a sign bit of 0, bits − kTwo52Bits has the top bit set
// exactly when the double is below 2^52. Integer operations only: the loop vectorizes (GCC does
// not vectorize a double comparison whose result is used as an integer).
CUBEKIT_WITH_AVX2 bool scaled_small(const std::byte* src, size_t n, double factor) {
  uint64_t small = 1;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bits = bits_of(exact_double(load_any<uint64_t>(src, i)) * factor);
    small &= ((bits - kTwo52Bits) & ~bits) >> 63;
  }
  return small != 0;
}

// UINT64 scaled (visits, bytes: the mean's integer terms). x86-64 before AVX-512 has no vector
// conversion between doubles and 64-bit integers, and the scalar ones branch on the top bit: the
// loop ran at about 3 ns per value. For a product s in [0, 2^52), s + 2^52 holds r, s rounded to
// the nearest integer, in its low bits (an exponent step at r = 2^52 reads as 2^52 too), and
// s − r is exact (Sterbenz); r − 1 when that is negative is trunc(s), what integer_of gives.
// Rows with other products take scale_row.
CUBEKIT_WITH_AVX2 void scale_uint64_small(const std::byte* src, std::byte* dst, size_t n,
                                          double factor) {
  constexpr double kTwo52 = 0x1p52;
  for (size_t i = 0; i < n; ++i) {
    const double scaled = exact_double(load_any<uint64_t>(src, i)) * factor;
    const double shifted = scaled + kTwo52;
    const uint64_t above = bits_of(scaled - (shifted - kTwo52)) >> 63;  // r > s
    store_any(dst + i * sizeof(uint64_t), bits_of(shifted) - kTwo52Bits - above);
  }
}

void scale_uint64_row(const std::byte* src, std::byte* dst, size_t n, double factor) {
  if (!scaled_small(src, n, factor)) return scale_row<uint64_t>(src, dst, n, factor);
  scale_uint64_small(src, dst, n, factor);
}

// DOUBLE, MIN/MAXDOUBLE (scale_row<double>) with the AVX2 variant beside it.
CUBEKIT_WITH_AVX2 void scale_double_row(const std::byte* src, std::byte* dst, size_t n,
                                        double factor) {
  for (size_t i = 0; i < n; ++i)
    store_any(dst + i * sizeof(double), load_any<double>(src, i) * factor);
}

}  // namespace

void scale_values(DataType type, std::byte* x, size_t n, double factor, const std::string& what) {
  scale_values(type, x, x, n, factor, what);
}

void scale_values(DataType type, const std::byte* src, std::byte* dst, size_t n, double factor,
                  const std::string& what) {
  if (!type.is_single_number()) {
    if (dst != src) std::memcpy(dst, src, n * type.memory_size());
    if (scale_lanes(type, dst, n, factor)) return;
    throw Error(what + ": values of type " + type.dtype_text() + " cannot be scaled");
  }
  if (type.kind() == TypeKind::kUInt64) return scale_uint64_row(src, dst, n, factor);
  if (!type.is_integer()) return scale_double_row(src, dst, n, factor);
  with_number_type(type, [&](auto value) { scale_row<decltype(value)>(src, dst, n, factor); });
}

}  // namespace cubekit
