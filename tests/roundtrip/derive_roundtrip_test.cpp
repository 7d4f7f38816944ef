// Derived metrics survive writing: a report with derived metrics (one written by CubeLib, one
// added by derive_metric) is written and read back with the same expressions and values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "cubekit/derived.hpp"
#include "cubekit/remap.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::shared_dir;

namespace cubekit {
namespace {

fs::path temp_report(const std::string& tag) {
  return fs::temp_directory_path() /
         ("cubekit-derive-rt-" + tag + "-" + std::to_string(::getpid()) + ".cubex");
}

Index metric_named(const Model& model, const std::string& name) {
  const auto m = model.metric_by_uniq_name(name);
  EXPECT_TRUE(m.has_value()) << name;
  return m.value_or(0);
}

TEST(DeriveRoundTrip, DerivedMetricsKeepExpressionsAndValues) {
  CUBEKIT_REQUIRE_SHARED();
  // Written by CubeLib's cube_derive: it holds the POSTDERIVED metric time_per_visit.
  const Report input = Report::open(
      (shared_dir() / "oracle/_algebra/A_extrap_single_x1_vs_x10/derive_post.cubex").string());
  // '<', '>' and '"' must be escaped in the anchor and come back unchanged.
  const std::string expression =
      "{ ${x} = 0; if ( metric::visits(e) > 1 and metric::time(i) < 1 ) { ${x} = "
      "metric::time(i) * 1000; }; return ${x}; }";
  const fs::path path = temp_report("a");
  derive_metric(input, {"big_ms", expression, "Time", MetricKind::kPrederivedInclusive},
                path.string());
  const Report back = Report::open(path.string());
  fs::remove(path);

  const Model &a = input.model(), &b = back.model();
  const Index tpv_a = metric_named(a, "time_per_visit"), tpv_b = metric_named(b, "time_per_visit");
  EXPECT_EQ(b.metrics[tpv_b].kind, MetricKind::kPostDerived);
  EXPECT_EQ(b.metrics[tpv_b].expression, a.metrics[tpv_a].expression);
  const Index added = metric_named(b, "big_ms");
  EXPECT_EQ(b.metrics[added].kind, MetricKind::kPrederivedInclusive);
  EXPECT_EQ(b.metrics[added].expression, expression);
  EXPECT_EQ(
      b.metrics[added].descr,
      "Created metric using tool cube_derive with a CubePL expression \"" + expression + "\"");
  EXPECT_EQ(b.metrics[b.metrics[added].parent].uniq_name, "time");

  MetricEngine before(input), after(back);
  const Index time = metric_named(b, "time"), visits = metric_named(b, "visits");
  for (Index c = 0; c < b.cnodes.size(); ++c) {
    for (Flavour f : {Flavour::kInclusive, Flavour::kExclusive}) {
      const Values x = before.location_values(tpv_a, c, Flavour::kInclusive, f);
      const Values y = after.location_values(tpv_b, c, Flavour::kInclusive, f);
      for (size_t l = 0; l < x.size(); ++l) EXPECT_EQ(x.scalar(l), y.scalar(l)) << c;
    }
    // By hand: 1000 × inclusive time where more than one exclusive visit and below 1 s.
    const Values t = after.location_values(time, c, Flavour::kInclusive, Flavour::kInclusive);
    const Values v = after.location_values(visits, c, Flavour::kInclusive, Flavour::kExclusive);
    const Values got = after.location_values(added, c, Flavour::kInclusive, Flavour::kInclusive);
    for (size_t l = 0; l < got.size(); ++l) {
      const double want = v.scalar(l) > 1 && t.scalar(l) < 1 ? t.scalar(l) * 1000 : 0;
      EXPECT_EQ(got.scalar(l), want) << "cnode " << c;
    }
  }
}

TEST(DeriveRoundTrip, ComputedMetricEqualsTheDerivedOne) {
  CUBEKIT_REQUIRE_SHARED();
  const Report input =
      Report::open((shared_dir() / "data/real/cubelib/examples/summary.cubex").string());
  const std::string expression = "metric::time(e) / metric::visits(e)";
  const fs::path derived = temp_report("derived"), stored = temp_report("stored");
  derive_metric(input, {"d", expression, "", MetricKind::kPrederivedExclusive}, derived.string());
  derive_metric(input, {"s", expression, "", MetricKind::kExclusive}, stored.string());
  const Report rd = Report::open(derived.string()), rs = Report::open(stored.string());
  fs::remove(derived);
  fs::remove(stored);
  const Index d = metric_named(rd.model(), "d"), s = metric_named(rs.model(), "s");
  EXPECT_EQ(rs.model().metrics[s].kind, MetricKind::kExclusive);
  EXPECT_TRUE(rs.model().metrics[s].expression.empty());
  EXPECT_TRUE(rs.has_data(s));
  MetricEngine engine(rd), stored_engine(rs), input_engine(input);
  for (Index c = 0; c < rd.model().cnodes.size(); ++c) {
    for (Flavour f : {Flavour::kInclusive, Flavour::kExclusive}) {
      const Values x = engine.location_values(d, c, Flavour::kInclusive, f);
      const Values y = stored_engine.location_values(s, c, Flavour::kInclusive, f);
      ASSERT_EQ(x.size(), y.size());
      for (size_t l = 0; l < x.size(); ++l) EXPECT_DOUBLE_EQ(x.scalar(l), y.scalar(l)) << c;
    }
  }
  // Every other metric keeps its stored values.
  for (Index m = 0; m < input.model().metrics.size(); ++m) {
    if (is_derived(input.model().metrics[m].kind)) continue;
    const Values x = input_engine.aggregated_values(m, Flavour::kInclusive, Flavour::kExclusive);
    const Values y = stored_engine.aggregated_values(m, Flavour::kInclusive, Flavour::kExclusive);
    for (size_t c = 0; c < x.size(); ++c) EXPECT_EQ(x.scalar(c), y.scalar(c)) << m;
  }
}

}  // namespace
}  // namespace cubekit

namespace cubekit {
namespace {

// A derived metric declared INTEGER answers integers (truncated), as CubeLib's do; a remapped
// report keeps it derived, and -d stores exactly those integers.
TEST(DeriveRoundTrip, IntegerDerivedMetricAnswersTruncatedIntegers) {
  CUBEKIT_REQUIRE_SHARED();
  const Report input = Report::open(
      (shared_dir() / "data/real/extrap/single_parameter/mm.x1y1z1.r1.cubex").string());
  const RemapSpec spec = parse_remap_spec(
      "<metrics><metric type=\"POSTDERIVED\"><uniq_name>us</uniq_name><dtype>INTEGER</dtype>"
      "<cubepl>metric::time(i) * 1000000 + 0.75</cubepl></metric></metrics>",
      "us.spec");
  const fs::path kept = temp_report("int-kept"), stored = temp_report("int-stored");
  remap_report(input, &spec, {}, kept.string());
  RemapOptions convert;
  convert.convert_derived = true;
  remap_report(input, &spec, convert, stored.string());
  const Report rk = Report::open(kept.string()), rs = Report::open(stored.string());
  fs::remove(kept);
  fs::remove(stored);
  const Index us_k = metric_named(rk.model(), "us"), us_s = metric_named(rs.model(), "us");
  EXPECT_EQ(rk.model().metrics[us_k].kind, MetricKind::kPostDerived);
  EXPECT_EQ(rs.model().metrics[us_s].kind, MetricKind::kInclusive);
  EXPECT_EQ(rs.model().metrics[us_s].dtype_text, "INTEGER");  // a root keeps its dtype text
  MetricEngine engine(rk), input_engine(input), stored_engine(rs);
  const Index time = metric_named(input.model(), "time");
  for (Index c = 0; c < rk.model().cnodes.size(); ++c) {
    const Values t =
        input_engine.location_values(time, c, Flavour::kInclusive, Flavour::kInclusive);
    const Values v = engine.location_values(us_k, c, Flavour::kInclusive, Flavour::kInclusive);
    const Values s =
        stored_engine.location_values(us_s, c, Flavour::kInclusive, Flavour::kInclusive);
    ASSERT_EQ(v.type().kind(), TypeKind::kInt64);
    for (size_t l = 0; l < v.size(); ++l) {
      const double want = std::trunc(t.scalar(l) * 1000000 + 0.75);
      EXPECT_EQ(v.scalar(l), want) << c;
      EXPECT_EQ(s.scalar(l), want) << c;
    }
  }
}

}  // namespace
}  // namespace cubekit
