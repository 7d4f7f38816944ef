#include "cubepl/builtins.hpp"

#include <cfloat>
#include <cmath>
#include <random>

namespace cubekit::cubepl::detail {

namespace {

double uniform_random(double x) {
  // Not reproducible across implementations anyway (cubepl.md §6); a fixed seed per thread
  // keeps runs repeatable.
  thread_local std::minstd_rand generator(12345);
  return static_cast<double>(generator() - generator.min()) /
         static_cast<double>(generator.max() - generator.min()) * x;
}

}  // namespace

double apply(Func f, double x, bool& domain_error) {
  switch (f) {
    case Func::kSqrt:
      if (x < 0) domain_error = true;
      return x >= 0 ? std::sqrt(x) : 0;
    case Func::kLog:
      if (x < 0) domain_error = true;
      return x > 0 ? std::log(x) : x == 0 ? -DBL_MAX : 0;
    case Func::kSin:
      return std::sin(x);
    case Func::kAsin:
      return std::asin(x);
    case Func::kCos:
      return std::cos(x);
    case Func::kAcos:
      return std::acos(x);
    case Func::kTan:
      return std::tan(x);
    case Func::kAtan:
      return std::atan(x);
    case Func::kExp:
      return std::exp(x);
    case Func::kRandom:
      return x == 0 ? 0 : uniform_random(x);
    case Func::kAbs:
      return std::fabs(x);
    case Func::kSgn:
      return x < 0 ? -1 : x > 0 ? 1 : 0;
    case Func::kPos:
      return x >= 0 ? x : 0;
    case Func::kNeg:
      return x < 0 ? x : 0;
    case Func::kFloor:
      return std::floor(x);
    case Func::kCeil:
      return std::ceil(x);
  }
  return 0;
}

const char* name_of(Func f) {
  static constexpr const char* kNames[] = {"sqrt", "sin", "asin",  "cos",    "acos", "tan",
                                           "atan", "exp", "log",   "random", "abs",  "sgn",
                                           "pos",  "neg", "floor", "ceil"};
  return kNames[static_cast<int>(f)];
}

std::string ascii_lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string ascii_upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace cubekit::cubepl::detail
