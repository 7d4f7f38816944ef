// ⊕ on HISTOGRAM(n) values, which must reproduce CubeLib's HistogramValue::operator+= bin for bin
// (algebra.cpp, histogram_plus). Expected numbers are worked by hand from that description; the
// inputs are chosen so that every edge and share is exact in binary floating point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/data_type.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/writer.hpp"
#include "small_model.hpp"
#include "test_support.hpp"

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

// CubeLib's HistogramValue::operator+= written out literally, as the comment on histogram_plus
// (algebra.cpp) describes it: every edge of the result's grid, of a and of b marked, the marks
// sorted by (position, list), each edge of a or b located at the grid edge last seen before it.
Hist cubelib_plus(Hist a, const Hist& b) {
  const size_t n = a.size() - 2;
  auto empty = [](const Hist& h) { return h[0] == DBL_MAX || h[1] == -DBL_MAX; };
  if (empty(b)) return a;
  if (empty(a)) return b;
  auto edges = [n](double lo, double hi) {
    std::vector<double> e(n + 1);
    for (size_t i = 0; i <= n; ++i) e[i] = lo + static_cast<double>(i) * ((hi - lo) / n);
    return e;
  };
  const double lo = std::min(a[0], b[0]), hi = std::max(a[1], b[1]);
  const std::vector<double> grid = edges(lo, hi), b_edges = edges(b[0], b[1]);
  struct Mark {
    double position;
    unsigned list;
    size_t index;
  };
  std::vector<Mark> marks;
  for (size_t i = 0; i <= n; ++i) {
    marks.push_back({grid[i], 1, i});
    marks.push_back({b_edges[i], 2, i});
    marks.push_back({grid[i], 0, i});
  }
  std::sort(marks.begin(), marks.end(), [](const Mark& x, const Mark& y) {
    return x.position != y.position ? x.position < y.position : x.list < y.list;
  });
  std::vector<size_t> at_a(n + 1, 0), at_b(n + 1, 0);
  size_t pivot = 0;
  for (size_t m = 1; m < marks.size(); ++m) {
    if (marks[m].list == 0)
      pivot = marks[m].index;
    else
      (marks[m].list == 1 ? at_a : at_b)[marks[m].index] = pivot;
  }
  std::vector<double> out(n, 0.0);
  auto spread = [&](const double* counts, const std::vector<double>& e,
                    const std::vector<size_t>& at, size_t i) {
    double share = 1.0;
    if (at[i] != at[i + 1]) {
      const double span = e[i + 1] - e[i];
      share = span != 0 ? (grid[at[i] + 1] - e[i]) / span : 0.0;
    }
    if (at[i] < n) out[at[i]] += counts[i] * share;
    if (at[i] + 1 < n) out[at[i] + 1] += counts[i] * (1.0 - share);
  };
  for (size_t i = 0; i < n; ++i) {
    spread(a.data() + 2, grid, at_a, i);
    spread(b.data() + 2, b_edges, at_b, i);
  }
  Hist sum{lo, hi};
  sum.insert(sum.end(), out.begin(), out.end());
  return sum;
}

bool same_bits(const Hist& x, const Hist& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

// Random histograms of the shapes that matter to the edges' order: ranges of integers (b's edges
// then fall on the grid's: the ties), ranges of any doubles, equal ranges, single points (all
// edges of one list equal) and empty values; bins up to 40 (past the 32 held on the stack).
Hist random_hist(std::mt19937_64& rng, size_t bins) {
  std::uniform_int_distribution<int> shape(0, 4), small(0, 6);
  std::uniform_real_distribution<double> real(-3.0, 3.0);
  double lo = 0, hi = 0;
  switch (shape(rng)) {
    case 0:
      lo = small(rng), hi = lo + small(rng) + 1;
      break;
    case 1:
      lo = real(rng), hi = lo + std::abs(real(rng)) + 1e-3;
      break;
    case 2:
      lo = 1, hi = 5;
      break;
    case 3:
      lo = hi = small(rng);
      break;
    default:
      return empty_hist(bins);
  }
  // An infinite count now and then: its share of 0 (inf * 0 = NaN) shows in the bin a tied edge
  // is located at, where finite counts would add +0 to either bin alike.
  Hist h{lo, hi};
  for (size_t k = 0; k < bins; ++k)
    h.push_back(small(rng) == 0 && shape(rng) == 0 ? INFINITY : small(rng) * 0.5);
  return h;
}

// The ⊕ gives CubeLib's bits, chains of ⊕ included (each result is the next left operand), both
// one value at a time (plus_rows) and as a row folded into one accumulator (fold_row).
TEST(HistogramAlgebra, SameBitsAsCubeLibsSortedSweep) {
  std::mt19937_64 rng(20261128);
  for (size_t bins : {1, 2, 3, 4, 5, 8, 16, 32, 33, 40}) {
    const DataType type(TypeKind::kHistogram, static_cast<uint32_t>(bins));
    for (int chain = 0; chain < 200; ++chain) {
      std::vector<Hist> values(12);
      std::vector<double> row;
      for (Hist& v : values) {
        v = random_hist(rng, bins);
        row.insert(row.end(), v.begin(), v.end());
      }
      Hist expected = empty_hist(bins), one_by_one = empty_hist(bins), folded = empty_hist(bins);
      for (const Hist& v : values) {
        expected = cubelib_plus(expected, v);
        one_by_one = plus(one_by_one, v);
        ASSERT_TRUE(same_bits(one_by_one, expected)) << bins << " bins, chain " << chain;
      }
      fold_row(type, reinterpret_cast<std::byte*>(folded.data()),
               reinterpret_cast<const std::byte*>(row.data()), values.size());
      ASSERT_TRUE(same_bits(folded, expected)) << bins << " bins, chain " << chain;
    }
  }
}

// A call path's inclusive histogram folds every value of its subtree into one accumulator, call
// path by call path in pre-order, location by location (CubeLib's grouping: ⊕ is not
// associative). Here on a tree of 400 call paths up to 14 deep, checked against that
// definition computed one value at a time.
TEST(HistogramAlgebra, InclusiveFoldsTheSubtreeInPreOrder) {
  constexpr size_t kBins = 4, kLocations = 3, kCallPaths = 400;
  auto model = std::make_shared<Model>();
  std::mt19937_64 rng(7);
  std::vector<std::string> names;
  std::vector<Index> parents{kNoIndex}, depth{0};
  for (size_t c = 0; c < kCallPaths; ++c) names.push_back("r" + std::to_string(c));
  for (size_t c = 1; c < kCallPaths; ++c) {  // a parent among the last few: deep chains
    std::uniform_int_distribution<size_t> back(1, std::min<size_t>(c, 3));
    Index p = static_cast<Index>(c - back(rng));
    while (depth[p] >= 14) p = parents[p];
    parents.push_back(p);
    depth.push_back(depth[p] + 1);
  }
  test::add_call_tree(*model, names, parents);
  test::add_one_machine(*model, {kLocations});
  test::add_metric(*model, "h", "HISTOGRAM(4)", MetricKind::kExclusive);
  std::vector<std::vector<Hist>> rows(kCallPaths);
  for (auto& row : rows)
    for (size_t l = 0; l < kLocations; ++l) row.push_back(random_hist(rng, kBins));
  test::TempDir tmp("histogram-inclusive");
  const std::string path = (tmp.path() / "h.cubex").string();
  model->finalize(path);
  {
    ReportWriter writer(path, model);
    writer.begin_metric(0);
    for (Index c : storage_order(*model, MetricKind::kExclusive)) {
      std::vector<double> row;
      for (const Hist& v : rows[c]) row.insert(row.end(), v.begin(), v.end());
      writer.write_row(c, reinterpret_cast<const std::byte*>(row.data()));
    }
    writer.end_metric();
    writer.finish();
  }
  MetricEngine engine(Report::open(path));
  const Values got = engine.aggregated_values(0, Flavour::kInclusive, Flavour::kInclusive);
  size_t deepest = 0;
  for (Index c = 0; c < kCallPaths; ++c) {
    Hist expected = empty_hist(kBins);
    std::vector<Index> stack{c};
    while (!stack.empty()) {
      const Index d = stack.back();
      stack.pop_back();
      for (const Hist& v : rows[d]) expected = cubelib_plus(expected, v);
      const auto& kids = model->cnodes[d].children;
      stack.insert(stack.end(), kids.rbegin(), kids.rend());
    }
    Hist actual(2 + kBins);  // the report read numbers its call paths in document order
    const auto read = engine.report().model().cnode_by_id(static_cast<uint32_t>(c));
    ASSERT_TRUE(read.has_value());
    std::memcpy(actual.data(), got.at(*read), actual.size() * sizeof(double));
    ASSERT_TRUE(same_bits(actual, expected)) << "call path " << c;
    deepest = std::max<size_t>(deepest, depth[c]);
  }
  EXPECT_EQ(deepest, 14u);
}

}  // namespace
}  // namespace cubekit
