// SCALE_FUNC values (cube-format.md §7.3): a performance model Σ a·x^(b/c)·log2(x)^d kept in
// an 848-byte slot (host byte order in memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cubekit::core {

struct ScaleTerm {
  double a = 0;
  int32_t b = 0;
  uint32_t c = 1;
  int32_t d = 0;
};

// Terms of a slot, sorted by decreasing asymptotic dominance (exponent b/c, then d, then a).
std::vector<ScaleTerm> scale_func_terms(const std::byte* slot);
// acc = acc + sign·x, merging like terms (same b/c and d); terms whose coefficient becomes 0
// are dropped. Measurements of acc are kept.
void scale_func_plus(std::byte* acc, const std::byte* x, double sign);
// The number CubeLib gives a scale function wherever it needs one (CubePL, sorting): a key of
// its dominant term a·x^(b/c)·log2(x)^d that orders by growth first, 1000·b/c + d + a/1000
// (0 without terms).
double scale_func_asymptotic_key(const std::byte* slot);

}  // namespace cubekit::core
