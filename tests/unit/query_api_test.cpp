// The public query API: typed reads of Values, checked lookups by index (LookupError, never
// std::out_of_range), and MetricEngine as the one entry point for stored and derived metrics.
// Report values from call_tree_test.cubex (cube-format.md §12: cnode ids 0..17 in pre-order, one
// location, exclusive visits 1 1 1 1 2 3 2 2 4 6 3 3 6 9 4 4 8 12, time stored INCLUSIVE).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "test_support.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

template <class T>
void put(Values& v, size_t i, T x) {
  std::memcpy(v.at(i), &x, sizeof x);
}

template <class F>
std::string error_message_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ValuesTyped, IntegersKeepTheirWidthAndSign) {
  Values u(DataType(TypeKind::kUInt64), 2);
  put<uint64_t>(u, 1, UINT64_MAX);
  EXPECT_EQ(u.uint64(0), 0u);
  EXPECT_EQ(u.uint64(1), UINT64_MAX);
  EXPECT_EQ(u.number(1), 18446744073709551615.0);
  EXPECT_EQ(error_message_of([&] { u.int64(1); }),
            "a value of type UINT64 is not a signed integer");
  EXPECT_EQ(error_message_of([&] { u.lanes(1); }),
            "a value of type UINT64 is not a value kept as doubles");

  Values s(DataType(TypeKind::kInt8), 1);
  put<int8_t>(s, 0, -5);
  EXPECT_EQ(s.int64(0), -5);
  EXPECT_EQ(s.number(0), -5.0);
  EXPECT_EQ(error_message_of([&] { s.uint64(0); }),
            "a value of type INT8 is not an unsigned integer");
}

TEST(ValuesTyped, DoublesAndMultiLaneValues) {
  Values d(DataType(TypeKind::kDouble), 1);
  put<double>(d, 0, 2.5);
  EXPECT_EQ(d.number(0), 2.5);
  ASSERT_EQ(d.lanes(0).size(), 1u);
  EXPECT_EQ(d.lanes(0)[0], 2.5);
  EXPECT_EQ(error_message_of([&] { d.uint64(0); }),
            "a value of type DOUBLE is not an unsigned integer");

  Values c(DataType(TypeKind::kComplex), 2);
  const double z[2] = {3.0, -4.0};
  std::memcpy(c.at(1), z, sizeof z);
  ASSERT_EQ(c.lanes(1).size(), 2u);
  EXPECT_EQ(c.lanes(1)[0], 3.0);
  EXPECT_EQ(c.lanes(1)[1], -4.0);
  EXPECT_EQ(error_message_of([&] { c.number(1); }),
            "a value of type COMPLEX is not a single number");

  Values f(DataType(TypeKind::kScaleFunc), 1);
  EXPECT_EQ(error_message_of([&] { f.lanes(0); }),
            "a value of type SCALE_FUNC is not a value kept as doubles");
}

TEST(ValuesTyped, IndexBeyondTheEndIsALookupError) {
  Values v(DataType(TypeKind::kDouble), 3);
  EXPECT_THROW(v.number(3), LookupError);
  EXPECT_EQ(error_message_of([&] { v.lanes(7); }), "no value at index 7: there are 3");
}

TEST(ModelLookup, IndicesOutOfRangeAreLookupErrors) {
  Model model;
  model.metrics.resize(2);
  model.cnodes.resize(1);
  EXPECT_EQ(&model.metric(1), &model.metrics[1]);
  EXPECT_EQ(error_message_of([&] { model.metric(2); }), "no metric at index 2: the report has 2");
  EXPECT_EQ(error_message_of([&] { model.cnode(5); }), "no call path at index 5: the report has 1");
  EXPECT_EQ(error_message_of([&] { model.region(0); }), "no region at index 0: the report has 0");
  EXPECT_EQ(error_message_of([&] { model.location(0); }),
            "no location at index 0: the report has 0");
}

TEST(ModelLookup, CallPathByRegionNamesBacktracksOverNamesHoldingASlash) {
  Model model;
  // x → {b → d, "b/c" → e}, and a second root y: "x/b/c" is not below b, so "b/c" answers.
  test::add_call_tree(model, {"x", "b", "d", "b/c", "e", "y"}, {kNoIndex, 0, 1, 0, 3, kNoIndex});
  EXPECT_EQ(model.find_call_path("x"), 0u);
  EXPECT_EQ(model.find_call_path("x/b/d"), 2u);
  EXPECT_EQ(model.find_call_path("x/b/c"), 3u);
  EXPECT_EQ(model.find_call_path("x/b/c/e"), 4u);
  EXPECT_EQ(model.find_call_path("y"), 5u);
  EXPECT_EQ(error_message_of([&] { model.find_call_path("x/d"); }),
            "no call path 'x/d' in the report (region names from a root, joined by '/')");
  EXPECT_THROW(model.find_call_path("x/"), LookupError);
  EXPECT_THROW(model.find_call_path(""), LookupError);
  EXPECT_THROW(model.find_call_path("x/b/d/"), LookupError);
}

class EngineOnCallTree : public ::testing::Test {
 protected:
  void SetUp() override {
    CUBEKIT_REQUIRE_SHARED();
    path_ =
        (test::shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex").string();
    report_.emplace(Report::open(path_));
    visits_ = *report_->model().metric_by_uniq_name("visits");
  }
  Index cnode(uint32_t id) const { return *report_->model().cnode_by_id(id); }
  std::string path_;
  std::optional<Report> report_;
  Index visits_ = 0;
};

TEST_F(EngineOnCallTree, BadIndicesAreLookupErrorsNamingTheReport) {
  MetricEngine engine(*report_);
  const Index n = static_cast<Index>(engine.metric_count());
  const std::string no_metric = path_ + ": no metric at index " + std::to_string(n) +
                                ": the engine knows " + std::to_string(n);
  EXPECT_EQ(error_message_of([&] { engine.metric(n); }), no_metric);
  EXPECT_EQ(error_message_of(
                [&] { engine.aggregated_values(n, Flavour::kInclusive, Flavour::kInclusive); }),
            no_metric);
  EXPECT_EQ(error_message_of([&] {
              engine.location_values(visits_, 18, Flavour::kInclusive, Flavour::kInclusive);
            }),
            "no call path at index 18: the report has 18");
  EXPECT_EQ(error_message_of([&] { engine.stored_values(visits_, 99); }),
            "no call path at index 99: the report has 18");
  EXPECT_THROW(engine.system_values(visits_, 18, Flavour::kInclusive, Flavour::kInclusive),
               LookupError);
  EXPECT_THROW(stored_values(*report_, 99, 0), LookupError);
  EXPECT_THROW(system_values(*report_, Values(DataType(TypeKind::kDouble), 2)), LookupError);
}

TEST_F(EngineOnCallTree, StoredAndDerivedMetricsAnswerAlike) {
  MetricEngine engine(*report_, {{"twice", "metric::visits()*2"}});
  const Index twice = static_cast<Index>(report_->model().metrics.size());
  // Region of d3 (cnode 17): 12 visits, no callees; region of a (cnode 2): 1 + 6 below it.
  const Index d3 = report_->model().cnodes[cnode(17)].region;
  const Index a = report_->model().cnodes[cnode(2)].region;
  const Values stored = engine.region_values(visits_, Flavour::kInclusive, Flavour::kExclusive);
  const Values derived = engine.region_values(twice, Flavour::kInclusive, Flavour::kInclusive);
  EXPECT_EQ(stored.uint64(d3), 12u);
  EXPECT_EQ(derived.number(d3), 24.0);
  EXPECT_EQ(derived.number(a), 14.0);
  // As stored: visits is EXCLUSIVE, so cnode 5's row is its own 3 visits; a derived metric
  // stores nothing.
  EXPECT_EQ(engine.stored_values(visits_, cnode(5)).uint64(0), 3u);
  EXPECT_EQ(engine.stored_values(twice, cnode(5)).number(0), 0.0);
  EXPECT_EQ(
      engine.location_values(twice, cnode(5), Flavour::kInclusive, Flavour::kExclusive).number(0),
      6.0);
}

TEST_F(EngineOnCallTree, OneValueOfACallPathFoundByItsRegionNames) {
  MetricEngine engine(*report_, {{"twice", "metric::visits()*2"}});
  const Model& model = report_->model();
  const Index twice = static_cast<Index>(model.metrics.size());
  const auto in = Flavour::kInclusive, ex = Flavour::kExclusive;
  // "bool" (cnode 6) holds b1, b2, b3: exclusive visits 2 + 2 + 4 + 6 = 14 inclusive.
  const Index bool_path = model.find_call_path("test.x/main/bool");
  EXPECT_EQ(bool_path, cnode(6));
  EXPECT_EQ(model.find_metric("visits"), visits_);
  EXPECT_EQ(engine.value(visits_, bool_path, in, in), 14.0);
  EXPECT_EQ(engine.value(visits_, bool_path, in, ex), 2.0);
  EXPECT_EQ(engine.value(twice, bool_path, in, in), 28.0);
  // A region name with a space; the one location by index.
  const Index a3 = model.find_call_path("test.x/main/signed char/a3");
  EXPECT_EQ(a3, cnode(5));
  EXPECT_EQ(engine.value(visits_, a3, in, ex, 0), 3.0);
  EXPECT_EQ(error_message_of([&] { engine.value(visits_, a3, in, ex, 1); }),
            "no location at index 1: the report has 1");
  EXPECT_EQ(error_message_of([&] { engine.value(visits_, 18, in, in); }),
            "no call path at index 18: the report has 18");
  EXPECT_EQ(error_message_of([&] { model.find_metric("tiem"); }),
            "no metric named 'tiem' in the report");
}

}  // namespace
}  // namespace cubekit
