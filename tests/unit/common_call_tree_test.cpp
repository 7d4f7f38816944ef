// cube_commoncalltree's library calls on two reports whose call trees differ (the oracle only
// has pairs with equal trees): the shared tree is found whatever the order of siblings, and
// each report keeps the inclusive values of the shared call paths, the left-out callees'
// values folded into their callers' exclusive values (CubeLib drops them).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"
#include "cubekit/writer.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

struct CallPath {
  const char* region;
  Index parent;
  double exclusive;  // one location
};

// A report with one DOUBLE metric `time` of the given kind, one location, and a region per
// distinct name (in order of first use); call path ids are their positions.
Report write_report(const std::string& path, const std::vector<CallPath>& calls, MetricKind kind,
                    const std::vector<uint32_t>& ids = {}) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", kind);
  for (Index c = 0; c < calls.size(); ++c) {
    Index region = kNoIndex;
    for (Index r = 0; r < model->regions.size(); ++r)
      if (model->regions[r].name == calls[c].region) region = r;
    if (region == kNoIndex) {
      Region r;
      r.id = static_cast<uint32_t>(model->regions.size());
      r.name = r.mangled_name = calls[c].region;
      region = static_cast<Index>(model->regions.size());
      model->regions.push_back(r);
    }
    Cnode cnode;
    cnode.id = ids.empty() ? static_cast<uint32_t>(c) : ids[c];
    cnode.region = region;
    cnode.parent = calls[c].parent;
    model->cnodes.push_back(cnode);
    if (cnode.parent != kNoIndex) model->cnodes[cnode.parent].children.push_back(c);
  }
  test::add_one_machine(*model, {1});
  model->finalize(path);
  // Inclusive values by hand: callees come after their callers.
  std::vector<double> rows(calls.size());
  for (Index c = 0; c < calls.size(); ++c) rows[c] = calls[c].exclusive;
  if (kind == MetricKind::kInclusive)
    for (Index c = static_cast<Index>(calls.size()); c-- > 0;)
      if (calls[c].parent != kNoIndex) rows[calls[c].parent] += rows[c];
  ReportWriter writer(path, model);
  writer.begin_metric(0);
  for (Index c : storage_order(*model, kind))
    writer.write_row(c, reinterpret_cast<const std::byte*>(&rows[c]));
  writer.end_metric();
  writer.finish();
  return Report::open(path);
}

// main → foo → bar, main → baz; stored exclusive.
const std::vector<CallPath> kFirst = {
    {"main", kNoIndex, 1}, {"foo", 0, 2}, {"bar", 1, 4}, {"baz", 0, 8}};
// init; main → baz, main → foo → qux; stored inclusive.
const std::vector<CallPath> kSecond = {
    {"init", kNoIndex, 16}, {"main", kNoIndex, 1}, {"baz", 1, 2}, {"foo", 1, 4}, {"qux", 3, 8}};

class CommonCallTree : public ::testing::Test {
 protected:
  test::TempDir dir_{"common_call_tree"};
  std::string at(const char* name) { return (dir_.path() / name).string(); }
  Report first_ = write_report(at("first.cubex"), kFirst, MetricKind::kExclusive);
  Report second_ = write_report(at("second.cubex"), kSecond, MetricKind::kInclusive);
};

TEST_F(CommonCallTree, SharedCallPathsWhateverTheSiblingOrder) {
  const auto kept = common_call_paths({&first_.model(), &second_.model()});
  EXPECT_EQ(kept[0], (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(kept[1], (std::vector<bool>{false, true, true, true, false}));
  EXPECT_EQ(common_call_paths({&first_.model()})[0], std::vector<bool>(4, true));
  EXPECT_TRUE(common_call_paths({}).empty());
}

// Values of `report`'s call paths, by region name: {exclusive, inclusive}.
std::map<std::string, std::pair<double, double>> values_by_region(const Report& report) {
  MetricEngine engine(report);
  std::map<std::string, std::pair<double, double>> out;
  const Model& m = report.model();
  for (Index c = 0; c < m.cnodes.size(); ++c)
    out[m.regions[m.cnodes[c].region].name] = {
        engine.location_values(0, c, Flavour::kInclusive, Flavour::kExclusive).scalar(0),
        engine.location_values(0, c, Flavour::kInclusive, Flavour::kInclusive).scalar(0)};
  return out;
}

TEST_F(CommonCallTree, LeftOutCalleesFoldIntoTheirCallers) {
  const auto kept = common_call_paths({&first_.model(), &second_.model()});
  write_call_tree_subset(first_, kept[0], at("first_common.cubex"));
  write_call_tree_subset(second_, kept[1], at("second_common.cubex"));
  const Report first = Report::open(at("first_common.cubex"));
  const Report second = Report::open(at("second_common.cubex"));
  using Values = std::map<std::string, std::pair<double, double>>;
  // foo keeps bar's 4 as its own; main's inclusive value is unchanged.
  EXPECT_EQ(values_by_region(first), (Values{{"main", {1, 15}}, {"foo", {6, 6}}, {"baz", {8, 8}}}));
  // qux's 8 is foo's now; the root init is not shared and goes.
  EXPECT_EQ(values_by_region(second),
            (Values{{"main", {1, 15}}, {"foo", {12, 12}}, {"baz", {2, 2}}}));
  // Every region stays defined, used or not (as CubeLib writes it).
  EXPECT_EQ(first.model().regions.size(), 4u);
  EXPECT_EQ(second.model().regions.size(), 5u);
}

// Reports that share no root share nothing: writing nothing of them is refused (a report
// without call paths cannot be read, by CubeLib neither).
TEST_F(CommonCallTree, NothingSharedIsRefused) {
  const Report other =
      write_report(at("other.cubex"), {{"init", kNoIndex, 1}}, MetricKind::kExclusive);
  const auto kept = common_call_paths({&first_.model(), &other.model()});
  EXPECT_EQ(kept[0], std::vector<bool>(4, false));
  EXPECT_THROW(write_call_tree_subset(first_, kept[0], at("none.cubex")), Error);
  EXPECT_FALSE(std::filesystem::exists(at("none.cubex")));
}

TEST_F(CommonCallTree, CallPathsNumberedInTheOrderOfTheInputIds) {
  // Ids as a Score-P report may have them: callees numbered before a later sibling subtree.
  const Report input = write_report(at("ids.cubex"), kFirst, MetricKind::kExclusive, {0, 2, 3, 1});
  write_call_tree_subset(input, {true, true, false, true}, at("ids_common.cubex"));
  const Report out = Report::open(at("ids_common.cubex"));
  const Model& m = out.model();
  ASSERT_EQ(m.cnodes.size(), 3u);
  for (const Cnode& c : m.cnodes) {
    const std::string region = m.regions[c.region].name;
    EXPECT_EQ(c.id, region == "main" ? 0u : region == "baz" ? 1u : 2u) << region;
  }
}

}  // namespace
}  // namespace cubekit
