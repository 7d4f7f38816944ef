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

// A measurement a SCALE_FUNC value may carry (CubeLib prints them before the terms).
struct ScaleMeasurement {
  uint32_t processes = 0;
  double mean = 0, width = 0;
};

// Terms of a slot, sorted by decreasing asymptotic dominance (exponent b/c, then d, then a).
std::vector<ScaleTerm> scale_func_terms(const std::byte* slot);
// acc = acc + sign·x, merging like terms (same b/c and d); terms whose coefficient becomes 0
// are dropped. Measurements of acc are kept (moved to follow the new terms), x's ignored, as
// CubeLib does.
void scale_func_plus(std::byte* acc, const std::byte* x, double sign);
// The measurements of a slot (at most 10), and their packed bytes as stored after the terms.
std::vector<ScaleMeasurement> scale_func_measurements(const std::byte* slot);
std::vector<std::byte> scale_func_measurement_bytes(const std::byte* slot);
// The number CubeLib gives a scale function wherever it needs one (CubePL, sorting): a key of
// its dominant term a·x^(b/c)·log2(x)^d that orders by growth first, 1000·b/c + d + a/1000
// (0 without terms).
double scale_func_asymptotic_key(const std::byte* slot);

}  // namespace cubekit::core
