// Arithmetic and the built-in functions of CubePL on single numbers (cubepl.md §5.1, §6).
// The evaluator maps them over lanes.
#pragma once

#include <string>

#include "cubepl/lexer.hpp"

namespace cubekit::cubepl::detail {

double stable_minus(double a, double b);
// a * b and a / b for a ≠ 0 (a == 0 gives 0 before b is even evaluated).
double times(double a, double b);
double divide(double a, double b);
// One-argument functions; `domain_error` is set when sqrt/log got an argument outside their
// domain (the result is then CubeLib's substitute value).
double apply(Func f, double x, bool& domain_error);
const char* name_of(Func f);

std::string ascii_lower(std::string s);
std::string ascii_upper(std::string s);

}  // namespace cubekit::cubepl::detail
