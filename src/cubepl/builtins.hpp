// Arithmetic and the built-in functions of CubePL on single numbers (cubepl.md §5.1, §6).
// The evaluator maps them over lanes.
#pragma once

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "cubepl/lexer.hpp"

namespace cubekit::cubepl::detail {

// The arithmetic is inline and free of branches on the values (both sides of a choice are
// computed, then one is taken) so that loops over rows vectorize (row_program.cpp); the
// general evaluator uses the same functions, so both give the same bits.

// Differences within rounding noise of the operands are exactly 0, so that e.g. an exclusive
// value computed from inclusive ones does not show -5.7e-14.
inline double stable_minus(double a, double b) {
  const double d = a - b;
  const bool noise = (std::fabs(d) < 2 * DBL_EPSILON * std::fabs(a + b)) | (std::fabs(d) < DBL_MIN);
  return noise ? 0.0 : d;
}

// a * b for a ≠ 0: infinite products are clamped so that a later division still gives a
// finite ratio.
inline double times(double a, double b) {
  const double p = a * b;
  const double clamped = p > 0 ? DBL_MAX : -DBL_MAX;
  return std::fabs(p) == std::numeric_limits<double>::infinity() ? clamped : p;
}

// a / b for a ≠ 0: x / 0 is ±DBL_MAX by the sign of x (cubepl.md §5.1).
inline double divide(double a, double b) {
  const double q = a / b;  // computed for b == 0 too (±inf or NaN, not taken): no branch
  const double clamped = a > 0 ? DBL_MAX : -DBL_MAX;
  return b == 0 ? clamped : q;
}

// CubePL's a * b and a / b once both sides are known: 0 where a is 0 (§5.1).
inline double product(double a, double b) {
  const double p = times(a, b);
  return a == 0 ? 0.0 : p;
}
inline double quotient(double a, double b) {
  const double q = divide(a, b);
  return a == 0 ? 0.0 : q;
}
// One-argument functions; `domain_error` is set when sqrt/log got an argument outside their
// domain (the result is then CubeLib's substitute value).
double apply(Func f, double x, bool& domain_error);
const char* name_of(Func f);

std::string ascii_lower(std::string s);
std::string ascii_upper(std::string s);

}  // namespace cubekit::cubepl::detail
