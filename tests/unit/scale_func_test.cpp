// The number a SCALE_FUNC value stands for in CubePL and sorting: CubeLib's asymptotic key of
// the dominant term a·x^(b/c)·log2(x)^d, 1000·b/c + d + a/1000 (cube-format.md §7.3 layout).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/data_type.hpp"

namespace cubekit {
namespace {

struct Term {
  double a;
  int32_t b;
  uint32_t c;
  int32_t d;
};

// An 848-byte slot: u32 term count, u32 measurement count, then 20-byte terms.
std::vector<std::byte> slot_of(const std::vector<Term>& terms) {
  std::vector<std::byte> slot(848, std::byte{0});
  const uint32_t n = static_cast<uint32_t>(terms.size());
  std::memcpy(slot.data(), &n, 4);
  for (size_t i = 0; i < terms.size(); ++i) {
    std::byte* p = slot.data() + 8 + 20 * i;
    std::memcpy(p, &terms[i].a, 8);
    std::memcpy(p + 8, &terms[i].b, 4);
    std::memcpy(p + 12, &terms[i].c, 4);
    std::memcpy(p + 16, &terms[i].d, 4);
  }
  return slot;
}

double key_of(const std::vector<Term>& terms) {
  return scalar(DataType::parse("SCALE_FUNC"), slot_of(terms).data());
}

TEST(ScaleFuncKey, DominantTermByExponentThenLogThenCoefficient) {
  EXPECT_EQ(key_of({}), 0.0);
  // 100 + 2·x^(1/2)·log2(x): the square root dominates → 500 + 1 + 0.002.
  EXPECT_DOUBLE_EQ(key_of({{100, 0, 1, 0}, {2, 1, 2, 1}}), 501.002);
  // Same exponent: the higher log power wins, whatever the coefficients.
  EXPECT_DOUBLE_EQ(key_of({{7, 2, 1, 0}, {0.5, 2, 1, 2}}), 2002.0005);
  // Same exponent and log power: the larger coefficient; negative ones lose.
  EXPECT_DOUBLE_EQ(key_of({{-3, 1, 1, 0}, {5, 1, 1, 0}}), 1000.005);
  // Terms with coefficient 0 do not count.
  EXPECT_DOUBLE_EQ(key_of({{0, 3, 1, 0}, {4, 0, 1, 0}}), 0.004);
}

}  // namespace
}  // namespace cubekit
