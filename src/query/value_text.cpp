#include "cubekit/value_text.hpp"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/scale_func.hpp"
#include "cubekit/algebra.hpp"

namespace cubekit {
namespace {

// Values are bytes that hold no objects of their type: memcpy, not a T* (strict aliasing).
template <class T>
T read(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Lane i of a value made of doubles.
double lane(const std::byte* v, size_t i) {
  return read<double>(v + i * sizeof(double));
}

// CubeLib keeps only the first blank-separated token of what it streamed.
std::string first_token(const std::string& s) {
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  size_t e = b;
  while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
  return s.substr(b, e - b);
}

// CubeLib computes 64-bit integers in their type but hands results through a double; values
// beyond 2^53 therefore come out rounded, and a wrapped negative UINT64 as x86's conversion of
// 2^64 (0). Reproduced so that cube_dump prints what the original prints.
uint64_t through_double(uint64_t v) {
  const double d = static_cast<double>(v);
  constexpr double k2to63 = 9223372036854775808.0;
  if (d < k2to63) return static_cast<uint64_t>(static_cast<int64_t>(d));
  const double rest = d - k2to63;
  const uint64_t low = rest < k2to63 ? static_cast<uint64_t>(static_cast<int64_t>(rest))
                                     : uint64_t{0x8000000000000000};
  return low ^ uint64_t { 0x8000000000000000 };
}

int64_t through_double(int64_t v) {
  const double d = static_cast<double>(v);
  if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}

std::string min_max_text(double v, double identity) {
  if (v == identity) return "-";
  return format_double(v, 12);
}

// Lanes first, …, first + n - 1 of v.
std::string join_doubles(const std::byte* v, size_t first, size_t n) {
  std::string s;
  for (size_t i = first; i < first + n; ++i) {
    if (i > first) s += ", ";
    s += format_double(lane(v, i));
  }
  return s;
}

std::string tau_text(const std::byte* v) {
  const double t[5] = {lane(v, 0), lane(v, 1), lane(v, 2), lane(v, 3), lane(v, 4)};
  // CubeLib prints min and max as MINDOUBLE / MAXDOUBLE values: "-" while they are the
  // identity, as in a row without data (N = 0): "(0,-,-):-,-".
  const uint32_t n = static_cast<uint32_t>(t[0]);
  std::string s = "(" + std::to_string(n) + "," + min_max_text(t[1], DBL_MAX) + "," +
                  min_max_text(t[2], -DBL_MAX) + "):";
  if (n == 0) return s + "-,-";
  const double mean = t[3] / n;
  double stddev = std::sqrt((t[4] - t[3] * t[3] / n) / n);
  if (std::fabs(1.0 - t[3] * t[3] / (n * t[4])) <= 1e-14) stddev = 0.0;
  return s + format_double(mean) + "," + format_double(stddev);
}

std::string exponent_text(double v) {
  char buf[64];
  // CubeLib streams exponents with showpoint at precision 2: 5 -> "5.0", 12 -> "12.".
  std::snprintf(buf, sizeof buf, "%#.2g", v);
  return buf;
}

// CubeLib's ScaleFuncValue::getString: each measurement as "(processes,mean)" (the mean at the
// stream's default 6 digits), then the three most dominant terms, or "0" without terms.
std::string scale_func_text(const std::byte* slot) {
  std::string s;
  for (const core::ScaleMeasurement& m : core::scale_func_measurements(slot))
    s += "(" + std::to_string(m.processes) + "," + format_double(m.mean) + ")";
  const auto terms = core::scale_func_terms(slot);
  if (terms.empty()) return s + "0";
  for (size_t i = 0; i < terms.size() && i < 3; ++i) {
    const core::ScaleTerm& t = terms[i];
    if (i > 0) s += " + ";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2g", t.a);
    s += buf;
    if (t.b != 0) {
      if (static_cast<int64_t>(t.b) == static_cast<int64_t>(t.c))
        s += "*x";
      else
        s += "*x**(" + exponent_text(t.b) + "/" + exponent_text(t.c) + ")";
    }
    if (t.d != 0) s += t.d == 1 ? "*log(x)" : "*log(x)**(" + exponent_text(t.d) + ")";
  }
  return s;
}

}  // namespace

std::string format_double(double v, int digits) {
  // to_chars with a precision prints what printf's "%.*g" prints in the C locale (the tools
  // never set another), several times faster: cube_dump prints one number per call path and
  // metric, and glibc's printf was a tenth of a small report's dump.
  // NaN and infinities keep printf's spelling ("-nan" included).
  char buf[64];
  if (std::isfinite(v)) {
    const auto [end, error] =
        std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
    if (error == std::errc{}) return std::string(buf, end);
  }
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string value_text(DataType type, const std::byte* v) {
  switch (type.kind()) {
    case TypeKind::kInt8:
    case TypeKind::kUInt8:  // CubeLib streams these as characters
      return first_token(std::string(1, read<char>(v)));
    case TypeKind::kInt16:
      return std::to_string(read<int16_t>(v));
    case TypeKind::kUInt16:
      return std::to_string(read<uint16_t>(v));
    case TypeKind::kInt32:
      return std::to_string(read<int32_t>(v));
    case TypeKind::kUInt32:
      return std::to_string(read<uint32_t>(v));
    case TypeKind::kInt64:
      return std::to_string(through_double(read<int64_t>(v)));
    case TypeKind::kUInt64:
      return std::to_string(through_double(read<uint64_t>(v)));
    case TypeKind::kDouble:
      return format_double(lane(v, 0));
    case TypeKind::kMinDouble:
      return min_max_text(lane(v, 0), DBL_MAX);
    case TypeKind::kMaxDouble:
      return min_max_text(lane(v, 0), -DBL_MAX);
    case TypeKind::kComplex:
      return "(" + format_double(lane(v, 0)) + ") +i(" + format_double(lane(v, 1)) + ")";
    case TypeKind::kRate:
      // The rate as CubeLib's getDouble gives it (±DBL_MAX for a zero duration: scalar()).
      return format_double(scalar(type, v), 12) + "[(" + format_double(lane(v, 0)) + ")/(" +
             format_double(lane(v, 1)) + ")]";
    case TypeKind::kTauAtomic:
      return tau_text(v);
    case TypeKind::kHistogram:
      return min_max_text(lane(v, 0), DBL_MAX) + ":(" + join_doubles(v, 2, type.param()) +
             "):" + min_max_text(lane(v, 1), -DBL_MAX);
    case TypeKind::kNDoubles:
      return "(" + join_doubles(v, 0, type.param()) + ")";
    case TypeKind::kScaleFunc:
      return scale_func_text(v);
  }
  return {};
}

}  // namespace cubekit
