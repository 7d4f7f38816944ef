// MetricEngine on a small report with hand-computed values (cubepl.md §9, cube-format.md §8.7).
//
// Call tree: main (0) → foo (1), bar (2); two locations. Stored exclusive values
// [location 0, location 1]:
//            time      visits
//   main    [1, 3]     [1, 1]
//   foo     [4, 2]     [2, 2]
//   bar     [6, 4]     [1, 2]
// Inclusive of main: time [11, 9] (20 in all), visits [4, 5] (9 in all).
#include "cubekit/derived.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/writer.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace cubekit {
namespace {

constexpr Flavour kIncl = Flavour::kInclusive;
constexpr Flavour kExcl = Flavour::kExclusive;

struct Derived {
  std::string name;
  MetricKind kind;
  std::string expression, init;
  std::string parent = {};            // unique name of the parent metric, empty for a root
  std::string minus = {}, aggr = {};  // operator slots
};

Metric stored(uint32_t id, const std::string& name, const char* dtype) {
  Metric m;
  m.id = id;
  m.uniq_name = m.disp_name = name;
  m.dtype_text = dtype;
  m.dtype = DataType::parse(dtype);
  m.kind = MetricKind::kExclusive;
  return m;
}

// Writes the report above with the given derived metrics (ids 2, 3, ...) and opens it.
Report make_report(const std::string& file, const std::vector<Derived>& derived) {
  auto model = std::make_shared<Model>();
  model->metrics.push_back(stored(0, "time", "DOUBLE"));
  model->metrics.push_back(stored(1, "visits", "UINT64"));
  for (const Derived& d : derived) {
    Metric m = stored(static_cast<uint32_t>(model->metrics.size()), d.name, "DOUBLE");
    m.kind = d.kind;
    m.expression = d.expression;
    m.init_expression = d.init;
    m.aggr_minus = d.minus;
    m.aggr_aggr = d.aggr;
    model->metrics.push_back(std::move(m));
  }
  for (Index m = 2; m < model->metrics.size(); ++m) {
    const std::string& parent = derived[m - 2].parent;
    if (parent.empty()) continue;
    Index p = 0;
    while (model->metrics.at(p).uniq_name != parent) ++p;
    model->metrics[m].parent = p;
    model->metrics[p].children.push_back(m);
  }
  for (uint32_t r = 0; r < 3; ++r) {
    Region region;
    region.id = r;
    region.name = region.mangled_name = std::vector<std::string>{"main", "foo", "bar"}[r];
    model->regions.push_back(region);
    Cnode c;
    c.id = r;
    c.region = r;
    if (r > 0) c.parent = 0;
    model->cnodes.push_back(c);
  }
  model->cnodes[0].children = {1, 2};
  SystemNode node;
  node.name = "machine";
  node.class_name = "machine";
  node.groups = {0};
  model->system_nodes.push_back(node);
  LocationGroup group;
  group.name = "rank 0";
  group.node = 0;
  group.locations = {0, 1};
  model->groups.push_back(group);
  for (uint32_t l = 0; l < 2; ++l) {
    Location loc;
    loc.id = l;
    loc.name = "thread " + std::to_string(l);
    loc.rank = l;
    loc.group = 0;
    model->locations.push_back(loc);
  }
  model->finalize("test");
  const std::string path =
      (fs::temp_directory_path() / (std::to_string(::getpid()) + "-" + file)).string();
  ReportWriter w(path, model);
  const double time[3][2] = {{1, 3}, {4, 2}, {6, 4}};
  const uint64_t visits[3][2] = {{1, 1}, {2, 2}, {1, 2}};
  w.begin_metric(0);
  for (Index c = 0; c < 3; ++c) w.write_row(c, reinterpret_cast<const std::byte*>(time[c]));
  w.end_metric();
  w.begin_metric(1);
  for (Index c = 0; c < 3; ++c) w.write_row(c, reinterpret_cast<const std::byte*>(visits[c]));
  w.end_metric();
  w.finish();
  // The open report maps the file: its name can go at once, leaving nothing behind.
  Report report = Report::open(path);
  fs::remove(path);
  return report;
}

std::vector<double> doubles(const Values& v) {
  std::vector<double> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(v.scalar(i));
  return out;
}

class DerivedMetrics : public ::testing::Test {
 protected:
  // Metric indices: 2 ratio, 3 pre_excl, 4 pre_incl, 5 twice, 6 scaled.
  DerivedMetrics()
      : report_(make_report(
            "cubekit-derived-test.cubex",
            {{"ratio", MetricKind::kPostDerived, "metric::time() / metric::visits()", ""},
             {"pre_excl", MetricKind::kPrederivedExclusive, "metric::time() / metric::visits()",
              ""},
             {"pre_incl", MetricKind::kPrederivedInclusive, "metric::time(i) + 1", ""},
             {"twice", MetricKind::kPostDerived, "2 * metric::ratio()", ""},
             {"scaled", MetricKind::kPostDerived, "metric::time() * ${factor}",
              "{ global(factor); ${factor} = 10; return 0; }"}})),
        engine_(report_) {}
  Report report_;
  MetricEngine engine_;
};

TEST_F(DerivedMetrics, StoredMetricsAreDelegatedToCalc) {
  EXPECT_EQ(doubles(engine_.aggregated_values(0, kIncl, kIncl)), (std::vector<double>{20, 6, 10}));
  EXPECT_EQ(engine_.aggregated_values(1, kIncl, kExcl).type(), DataType::parse("UINT64"));
}

TEST_F(DerivedMetrics, PostderivedRatioIsTakenAtTheAggregatedPoint) {
  // Inclusive main: Σ time / Σ visits = 20 / 9, not the sum of per-location ratios
  // 11/4 + 9/5.
  const auto incl = doubles(engine_.aggregated_values(2, kIncl, kIncl));
  EXPECT_DOUBLE_EQ(incl[0], 20.0 / 9);
  EXPECT_DOUBLE_EQ(incl[1], 6.0 / 4);
  EXPECT_DOUBLE_EQ(incl[2], 10.0 / 3);
  const auto excl = doubles(engine_.aggregated_values(2, kIncl, kExcl));
  EXPECT_DOUBLE_EQ(excl[0], 4.0 / 2);
  // Per location: the ratio of that location's values.
  const auto row = doubles(engine_.location_values(2, 0, kIncl, kIncl));
  EXPECT_DOUBLE_EQ(row[0], 11.0 / 4);
  EXPECT_DOUBLE_EQ(row[1], 9.0 / 5);
  EXPECT_EQ(engine_.aggregated_values(2, kIncl, kIncl).type(), DataType::parse("DOUBLE"));
}

// Per system entity (the machine and the rank holding both locations): a postderived ratio is
// Σ time / Σ visits of the entity's locations (20 / 9 at main, inclusive), not Σ of the
// per-location ratios (11/4 + 9/5); other metrics are sums; metrics built on a postderived one
// see its entity value.
TEST_F(DerivedMetrics, SystemValuesEvaluatePostderivedOnTheEntitysSums) {
  const SystemValues ratio = engine_.system_values(2, 0, kIncl, kIncl);
  ASSERT_EQ(ratio.nodes.size(), 1u);
  ASSERT_EQ(ratio.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(ratio.nodes.scalar(0), 20.0 / 9);
  EXPECT_DOUBLE_EQ(ratio.groups.scalar(0), 20.0 / 9);
  EXPECT_DOUBLE_EQ(engine_.system_values(2, 1, kIncl, kIncl).nodes.scalar(0), 6.0 / 4);
  EXPECT_DOUBLE_EQ(engine_.system_values(2, 0, kIncl, kExcl).nodes.scalar(0), 4.0 / 2);
  EXPECT_DOUBLE_EQ(engine_.system_values(5, 0, kIncl, kIncl).nodes.scalar(0), 40.0 / 9);
  // pre_excl: point values main [1, 3] summed over the rank.
  EXPECT_DOUBLE_EQ(engine_.system_values(3, 0, kIncl, kExcl).groups.scalar(0), 4.0);
  // Stored metrics: as calc gives them (time, main inclusive: 11 + 9).
  const SystemValues time = engine_.system_values(0, 0, kIncl, kIncl);
  EXPECT_DOUBLE_EQ(time.nodes.scalar(0), 20.0);
  EXPECT_EQ(time.nodes.type(), DataType::parse("DOUBLE"));
  EXPECT_EQ(engine_.system_values(1, 0, kIncl, kIncl).groups.scalar(0), 9.0);
}

// The same on a real Scalasca profile with many ranks: every node and rank of every call path
// gets its own time / visits, computed here from the stored metrics' sums.
TEST(DerivedSystemValues, RatioOfSumsOnARealProfile) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report =
      Report::open((test::shared_dir() / "data/real/cubelib/examples/summary.cubex").string());
  MetricEngine engine(report, {{"tpv", "metric::time(i) / metric::visits(e)"}});
  const Index tpv = static_cast<Index>(report.model().metrics.size());
  const Index time = *report.model().metric_by_uniq_name("time");
  const Index visits = *report.model().metric_by_uniq_name("visits");
  size_t checked = 0;
  for (Index c = 0; c < report.model().cnodes.size(); c += 7) {
    const SystemValues got = engine.system_values(tpv, c, kIncl, kIncl);
    const SystemValues t = engine.system_values(time, c, kIncl, kIncl);
    const SystemValues v = engine.system_values(visits, c, kIncl, kExcl);
    for (size_t g = 0; g < got.groups.size(); ++g) {
      if (v.groups.scalar(g) == 0) continue;  // x / 0 is ±DBL_MAX, tested elsewhere
      EXPECT_DOUBLE_EQ(got.groups.scalar(g), t.groups.scalar(g) / v.groups.scalar(g));
      ++checked;
    }
    for (size_t n = 0; n < got.nodes.size(); ++n) {
      if (v.nodes.scalar(n) != 0) {
        EXPECT_DOUBLE_EQ(got.nodes.scalar(n), t.nodes.scalar(n) / v.nodes.scalar(n));
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

// forget_values drops caches only: every answer is the same afterwards.
TEST_F(DerivedMetrics, ForgettingValuesChangesNoAnswer) {
  std::vector<std::vector<double>> before;
  for (Index m = 0; m < 7; ++m)
    before.push_back(doubles(engine_.aggregated_values(m, kIncl, kIncl)));
  const auto row = doubles(engine_.location_values(3, 1, kIncl, kIncl));
  engine_.forget_values();
  for (Index m = 0; m < 7; ++m)
    EXPECT_EQ(doubles(engine_.aggregated_values(m, kIncl, kIncl)), before[m]) << "metric " << m;
  EXPECT_EQ(doubles(engine_.location_values(3, 1, kIncl, kIncl)), row);
}

TEST_F(DerivedMetrics, PrederivedExclusiveIsSummedAlongTheTreeAndTheSystem) {
  // Point values time/visits (exclusive): main [1, 3], foo [2, 1], bar [6, 2].
  EXPECT_EQ(doubles(engine_.location_values(3, 0, kIncl, kExcl)), (std::vector<double>{1, 3}));
  EXPECT_EQ(doubles(engine_.location_values(3, 0, kIncl, kIncl)), (std::vector<double>{9, 6}));
  EXPECT_EQ(doubles(engine_.aggregated_values(3, kIncl, kExcl)), (std::vector<double>{4, 3, 8}));
  EXPECT_EQ(doubles(engine_.aggregated_values(3, kIncl, kIncl)), (std::vector<double>{15, 3, 8}));
}

TEST_F(DerivedMetrics, PrederivedInclusiveSubtractsTheChildren) {
  // Point values time(i) + 1: main [12, 10], foo [5, 3], bar [7, 5].
  EXPECT_EQ(doubles(engine_.location_values(4, 0, kIncl, kIncl)), (std::vector<double>{12, 10}));
  EXPECT_EQ(doubles(engine_.location_values(4, 0, kIncl, kExcl)), (std::vector<double>{0, 2}));
  EXPECT_EQ(doubles(engine_.aggregated_values(4, kIncl, kIncl)), (std::vector<double>{22, 8, 12}));
  EXPECT_EQ(doubles(engine_.aggregated_values(4, kIncl, kExcl)), (std::vector<double>{2, 8, 12}));
}

TEST_F(DerivedMetrics, DerivedMetricsMayReferenceDerivedOnes) {
  const auto v = doubles(engine_.aggregated_values(5, kIncl, kIncl));
  EXPECT_DOUBLE_EQ(v[0], 2 * 20.0 / 9);
  EXPECT_DOUBLE_EQ(doubles(engine_.location_values(5, 1, kIncl, kExcl))[1], 2 * 2.0 / 2);
}

TEST_F(DerivedMetrics, InitExpressionSetsAGlobal) {
  EXPECT_EQ(doubles(engine_.aggregated_values(6, kIncl, kExcl)),
            (std::vector<double>{40, 60, 100}));
}

TEST_F(DerivedMetrics, AdHocMetricsGetTheNextIndices) {
  MetricEngine engine(report_, {{"New Metric1", "metric::visits(e)"}});
  ASSERT_EQ(engine.metric_count(), 8u);
  EXPECT_EQ(engine.metric(7).uniq_name, "New Metric1");
  EXPECT_EQ(doubles(engine.aggregated_values(7, kIncl, kIncl)), (std::vector<double>{2, 4, 3}));
}

// Ghost metrics defined in CubePL (cubepl.md §9.8): compiled at once, so they work wherever
// they are defined (CubeLib: only after initialisation; 0 or a crash while loading, Q17).
TEST_F(DerivedMetrics, PostderivedGhostDefinedInAnExpression) {
  MetricEngine engine(report_, {{"uses_gm",
                                 "{ cube::metric::postderived::gm << metric::time() "
                                 "* 2 >>; return metric::gm(); }"}});
  ASSERT_EQ(engine.metric_count(), 9u);  // 7 + the ghost
  EXPECT_EQ(engine.metric(8).uniq_name, "gm");
  EXPECT_TRUE(engine.metric(8).ghost);
  EXPECT_EQ(engine.metric(8).kind, MetricKind::kPostDerived);
  // The §12.4 example: twice the time, here 2 × [20, 6, 10] inclusive.
  EXPECT_EQ(doubles(engine.aggregated_values(7, kIncl, kIncl)), (std::vector<double>{40, 12, 20}));
  EXPECT_EQ(doubles(engine.location_values(7, 0, kIncl, kExcl)), (std::vector<double>{2, 6}));
}

TEST_F(DerivedMetrics, PrederivedGhostsOfBothKinds) {
  // pre-e ghost = time/visits point by point (as pre_excl); pre-i ghost = time(i) + 1 (as
  // pre_incl). Referenced from an ad-hoc postderived metric, with the query's flavour.
  MetricEngine engine(
      report_,
      {{"e",
        "{ cube::metric::prederived::ge(e) << metric::time() / metric::visits() >>; return "
        "metric::ge(); }"},
       {"i",
        "{ cube::metric::prederived::gi(i) << metric::time(i) + 1 >>; return metric::gi(); }"}});
  EXPECT_EQ(doubles(engine.aggregated_values(7, kIncl, kIncl)), (std::vector<double>{15, 3, 8}));
  EXPECT_EQ(doubles(engine.aggregated_values(7, kIncl, kExcl)), (std::vector<double>{4, 3, 8}));
  EXPECT_EQ(doubles(engine.aggregated_values(8, kIncl, kIncl)), (std::vector<double>{22, 8, 12}));
  EXPECT_EQ(doubles(engine.aggregated_values(8, kIncl, kExcl)), (std::vector<double>{2, 8, 12}));
  EXPECT_EQ(engine.metric(9).kind, MetricKind::kPrederivedExclusive);
  EXPECT_EQ(engine.metric(10).kind, MetricKind::kPrederivedInclusive);
}

TEST_F(DerivedMetrics, GhostIsVisibleToExpressionsCompiledLater) {
  // Defined by the first ad-hoc metric, referenced by the second (compiled after it).
  MetricEngine engine(report_, {{"a",
                                 "{ cube::metric::postderived::gv << metric::visits() >>; "
                                 "return 0; }"},
                                {"b", "metric::gv() + 1"}});
  EXPECT_EQ(doubles(engine.aggregated_values(8, kIncl, kIncl)), (std::vector<double>{10, 5, 4}));
  EXPECT_TRUE(engine.warnings().empty());
}

TEST_F(DerivedMetrics, GhostWithAnExistingNameIsIgnoredWithAWarning) {
  MetricEngine engine(report_, {{"a",
                                 "{ cube::metric::postderived::time << 7 >>; return "
                                 "metric::time(); }"}});
  EXPECT_EQ(engine.metric_count(), 8u);
  EXPECT_EQ(doubles(engine.aggregated_values(7, kIncl, kIncl)), (std::vector<double>{20, 6, 10}));
  ASSERT_EQ(engine.warnings().size(), 1u);
  EXPECT_EQ(engine.warnings()[0],
            "ghost metric 'time': a metric with this name exists already; definition ignored");
}

// What CubeLib prints compiling: a metric::set of a metric that is not there (the statement is
// compiled, never run here), and a ghost definition of a name that exists. Compiled a second
// time in the same cube, the ghost this compile defined exists too.
TEST_F(DerivedMetrics, CubeLibsNotesOnMissingMetricsAndExistingGhosts) {
  MetricEngine engine(report_, {{"a",
                                 "{ if (1 == 0) { cube::metric::set::nosuch(\"value\", \"VOID\"); "
                                 "}; cube::metric::postderived::gq << 1 >>; "
                                 "cube::metric::postderived::time << 7 >>; return 0; }"}});
  const std::string missing =
      " Metric with uniq name nosuch doesn't exists in cube. metric::set has no action.";
  const std::string time_exists = " Metric with uniq name time already exists in cube";
  EXPECT_EQ(engine.cubelib_notes(), (std::vector<std::string>{missing, time_exists}));
  EXPECT_EQ(engine.cubelib_notes_of_second_compile(),
            (std::vector<std::string>{missing, " Metric with uniq name gq already exists in cube",
                                      time_exists}));
}

TEST_F(DerivedMetrics, GhostReferencingItselfIsACycle) {
  EXPECT_THROW(MetricEngine(report_, {{"a",
                                       "{ cube::metric::postderived::g << metric::g() >>; "
                                       "return 0; }"}}),
               CubePLError);
}

// cube::init::metric::N, cube::metric::plus::N, cube::metric::minus::N (§13 Q7, §14.1):
// attached to an existing derived metric once every expression is compiled, replacing the slot.
TEST_F(DerivedMetrics, AttachedPlusOperator) {
  // pre_excl points: main [1, 3], foo [2, 1], bar [6, 2]. Along the call tree with max: main
  // inclusive per location max(1, 2, 6) = 6 and max(3, 1, 2) = 3; summed over locations first
  // (4, 3, 8), then max along the tree: 8.
  MetricEngine engine(report_,
                      {{"a", "{ cube::metric::plus::pre_excl << max(arg1, arg2) >>; return 0; }"}});
  EXPECT_EQ(doubles(engine.location_values(3, 0, kIncl, kIncl)), (std::vector<double>{6, 3}));
  EXPECT_EQ(doubles(engine.aggregated_values(3, kIncl, kIncl)), (std::vector<double>{8, 3, 8}));
  EXPECT_EQ(doubles(engine.aggregated_values(3, kIncl, kExcl)), (std::vector<double>{4, 3, 8}));
}

TEST_F(DerivedMetrics, FoldsStartAtZero) {
  // §14.7: like CubeLib, a fold starts from 0, so min over positive values is 0.
  MetricEngine engine(report_,
                      {{"a", "{ cube::metric::plus::pre_excl << min(arg1, arg2) >>; return 0; }"}});
  EXPECT_EQ(doubles(engine.aggregated_values(3, kIncl, kIncl)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(doubles(engine.aggregated_values(3, kIncl, kExcl)), (std::vector<double>{4, 3, 8}));
}

TEST_F(DerivedMetrics, AttachedMinusOperator) {
  // pre_incl points: main [12, 10], foo [5, 3], bar [7, 5]; minus arg1 - 2 * arg2:
  // main exclusive [12 - 10 - 14, 10 - 6 - 10] = [-12, -6]; whole system 22 - 16 - 24 = -18.
  MetricEngine engine(
      report_, {{"a", "{ cube::metric::minus::pre_incl << arg1 - 2 * arg2 >>; return 0; }"}});
  EXPECT_EQ(doubles(engine.location_values(4, 0, kIncl, kExcl)), (std::vector<double>{-12, -6}));
  EXPECT_EQ(doubles(engine.aggregated_values(4, kIncl, kExcl)), (std::vector<double>{-18, 8, 12}));
  EXPECT_EQ(doubles(engine.aggregated_values(4, kIncl, kIncl)), (std::vector<double>{22, 8, 12}));
}

TEST_F(DerivedMetrics, AttachedInitReplacesTheMetricsInit) {
  // scaled = time × ${factor}; its own init sets 10, the attached one 100.
  MetricEngine engine(
      report_,
      {{"a", "{ cube::init::metric::scaled << { ${factor} = 100; return 0; } >>; return 0; }"}});
  EXPECT_EQ(doubles(engine.aggregated_values(6, kIncl, kExcl)),
            (std::vector<double>{400, 600, 1000}));
}

TEST_F(DerivedMetrics, AttachmentsToUnsuitableMetricsAreIgnoredWithAWarning) {
  MetricEngine engine(report_, {{"a",
                                 "{ cube::metric::plus::nosuch << arg1 >>; "
                                 "cube::metric::plus::time << arg1 >>; "
                                 "cube::metric::minus::pre_excl << arg1 >>; "
                                 "cube::metric::plus::ratio << arg1 >>; return 0; }"}});
  ASSERT_EQ(engine.warnings().size(), 4u);
  EXPECT_EQ(engine.warnings(),
            (std::vector<std::string>{
                "cube::metric::plus::nosuch: no such metric; definition ignored",
                "cube::metric::plus::time: not a derived metric; definition ignored",
                "cube::metric::minus::pre_excl: only prederived inclusive metrics have a minus "
                "operator; definition ignored",
                "cube::metric::plus::ratio: a postderived metric has no plus operator; "
                "definition ignored"}));
  // Nothing changed: pre_excl inclusive is still the plain sum.
  EXPECT_EQ(doubles(engine.aggregated_values(3, kIncl, kIncl)), (std::vector<double>{15, 3, 8}));
}

// Metric-tree exclusive values subtract every sub-metric, derived ones too (CubeLib's
// Cube::get_sev_adv does so child by child, whatever the child's kind).
class DerivedSubMetrics : public ::testing::Test {
 protected:
  DerivedSubMetrics()
      : report_(make_report(
            "cubekit-derived-sub.cubex",
            {{"half", MetricKind::kPrederivedExclusive, "metric::time() / 2", "", "time"},
             {"halfvisits", MetricKind::kPostDerived, "metric::visits() / 2", "", "visits"},
             {"whole", MetricKind::kPostDerived, "metric::time()", ""},
             {"quarter", MetricKind::kPostDerived, "metric::time() / 4", "", "whole"}})),
        engine_(report_) {}
  // Sub-metrics follow their parent in the written report: look metrics up by name.
  Index id(const char* name) const { return *report_.model().metric_by_uniq_name(name); }
  Report report_;
  MetricEngine engine_;
};

TEST_F(DerivedSubMetrics, StoredDoubleParentSubtractsItsDerivedChild) {
  // time inclusive [20, 6, 10]; half = time / 2 point by point, summed: [10, 3, 5].
  EXPECT_EQ(doubles(engine_.aggregated_values(id("time"), kExcl, kIncl)),
            (std::vector<double>{10, 3, 5}));
  EXPECT_EQ(doubles(engine_.aggregated_values(id("time"), kIncl, kIncl)),
            (std::vector<double>{20, 6, 10}));
  // main, exclusive along the call tree: time [1, 3] minus half [0.5, 1.5].
  EXPECT_EQ(doubles(engine_.location_values(id("time"), 0, kExcl, kExcl)),
            (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(engine_.aggregated_values(id("time"), kExcl, kIncl).type(), DataType::parse("DOUBLE"));
}

TEST_F(DerivedSubMetrics, IntegerParentSubtractsItsDerivedChildTruncated) {
  // visits inclusive [9, 4, 3]; halfvisits [4.5, 2, 1.5] becomes [4, 2, 1] in UINT64.
  const Values v = engine_.aggregated_values(id("visits"), kExcl, kIncl);
  EXPECT_EQ(v.type(), DataType::parse("UINT64"));
  EXPECT_EQ(doubles(v), (std::vector<double>{5, 2, 2}));
  // bar per location: visits [1, 2], halfvisits [0.5, 1] → [0, 1]: [1, 1].
  EXPECT_EQ(doubles(engine_.location_values(id("visits"), 2, kExcl, kExcl)),
            (std::vector<double>{1, 1}));
}

TEST_F(DerivedSubMetrics, DerivedParentSubtractsItsDerivedChild) {
  // whole = time; quarter = time / 4: exclusive = 3/4 of time.
  EXPECT_EQ(doubles(engine_.aggregated_values(id("whole"), kExcl, kIncl)),
            (std::vector<double>{15, 4.5, 7.5}));
  EXPECT_EQ(doubles(engine_.location_values(id("whole"), 1, kExcl, kIncl)),
            (std::vector<double>{3, 1.5}));
}

// CubeLib defects of cubepl.md §13 that concern the engine, each with our [REC] behaviour.
class CubeLibDefects : public ::testing::Test {
 protected:
  CubeLibDefects()
      : report_(make_report(
            "cubekit-derived-defects.cubex",
            {{"fixed_e", MetricKind::kPostDerived, "metric::fixed::time(e)", ""},
             {"call_foo", MetricKind::kPostDerived, "metric::call::time(1, i)", ""},
             {"call_bar_l1", MetricKind::kPostDerived, "metric::call::time(2, e, 3, e)", ""},
             {"minus2", MetricKind::kPrederivedInclusive, "metric::time(i) + 1", "", "",
              "arg1 - 2 * arg2"},
             {"post_max", MetricKind::kPostDerived, "metric::time()", "", "", "",
              "max(arg1, arg2)"},
             {"escaped", MetricKind::kPostDerived, "{ ${s} = \"&lt;&amp;\"; return 0; }", ""}})),
        engine_(report_) {}
  Index id(const char* name) const { return *report_.model().metric_by_uniq_name(name); }
  Report report_;
  MetricEngine engine_;
};

TEST_F(CubeLibDefects, Q13FixedWithAModifierIsWholeSystemInPostderived) {
  // main exclusive time over the system is 1 + 3 = 4, at each location (CubeLib: [1, 3]).
  EXPECT_EQ(doubles(engine_.location_values(id("fixed_e"), 0, kIncl, kIncl)),
            (std::vector<double>{4, 4}));
}

TEST_F(CubeLibDefects, Q14CallReferencesWorkInPostderivedLocationQueries) {
  // foo inclusive over the system: 4 + 2 = 6 (CubeLib crashes on a per-location query).
  EXPECT_EQ(doubles(engine_.location_values(id("call_foo"), 0, kIncl, kExcl)),
            (std::vector<double>{6, 6}));
  // bar exclusive at global system id 3 (stn 0, group 1, locations 2 and 3): 4.
  EXPECT_EQ(doubles(engine_.location_values(id("call_bar_l1"), 1, kIncl, kIncl)),
            (std::vector<double>{4, 4}));
  EXPECT_EQ(doubles(engine_.aggregated_values(id("call_bar_l1"), kIncl, kIncl)),
            (std::vector<double>{4, 4, 4}));
}

TEST_F(CubeLibDefects, Q15MinusOperatorIsHonoured) {
  // Points time(i) + 1: main [12, 10], foo [5, 3], bar [7, 5]; minus arg1 - 2 * arg2.
  EXPECT_EQ(doubles(engine_.location_values(id("minus2"), 0, kIncl, kExcl)),
            (std::vector<double>{-12, -6}));
  EXPECT_EQ(doubles(engine_.aggregated_values(id("minus2"), kIncl, kExcl)),
            (std::vector<double>{-18, 8, 12}));
}

TEST_F(CubeLibDefects, Q16PostderivedAggrOperatorIsHonouredForLoadedMetrics) {
  // time per location, folded with max: main inclusive max(11, 9), exclusive max(1, 3).
  EXPECT_EQ(doubles(engine_.aggregated_values(id("post_max"), kIncl, kIncl)),
            (std::vector<double>{11, 4, 6}));
  EXPECT_EQ(doubles(engine_.aggregated_values(id("post_max"), kIncl, kExcl)),
            (std::vector<double>{3, 4, 6}));
}

TEST_F(CubeLibDefects, Q21ExpressionTextIsUnescapedOnce) {
  // Written as &amp;lt;&amp;amp; in the anchor; CubeLib would read "<&".
  EXPECT_EQ(report_.model().metrics[id("escaped")].expression,
            "{ ${s} = \"&lt;&amp;\"; return 0; }");
}

TEST(DerivedMetricErrors, ReferenceCycleIsRejectedAtConstruction) {
  const Report r =
      make_report("cubekit-derived-cycle.cubex",
                  {{"a", MetricKind::kPostDerived, "metric::b() + 1", ""},
                   {"b", MetricKind::kPrederivedExclusive, "metric::time() * metric::a()", ""}});
  try {
    MetricEngine engine(r);
    FAIL() << "expected CubePLError";
  } catch (const CubePLError& e) {
    EXPECT_EQ(std::string(e.what()),
              "derived metrics reference each other in a cycle: a -> b -> a");
  }
}

TEST(DerivedMetricErrors, SyntaxErrorNamesTheMetric) {
  const Report r =
      make_report("cubekit-derived-syntax.cubex", {{"bad", MetricKind::kPostDerived, "1 +", ""}});
  try {
    MetricEngine engine(r);
    FAIL() << "expected CubePLError";
  } catch (const CubePLError& e) {
    // The parser's own message follows (tested in cubepl_syntax_test): line 1, column 4.
    EXPECT_EQ(std::string(e.what()).rfind("metric 'bad', expression: 1:4: ", 0), 0u) << e.what();
  }
}

// Issue 24: expressions of 30,000 terms, which CubeLib evaluates, in the report and from the
// user (cube_dump -m). Per call path, inclusive: time(i) is 20, 6, 10 and visits(e) 2, 4, 3.
TEST(DerivedLongExpressions, ThirtyThousandTermsEvaluate) {
  std::string sum = "metric::time(i) + metric::visits(e)";
  for (int i = 1; i <= 30000; ++i) sum += " + " + std::to_string(i);  // 1 + … + 30000 = 450015000
  std::string product = "metric::time()";  // then 29,999 factors, 999 of them 2: time · 2^999
  for (int i = 1; i < 30000; ++i) product += i % 30 == 0 ? " * 2" : " * 1";
  const Report report = make_report("cubekit-derived-long.cubex",
                                    {{"long_sum", MetricKind::kPostDerived, sum, ""},
                                     {"long_product", MetricKind::kPostDerived, product, ""}});
  const std::vector<double> sums{450015022, 450015010, 450015013};
  const double two_999 = std::ldexp(1.0, 999);
  const std::vector<double> products{20 * two_999, 6 * two_999, 10 * two_999};
  MetricEngine stored(report);
  EXPECT_EQ(doubles(stored.aggregated_values(2, kIncl, kIncl)), sums);
  EXPECT_EQ(doubles(stored.aggregated_values(3, kIncl, kIncl)), products);
  MetricEngine user(report, {{"user_sum", sum}, {"user_product", product}});
  ASSERT_EQ(user.metric(4).uniq_name, "user_sum");
  EXPECT_EQ(doubles(user.aggregated_values(4, kIncl, kIncl)), sums);
  EXPECT_EQ(doubles(user.aggregated_values(5, kIncl, kIncl)), products);
}

}  // namespace
}  // namespace cubekit
