// CubeLib's selection language and the flat profile as library calls (cubekit/selection.hpp,
// cubekit/flat_profile.hpp). Expectations from call_tree_test.cubex, worked out by hand in
// cube-format.md §12: cnode ids 0..17 in pre-order (0 test.x → 1 main → 2 a {3,4,5}, 6 b {7,8,9},
// 10 c {11,12,13}, 14 d {15,16,17}), one location, exclusive visits 1 1 1 1 2 3 2 2 4 6 3 3 6 9
// 4 4 8 12.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/flat_profile.hpp"
#include "cubekit/selection.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

std::vector<std::pair<uint64_t, uint64_t>> pairs(const std::vector<IdRange>& ranges) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const IdRange& r : ranges) out.emplace_back(r.first, r.last);
  return out;
}

std::string error_of(const std::string& text) {
  try {
    parse_id_ranges(text, "-c " + text);
  } catch (const LookupError& e) {
    return e.what();
  }
  return "no error";
}

TEST(IdRanges, IdsAndRangesInTheOrderGiven) {
  using P = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(pairs(parse_id_ranges("17,3-5,0", "-c")), (P{{17, 17}, {3, 5}, {0, 0}}));
  EXPECT_EQ(pairs(parse_id_ranges(",,7,", "-c")), (P{{7, 7}}));
  EXPECT_EQ(pairs(parse_id_ranges("10-5", "-c")), (P{{10, 5}}));  // empty, as in CubeLib
  EXPECT_EQ(pairs(parse_id_ranges("0-18446744073709551615", "-c")),
            (P{{0, UINT64_MAX}}));  // a range is two numbers, never a list
  EXPECT_TRUE(parse_id_ranges("", "-c").empty());
}

TEST(IdRanges, MalformedItemsAndOverflowAreErrors) {
  EXPECT_EQ(error_of("1,18446744073709551616"),
            "-c 1,18446744073709551616: '18446744073709551616': 18446744073709551616 is larger "
            "than any id (at most 18446744073709551615)");
  EXPECT_EQ(error_of("0-99999999999999999999"),
            "-c 0-99999999999999999999: '0-99999999999999999999': 99999999999999999999 is "
            "larger than any id (at most 18446744073709551615)");
  EXPECT_EQ(error_of("1-2-3"), "-c 1-2-3: '1-2-3' is not an id or a range of ids such as 5-10");
  EXPECT_EQ(error_of("5-"), "-c 5-: '5-' is not an id or a range of ids such as 5-10");
  EXPECT_EQ(error_of("-5"), "-c -5: '-5' is not an id or a range of ids such as 5-10");
  EXPECT_EQ(error_of("x"), "-c x: 'x' is not an id or a range of ids such as 5-10");
}

// "all" lists the call paths by id: ids 0 to n - 1 in any order, sparse ids, and ids given
// twice (a model not finalized) in the order of a stable sort.
TEST(SelectCallPaths, AllInIdOrderWhateverTheIds) {
  auto all = [](const std::vector<uint32_t>& ids) {
    Model model;
    for (const uint32_t id : ids) model.cnodes.emplace_back().id = id;
    return select_call_paths(model, "all").cnodes;
  };
  EXPECT_EQ(all({2, 0, 1}), (std::vector<Index>{1, 2, 0}));
  EXPECT_EQ(all({5, 1, 9}), (std::vector<Index>{1, 0, 2}));
  EXPECT_EQ(all({1, 3, 0}), (std::vector<Index>{2, 0, 1}));
  EXPECT_EQ(all({1, 1, 0}), (std::vector<Index>{2, 0, 1}));
  EXPECT_EQ(all({0, 2, 2}), (std::vector<Index>{0, 1, 2}));
  EXPECT_TRUE(all({}).empty());
}

class SelectionOnCallTree : public ::testing::Test {
 protected:
  void SetUp() override {
    CUBEKIT_REQUIRE_SHARED();
    report_.emplace(Report::open(
        (test::shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex").string()));
  }
  const Model& model() const { return report_->model(); }
  std::vector<uint64_t> ids(const std::vector<Index>& cnodes) const {
    std::vector<uint64_t> out;
    for (Index c : cnodes) out.push_back(model().cnodes[c].id);
    return out;
  }
  std::vector<uint64_t> selected(const std::string& spec) const {
    const CallPathSelection s = select_call_paths(model(), spec);
    EXPECT_EQ(s.program, "");
    return ids(s.cnodes);
  }
  std::optional<Report> report_;
};

TEST_F(SelectionOnCallTree, HugeRangesAreBoundedByTheCallTree) {
  const std::vector<uint64_t> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  EXPECT_EQ(selected("all"), all);
  EXPECT_EQ(selected("0-9223372036854775807"), all);
  EXPECT_EQ(selected("0-18446744073709551615"), all);
  EXPECT_EQ(selected("16-18446744073709551615,2"), (std::vector<uint64_t>{16, 17, 2}));
  EXPECT_EQ(selected("18-18446744073709551615"), std::vector<uint64_t>{});
  EXPECT_THROW(select_call_paths(model(), "0-18446744073709551616"), LookupError);
}

TEST_F(SelectionOnCallTree, NamedSelections) {
  EXPECT_EQ(selected("roots"), std::vector<uint64_t>{0});
  EXPECT_EQ(selected("level=2"), (std::vector<uint64_t>{2, 6, 10, 14}));
  EXPECT_EQ(selected("level<2"), (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(selected("leafs"), (std::vector<uint64_t>{3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17}));
  // Regions d1, d2, d3 start with "d"; region d itself is named "double" (§12).
  EXPECT_EQ(selected("name=/^d/"), (std::vector<uint64_t>{14, 15, 16, 17}));
  EXPECT_THROW(select_call_paths(model(), "name=/(/"), CubePLError);
  EXPECT_THROW(select_call_paths(model(), "/nonexistent/selection.cubepl"), LookupError);
}

TEST_F(SelectionOnCallTree, LocationsBoundedByTheSystemTree) {
  EXPECT_EQ(select_locations(model(), ""), std::vector<Index>{0});
  EXPECT_EQ(select_locations(model(), "0-18446744073709551615"), std::vector<Index>{0});
  EXPECT_EQ(select_locations(model(), "1-9"), std::vector<Index>{});
  EXPECT_THROW(select_locations(model(), "0-18446744073709551616"), LookupError);
}

TEST_F(SelectionOnCallTree, MetricTokensLastToFirst) {
  const Index visits = *model().metric_by_uniq_name("visits");
  const Index time = *model().metric_by_uniq_name("time");
  const Index n = static_cast<Index>(model().metrics.size());
  const MetricSelection s =
      select_metrics(model(), "visits,metric::visits()*2,twice:metric::time()*2,time");
  EXPECT_EQ(s.metrics, (std::vector<Index>{time, n, n + 1, visits}));
  ASSERT_EQ(s.extra.size(), 2u);
  EXPECT_EQ(s.extra[0].uniq_name, "twice");
  EXPECT_EQ(s.extra[0].expression, "metric::time()*2");
  EXPECT_EQ(s.extra[1].uniq_name, "New Metric1");
  EXPECT_EQ(s.extra[1].expression, "metric::visits()*2");
  EXPECT_THROW(select_metrics(model(), "no_such_metric"), CubePLError);
}

TEST_F(SelectionOnCallTree, FlatProfileOfStoredAndDerivedMetrics) {
  const MetricSelection s = select_metrics(model(), "visits,metric::visits()*2");
  MetricEngine engine(*report_, s.extra);
  for (size_t k = 0; k < 2; ++k) {
    const double factor = k == 0 ? 2 : 1;  // s.metrics: the new metric first, then visits
    const FlatProfile p = flat_profile(engine, s.metrics[k], Flavour::kInclusive);
    ASSERT_EQ(p.regions.size(), model().regions.size());
    for (size_t i = 1; i < p.regions.size(); ++i)
      EXPECT_LT(model().regions[p.regions[i - 1]].id, model().regions[p.regions[i]].id);
    // Every cnode calls its own region: region of a (cnode 2) has 1 visit and its callees
    // a1..a3 add 1 + 2 + 3; d3 (cnode 17) has 12 and no callees; main (cnode 1) has 1 and
    // everything below it adds 72 − 1 − 1.
    auto at = [&](const Values& v, uint64_t cnode_id) {
      return v.scalar(model().cnodes[*model().cnode_by_id(cnode_id)].region);
    };
    EXPECT_EQ(at(p.exclusive, 2), 1 * factor);
    EXPECT_EQ(at(p.subroutines, 2), 6 * factor);
    EXPECT_EQ(at(p.exclusive, 17), 12 * factor);
    EXPECT_EQ(at(p.subroutines, 17), 0);
    EXPECT_EQ(at(p.exclusive, 1), 1 * factor);
    EXPECT_EQ(at(p.subroutines, 1), 70 * factor);
  }
}

}  // namespace
}  // namespace cubekit
