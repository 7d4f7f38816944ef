// The order in which write_combination adds exclusive terms into a metric stored inclusive
// (cube_cut, cube_mean), as CubeLib 4.6 adds them (docs/compatibility.md "The order of CubeLib's
// arithmetic"): each input call path's term at its target call path and then at every caller,
// call paths in the input's order, input after input. Every expected value is worked out by
// hand; summing the children's subtotals instead gives other values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cubekit/report_algebra.hpp"
#include "cubekit/writer.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

const double kTwoTo53 = std::ldexp(1.0, 53);  // 2^53, where the doubles are 2 apart

// Call paths r → {a, p}, p → {q}, one location, metric "time" DOUBLE stored inclusive:
// r 3, a 2, p 0, q −2^53, so the exclusive values are r 1, a 2, p 2^53, q −2^53 (all exact).
Report sample(const std::string& path) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kInclusive);
  test::add_call_tree(*model, {"r", "a", "p", "q"}, {kNoIndex, 0, 0, 2});
  test::add_one_machine(*model, {1});
  model->finalize(path);
  const double inclusive[] = {3, 2, 0, -kTwoTo53};
  ReportWriter writer(path, model);
  writer.begin_metric(0);
  for (Index c : storage_order(*model, MetricKind::kInclusive))
    writer.write_row(c, reinterpret_cast<const std::byte*>(&inclusive[c]));
  writer.end_metric();
  writer.finish();
  return Report::open(path);
}

// The stored value of "time" at the call path of region `name`.
double stored(const Report& report, const std::string& name) {
  const Model& m = report.model();
  for (Index c = 0; c < m.cnodes.size(); ++c) {
    if (m.regions[m.cnodes[c].region].name != name) continue;
    double v = 0;
    if (const std::byte* row = report.severities(0)->row(c)) std::memcpy(&v, row, sizeof v);
    return v;
  }
  ADD_FAILURE() << "no call path of " << name;
  return NAN;
}

// Inlining p (and q below it) into r: the terms reach r in the order r, a, p, q:
// (1 + 2) + 2^53 = 2^53 + 3, a tie rounded to 2^53 + 4, − 2^53 = 4. r's own terms first and then
// a's subtotal would give (1 + 2^53) = 2^53 (a tie), − 2^53 = 0, + 2 = 2. CubeLib 4.6's
// cube_cut writes 4.
TEST(CombinationOrder, CutAddsEachTermAlongItsCallersInTheInputsOrder) {
  test::TempDir tmp("combination-order-cut");
  const Report in = sample((tmp.path() / "in.cubex").string());
  CutOptions options;
  options.prunes = {"p"};
  const std::string out_path = (tmp.path() / "cut.cubex").string();
  write_cut(in, options, out_path);
  const Report out = Report::open(out_path);
  ASSERT_EQ(out.model().cnodes.size(), 2u);
  EXPECT_EQ(stored(out, "r"), 4);
  EXPECT_EQ(stored(out, "a"), 2);
}

// The mean of the sample with itself: the halved terms 0.5, 1, 2^52, −2^52 of the first input,
// then of the second, reach r one after another: 1.5, 2^52 + 1.5 (a tie: 2^52 + 2), 2; then
// 2.5, 3.5, 2^52 + 3.5 (a tie: 2^52 + 4), 4. The subtotals (1 + (2^53 − 2^53)) + 2 would give 3.
// CubeLib 4.6's cube_mean writes 4.
TEST(CombinationOrder, MeanAddsInputAfterInput) {
  test::TempDir tmp("combination-order-mean");
  const Report in = sample((tmp.path() / "in.cubex").string());
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(2);
  for (InputMapping& map : maps) {
    defs.add_metrics(in.model(), map);
    defs.add_call_tree(in.model(), map);
    ASSERT_TRUE(defs.add_system_tree(in.model(), map, SystemUnification::kStrict));
  }
  const std::string out_path = (tmp.path() / "mean.cubex").string();
  write_combination({&in, &in}, maps, defs.finish(), Combination::kMean, out_path);
  const Report out = Report::open(out_path);
  EXPECT_EQ(stored(out, "r"), 4);
  EXPECT_EQ(stored(out, "a"), 2);
  EXPECT_EQ(stored(out, "q"), -kTwoTo53);
}

// Call paths r → {a, b}, two locations, "visits" UINT64 stored inclusive; a call path whose
// inclusive row is absent (b of the first report) is left out of the file.
Report inclusive_integers(const std::string& path, const std::vector<std::vector<uint64_t>>& rows,
                          bool compress) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "visits", "UINT64", MetricKind::kInclusive);
  test::add_call_tree(*model, {"r", "a", "b"}, {kNoIndex, 0, 0});
  test::add_one_machine(*model, {2});
  model->finalize(path);
  WriteOptions options;
  options.compress = compress;
  ReportWriter writer(path, model, options);
  writer.begin_metric(0);
  for (Index c : storage_order(*model, MetricKind::kInclusive))
    if (!rows[c].empty()) writer.write_row(c, reinterpret_cast<const std::byte*>(rows[c].data()));
  writer.end_metric();
  writer.finish();
  return Report::open(path);
}

// The stored row of "visits" at the call path of region `name`.
std::vector<uint64_t> stored_row(const Report& report, const std::string& name) {
  const Model& m = report.model();
  for (Index c = 0; c < m.cnodes.size(); ++c) {
    if (m.regions[m.cnodes[c].region].name != name) continue;
    std::vector<uint64_t> v(m.locations.size());
    if (const std::byte* row = report.severities(0)->row(c))
      std::memcpy(v.data(), row, v.size() * sizeof(uint64_t));
    return v;
  }
  ADD_FAILURE() << "no call path of " << name;
  return {};
}

// The exclusive terms of a metric stored inclusive come from the stored rows gathered by call
// path (a missing row is the identity), plain and deflated. Inclusive rows r (10, 20), a (4, 6),
// b absent: exclusive r (6, 14), a (4, 6), b (0, 0); halved and truncated r (3, 7), a (2, 3).
// Rows r (7, 9), a (3, 2), b (1, 1): exclusive r (3, 6), a (3, 2), b (1, 1); halved r (1, 3),
// a (1, 1), b (0, 0). Sums along the callers: a (3, 4), b (0, 0), r (3+2+1+1, 7+3+3+1) =
// (7, 14).
TEST(CombinationOrder, MeanOfAnIntegerMetricStoredInclusiveWithAMissingRow) {
  for (bool compress : {false, true}) {
    test::TempDir tmp("combination-order-integers");
    const Report first =
        inclusive_integers((tmp.path() / "first.cubex").string(), {{10, 20}, {4, 6}, {}}, compress);
    const Report second = inclusive_integers((tmp.path() / "second.cubex").string(),
                                             {{7, 9}, {3, 2}, {1, 1}}, compress);
    UnifiedDefinitions defs;
    std::vector<InputMapping> maps(2);
    for (size_t i = 0; i < 2; ++i) {
      const Report& in = i == 0 ? first : second;
      defs.add_metrics(in.model(), maps[i]);
      defs.add_call_tree(in.model(), maps[i]);
      ASSERT_TRUE(defs.add_system_tree(in.model(), maps[i], SystemUnification::kStrict));
    }
    const std::string out_path = (tmp.path() / "mean.cubex").string();
    write_combination({&first, &second}, maps, defs.finish(), Combination::kMean, out_path);
    const Report out = Report::open(out_path);
    EXPECT_EQ(stored_row(out, "r"), (std::vector<uint64_t>{7, 14})) << compress;
    EXPECT_EQ(stored_row(out, "a"), (std::vector<uint64_t>{3, 4})) << compress;
    EXPECT_EQ(stored_row(out, "b"), (std::vector<uint64_t>{0, 0})) << compress;
  }
}

}  // namespace
}  // namespace cubekit
