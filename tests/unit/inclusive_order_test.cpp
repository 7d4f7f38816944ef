// Inclusive values of a metric stored exclusive, aggregated over locations, in CubeLib's order
// (docs/compatibility.md "The order of CubeLib's arithmetic"): one running sum over the call
// path's subtree in pre-order, the call path first; on trees too deep for that (call paths ×
// depth), the children's subtotals. Every expected value is worked out by hand.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/writer.hpp"
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
