// Inclusive values of a metric stored exclusive, aggregated over locations, in CubeLib's order
// (docs/compatibility.md "The order of CubeLib's arithmetic"): one running sum over the call
// path's subtree in pre-order, the call path first; on trees too deep for that (call paths ×
// depth), the children's subtotals. Every expected value is worked out by hand.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/derived.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

// A chain of call paths 0 → 1 → … → n−1 (each the parent of the next), one location, metric
// "time" DOUBLE stored exclusive with `values[c]` at call path c; with `derived`, a second
// metric "derived", PREDERIVED_EXCLUSIVE with that expression.
Report chain_report(const std::string& path, const std::vector<double>& values,
                    const std::string& derived = "") {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  if (!derived.empty())
    test::add_metric(*model, "derived", "DOUBLE", MetricKind::kPrederivedExclusive).expression =
        derived;
  Region region;
  region.name = region.mangled_name = "f";
  model->regions.push_back(region);
  for (uint32_t c = 0; c < values.size(); ++c) {
    Cnode cnode;
    cnode.id = c;
    cnode.region = 0;
    cnode.parent = c == 0 ? kNoIndex : c - 1;
    model->cnodes.push_back(cnode);
    if (c > 0) model->cnodes[c - 1].children.push_back(c);
  }
  test::add_one_machine(*model, {1});
  return test::write_first_metric(path, model, values.data());
}

std::vector<double> inclusive(const Report& report) {
  MetricEngine engine(report);
  const Values v = engine.aggregated_values(0, Flavour::kInclusive, Flavour::kInclusive);
  std::vector<double> out;
  for (size_t c = 0; c < v.size(); ++c) out.push_back(v.scalar(c));
  return out;
}

// 1, 1, 1e16 down the chain. CubeLib's running sum at the root: (1 + 1) + 1e16 = 1e16 + 2
// (representable). Subtotals would give 1 + (1 + 1e16) = 1 + 1e16 = 1e16 (1e16 + 1 is a tie,
// rounded to the even 1e16), so the order shows in the result.
TEST(InclusiveOrder, RunningSumInPreOrderAsCubeLib) {
  test::TempDir tmp("inclusive-order");
  const Report r = chain_report((tmp.path() / "r.cubex").string(), {1, 1, 1e16});
  const std::vector<double> expected = {1e16 + 2, 1e16, 1e16};
  EXPECT_EQ(inclusive(r), expected);
}

// Chains of 1,000 call paths (500,500 terms: the running sums) and of 3,000 (4.5 M terms, over
// the bound of 256 per call path + 1 M: subtotals), every value 1: call path k's inclusive
// value is n − k either way (small integers add exactly).
TEST(InclusiveOrder, DeepChainsGiveTheSameSumsEitherWay) {
  test::TempDir tmp("inclusive-deep");
  for (const size_t n : {size_t{1000}, size_t{3000}}) {
    const Report r = chain_report((tmp.path() / ("c" + std::to_string(n) + ".cubex")).string(),
                                  std::vector<double>(n, 1.0));
    const std::vector<double> got = inclusive(r);
    ASSERT_EQ(got.size(), n);
    for (size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], static_cast<double>(n - k)) << n << " " << k;
  }
}

// Call path 0 with the children 2 and 1 (in that order), 2 with the child 3: the pre-order is
// 0, 2, 3, 1, not the order of the ids. One location; one metric of type `dtype`, stored
// exclusive, whose 8-byte value at call path c is `bits[c]`.
Report branching_report(const std::string& path, const char* dtype,
                        const std::vector<uint64_t>& bits) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "m", dtype, MetricKind::kExclusive);
  Region region;
  region.name = region.mangled_name = "f";
  model->regions.push_back(region);
  const Index parents[] = {kNoIndex, 0, 0, 2};
  for (uint32_t c = 0; c < 4; ++c) {
    Cnode cnode;
    cnode.id = c;
    cnode.region = 0;
    cnode.parent = parents[c];
    model->cnodes.push_back(cnode);
  }
  model->cnodes[0].children = {2, 1};
  model->cnodes[2].children = {3};
  test::add_one_machine(*model, {1});
  return test::write_first_metric(path, model, bits.data());
}

template <class T>
uint64_t bits_of(T v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The inclusive values of the report's metric 0, by call path id (the file lists the call
// paths in document order, so indices change on reading).
struct ById {
  Report report;
  Values values;
  template <class T>
  T at(uint32_t id) const {
    T out;
    std::memcpy(&out, values.at(*report.model().cnode_by_id(id)), sizeof out);
    return out;
  }
};

ById inclusive_by_id(Report report) {
  Values v = MetricEngine(report).aggregated_values(0, Flavour::kInclusive, Flavour::kInclusive);
  return {std::move(report), std::move(v)};
}

// Each call path's subtree is folded in pre-order, whatever the type: DOUBLE's rounding, the
// sign of MINDOUBLE's and MAXDOUBLE's zeros (the step keeps the earlier of two equal values)
// and UINT64's sums, all worked out by hand on the tree above.
TEST(InclusiveOrder, SubtreesFoldedInPreOrderForEverySingleNumberType) {
  test::TempDir tmp("inclusive-types");
  const auto path = [&](const char* name) { return (tmp.path() / name).string(); };
  // DOUBLE 1, 1e16, 1, 0 at ids 0..3. Root in pre-order: ((1 + 1) + 0) + 1e16 = 1e16 + 2; in id
  // order it would be ((1 + 1e16) + 1) + 0 = 1e16 (each + 1 a tie, rounded to the even 1e16).
  const ById d = inclusive_by_id(branching_report(
      path("d.cubex"), "DOUBLE", {bits_of(1.0), bits_of(1e16), bits_of(1.0), bits_of(0.0)}));
  EXPECT_EQ(d.at<double>(0), 1e16 + 2);
  EXPECT_EQ(d.at<double>(1), 1e16);
  EXPECT_EQ(d.at<double>(2), 1.0);
  EXPECT_EQ(d.at<double>(3), 0.0);
  // MINDOUBLE 0, 5, -0, 1: at the root +0 comes first (pre-order 0, 2, ...) and -0 < +0 is
  // false, so +0 stays; call path 2's subtree starts with -0.
  const ById mn = inclusive_by_id(branching_report(
      path("min.cubex"), "MINDOUBLE", {bits_of(0.0), bits_of(5.0), bits_of(-0.0), bits_of(1.0)}));
  EXPECT_EQ(mn.at<double>(0), 0.0);
  EXPECT_FALSE(std::signbit(mn.at<double>(0)));
  EXPECT_EQ(mn.at<double>(1), 5.0);
  EXPECT_TRUE(std::signbit(mn.at<double>(2)));
  EXPECT_EQ(mn.at<double>(3), 1.0);
  // MAXDOUBLE -0, -5, 0, -1: the root keeps the first zero, -0.
  const ById mx = inclusive_by_id(branching_report(
      path("max.cubex"), "MAXDOUBLE", {bits_of(-0.0), bits_of(-5.0), bits_of(0.0), bits_of(-1.0)}));
  EXPECT_TRUE(std::signbit(mx.at<double>(0)));
  EXPECT_EQ(mx.at<double>(1), -5.0);
  EXPECT_FALSE(std::signbit(mx.at<double>(2)));
  EXPECT_EQ(mx.at<double>(3), -1.0);
  // UINT64 1, 2, 4, 2^64 - 2: sums wrap modulo 2^64 like unsigned additions.
  const uint64_t big = ~uint64_t{0} - 1;
  const ById u = inclusive_by_id(
      branching_report(path("u.cubex"), "UINT64", {uint64_t{1}, uint64_t{2}, uint64_t{4}, big}));
  EXPECT_EQ(u.at<uint64_t>(0), uint64_t{5});  // 7 + 2^64 - 2
  EXPECT_EQ(u.at<uint64_t>(1), uint64_t{2});
  EXPECT_EQ(u.at<uint64_t>(2), uint64_t{2});  // 4 + 2^64 - 2
  EXPECT_EQ(u.at<uint64_t>(3), big);
}

// Resident memory of this process in bytes.
uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// A 20,000-deep chain (the PERI tests accept such trees) with a prederived exclusive metric,
// whose inclusive values sum its subtree: the engine used to list every call path's
// descendants, 200 million entries (800 MB). Each value is 2 × time = 2, so call path k's
// inclusive value is 2 (n − k). The engine is built from a temporary Report: it keeps its own.
TEST(InclusiveOrder, DerivedMetricsOnA20000DeepChainTakeLinearMemory) {
  test::TempDir tmp("deep-derived");
  constexpr size_t n = 20000;
  const std::string path = (tmp.path() / "chain.cubex").string();
  chain_report(path, std::vector<double>(n, 1.0), "2 * metric::time()");
  const uint64_t before = resident_bytes();
  MetricEngine engine(Report::open(path));
  const Values v = engine.aggregated_values(1, Flavour::kInclusive, Flavour::kInclusive);
  // One reading: two could see the resident size shrink in between, and the difference wrap.
  const uint64_t after = resident_bytes();
  EXPECT_LT(after - std::min(after, before), uint64_t{100} << 20);
  ASSERT_EQ(v.size(), n);
  for (size_t k = 0; k < n; k += 997) ASSERT_EQ(v.scalar(k), 2.0 * static_cast<double>(n - k)) << k;
  EXPECT_EQ(v.scalar(n - 1), 2.0);
}

}  // namespace
}  // namespace cubekit
