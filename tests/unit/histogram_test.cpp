// ⊕ on HISTOGRAM(n) values, which must reproduce CubeLib's HistogramValue::operator+= bin for bin
// (algebra.cpp, histogram_plus). Expected numbers are worked by hand from that description; the
// inputs are chosen so that every edge and share is exact in binary floating point.
#include <gtest/gtest.h>

#include <cfloat>
#include <cstddef>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/data_type.hpp"

namespace cubekit {
namespace {

// A HISTOGRAM(n) value in memory layout: [min, max, bin 0, ..., bin n-1].
using Hist = std::vector<double>;

Hist empty_hist(size_t bins) {
  Hist h(2 + bins);
  set_identity(DataType(TypeKind::kHistogram, static_cast<uint32_t>(bins)),
               reinterpret_cast<std::byte*>(h.data()), 1);
  return h;
}

// acc ⊕ x through the public row interface, as the aggregation code calls it.
Hist plus(Hist acc, const Hist& x) {
  const DataType type(TypeKind::kHistogram, static_cast<uint32_t>(acc.size() - 2));
  plus_rows(type, reinterpret_cast<std::byte*>(acc.data()),
            reinterpret_cast<const std::byte*>(x.data()), 1);
  return acc;
}

void expect_hist_eq(const Hist& actual, const Hist& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_DOUBLE_EQ(actual[i], expected[i]) << "at lane " << i;
}

TEST(HistogramAlgebra, IdentityIsBothSentinels) {
  const Hist e = empty_hist(3);
  EXPECT_EQ(e[0], DBL_MAX);
  EXPECT_EQ(e[1], -DBL_MAX);
  EXPECT_EQ(e[2], 0.0);
}

TEST(HistogramAlgebra, EmptyPlusXIsX) {
  const Hist x{1, 3, 0, 1, 2, 3, 4};
  expect_hist_eq(plus(empty_hist(5), x), x);
}

TEST(HistogramAlgebra, XPlusEmptyIsX) {
  const Hist x{1, 3, 0, 1, 2, 3, 4};
  expect_hist_eq(plus(x, empty_hist(5)), x);
}

TEST(HistogramAlgebra, OneSentinelAloneMakesAValueEmpty) {
  // CubeLib's validity test is min != DBL_MAX && max != -DBL_MAX: either sentinel is enough.
  const Hist x{1, 3, 0, 1, 2, 3, 4};
  expect_hist_eq(plus(x, Hist{DBL_MAX, 7, 9, 9, 9, 9, 9}), x);
  expect_hist_eq(plus(x, Hist{0, -DBL_MAX, 9, 9, 9, 9, 9}), x);
}

TEST(HistogramAlgebra, SameRangeIsBinWiseSum) {
  // Range [0, 4], 4 bins: the result grid 0, 1, 2, 3, 4 equals b's edges. Each b edge j sits on
  // grid edge j (ties put the grid first), so bin i has k(e_i) = i != k(e_i+1) = i+1 and
  // share = (G[i+1] - e_i) / (e_i+1 - e_i) = 1 / 1 = 1: the whole count lands in bin i.
  // (1, 2, 3, 4) + (10, 20, 30, 40) = (11, 22, 33, 44).
  expect_hist_eq(plus(Hist{0, 4, 1, 2, 3, 4}, Hist{0, 4, 10, 20, 30, 40}),
                 Hist{0, 4, 11, 22, 33, 44});
}

TEST(HistogramAlgebra, OverlappingRangesSpreadOnlyTheRightOperand) {
  // a = [0, 4] (1, 1, 1, 1), b = [2, 10] (4, 8, 4, 8), 4 bins.
  // Result range [0, 10], width 2.5: grid 0, 2.5, 5, 7.5, 10.
  // a keeps its bins in place (CubeLib locates a's edges on the new grid): 1, 1, 1, 1.
  // b: width 2, edges 2, 4, 6, 8, 10 -> k = 0, 1, 2, 3, 4.
  //   bin [2, 4]:  share (2.5 - 2) / 2 = 0.25 -> bin0 += 1,   bin1 += 3
  //   bin [4, 6]:  share (5 - 4) / 2   = 0.5  -> bin1 += 4,   bin2 += 4
  //   bin [6, 8]:  share (7.5 - 6) / 2 = 0.75 -> bin2 += 3,   bin3 += 1
  //   bin [8, 10]: share (10 - 8) / 2  = 1    -> bin3 += 8,   bin4 (past the end) += 0
  // Bins: 1+1 = 2, 1+3+4 = 8, 1+4+3 = 8, 1+1+8 = 10 (total 28 = 4 + 24).
  expect_hist_eq(plus(Hist{0, 4, 1, 1, 1, 1}, Hist{2, 10, 4, 8, 4, 8}), Hist{0, 10, 2, 8, 8, 10});
}

TEST(HistogramAlgebra, OperandOrderMatters) {
  // The same two values swapped: a = [2, 10] (4, 8, 4, 8) stays in place, b = [0, 4] (1, 1, 1, 1)
  // is spread. Grid 0, 2.5, 5, 7.5, 10; b's edges 0, 1, 2, 3, 4 -> k = 0, 0, 0, 1, 1.
  //   bin [0, 1]: k 0 == 0 -> bin0 += 1
  //   bin [1, 2]: k 0 == 0 -> bin0 += 1
  //   bin [2, 3]: share (2.5 - 2) / 1 = 0.5 -> bin0 += 0.5, bin1 += 0.5
  //   bin [3, 4]: k 1 == 1 -> bin1 += 1
  // Bins: 4+2.5 = 6.5, 8+1.5 = 9.5, 4, 8 (total 28 again, but not the bins of a ⊕ b).
  expect_hist_eq(plus(Hist{2, 10, 4, 8, 4, 8}, Hist{0, 4, 1, 1, 1, 1}),
                 Hist{0, 10, 6.5, 9.5, 4, 8});
}

TEST(HistogramAlgebra, SinglePointOperandGoesToTheBinAtItsPosition) {
  // b = [2, 2]: all its edges are 2; on grid 0, 1, 2, 3, 4 the tie puts them at k = 2, every bin
  // is "inside" bin 2: bin2 += 5 + 7.
  expect_hist_eq(plus(Hist{0, 4, 1, 1, 1, 1}, Hist{2, 2, 5, 0, 0, 7}), Hist{0, 4, 1, 1, 13, 1});
}

TEST(HistogramAlgebra, SinglePointAtTheTopIsDropped) {
  // b = [4, 4] sits on the last grid edge, k = 4 = n: CubeLib writes its counts past the bin
  // array, so they vanish from the result.
  expect_hist_eq(plus(Hist{0, 4, 1, 1, 1, 1}, Hist{4, 4, 5, 0, 0, 7}), Hist{0, 4, 1, 1, 1, 1});
}

TEST(HistogramAlgebra, ChainMatchesCubeDumpExample) {
  // pycubexr's cube-values_example.cubex, HISTOGRAM5 at location 0: main [1, 3], foo [7, 13],
  // bar [19, 29], each with bins (0, 1, 2, 3, 4). cube_dump prints main's inclusive value as
  // 1:(0, 1, 2, 7.4, 19.6):29.
  // main ⊕ foo: grid 1, 3.4, 5.8, 8.2, 10.6, 13; foo edges 7, 8.2, 9.4, 10.6, 11.8, 13 ->
  //   k = 2, 3, 3, 4, 4, 5; shares 1 where k changes -> (0, 1, 2, 3+1+2, 4+3+4) = (0,1,2,6,11).
  // ⊕ bar: grid 1, 6.6, 12.2, 17.8, 23.4, 29; bar edges 19, 21, 23, 25, 27, 29 ->
  //   k = 3, 3, 3, 4, 4, 5; bin [23, 25] has share (23.4 - 23) / 2 = 0.2 ->
  //   (0, 1, 2, 6+0+1+0.4, 11+1.6+3+4) = (0, 1, 2, 7.4, 19.6).
  const Hist bins{0, 1, 2, 3, 4};
  auto with_range = [&](double lo, double hi) {
    Hist h{lo, hi};
    h.insert(h.end(), bins.begin(), bins.end());
    return h;
  };
  const Hist sum =
      plus(plus(plus(empty_hist(5), with_range(1, 3)), with_range(7, 13)), with_range(19, 29));
  const Hist expected{1, 29, 0, 1, 2, 7.4, 19.6};
  ASSERT_EQ(sum.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(sum[i], expected[i], 1e-12);
}

TEST(HistogramAlgebra, RowsAreMergedValueByValue) {
  // plus_rows on a row of two values: each pair merges on its own.
  const DataType type(TypeKind::kHistogram, 2);
  std::vector<double> acc{0, 2, 1, 1, /* second value */ DBL_MAX, -DBL_MAX, 0, 0};
  const std::vector<double> x{0, 2, 3, 4, /* second value */ 5, 6, 7, 8};
  plus_rows(type, reinterpret_cast<std::byte*>(acc.data()),
            reinterpret_cast<const std::byte*>(x.data()), 2);
  const std::vector<double> expected{0, 2, 4, 5, 5, 6, 7, 8};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_DOUBLE_EQ(acc[i], expected[i]);
}

}  // namespace
}  // namespace cubekit
