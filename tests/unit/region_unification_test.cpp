// Regions of unified call trees (UnifiedDefinitions, cube_diff / cube_merge / cube_mean and the
// other algebra tools): each call path's region is the first region already there that is alike
// (same name, module and lines, whatever else differs), else a copy of its own. Checked against
// that rule applied by the test itself, region by region, on inputs of many regions with alike
// ones within an input, across inputs, and regions that differ in one of the four fields only.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/report_algebra.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

// A root per region in `regions` (call path c calls region c, ids from `first_id`): every call
// path is copied, so every region is looked up.
std::shared_ptr<Model> roots_calling(const std::vector<Region>& regions, uint32_t first_id) {
  auto model = std::make_shared<Model>();
  for (uint32_t r = 0; r < regions.size(); ++r) {
    model->regions.push_back(regions[r]);
    model->regions.back().id = r;
    Cnode c;
    c.id = first_id + r;
    c.region = r;
    c.line = r;  // no two roots alike: none is merged into another
    model->cnodes.push_back(c);
  }
  return model;
}

Region region(const std::string& name, const std::string& mod, int64_t begin, int64_t end,
              const std::string& descr = "") {
  Region r;
  r.name = r.mangled_name = name;
  r.mod = mod;
  r.begin = begin;
  r.end = end;
  r.descr = descr;
  return r;
}

TEST(RegionUnification, EachCallPathGetsTheFirstAlikeRegion) {
  // 3,000 regions per input: names repeat every 700, modules every 3, lines every 5, so that
  // many are alike and many differ in one field only; the second input's regions overlap the
  // first's, with other descriptions (not compared).
  std::vector<Region> first, second;
  for (int i = 0; i < 3000; ++i) {
    first.push_back(region("f" + std::to_string(i % 700), "m" + std::to_string(i % 3), i % 5,
                           i % 5 + 10, "first"));
    second.push_back(region("f" + std::to_string((i * 7) % 1000), "m" + std::to_string(i % 3),
                            i % 5, i % 5 + (i % 11 == 0 ? 11 : 10), "second"));
  }
  const auto a = roots_calling(first, 0), b = roots_calling(second, 3000);
  UnifiedDefinitions unified;
  InputMapping map_a, map_b;
  unified.add_call_tree(*a, map_a);
  unified.add_call_tree(*b, map_b);
  const Model& out = unified.model();

  // The rule, applied by the test: the regions in the order the call paths meet them.
  std::vector<Region> expected;
  auto expected_index = [&](const Region& r) {
    for (size_t i = 0; i < expected.size(); ++i)
      if (expected[i].name == r.name && expected[i].mod == r.mod && expected[i].begin == r.begin &&
          expected[i].end == r.end)
        return i;
    expected.push_back(r);
    return expected.size() - 1;
  };
  for (const auto& [input, map] : {std::pair{a, &map_a}, std::pair{b, &map_b}})
    for (Index c = 0; c < input->cnodes.size(); ++c) {
      const size_t want = expected_index(input->regions[input->cnodes[c].region]);
      ASSERT_NE(map->cnode[c], kNoIndex);
      ASSERT_EQ(out.cnodes[map->cnode[c]].region, want) << "call path " << input->cnodes[c].id;
    }
  ASSERT_EQ(out.regions.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(out.regions[i].name, expected[i].name);
    EXPECT_EQ(out.regions[i].descr, expected[i].descr) << "the first alike region's copy";
  }
  EXPECT_GT(expected.size(), 2100u);  // 2,100 distinct in the first input, more in the second
}

// A root `main` (region 0) calling `callees` (regions, and the line of each call): leaves.
std::shared_ptr<Model> main_calling(const std::vector<Region>& regions,
                                    const std::vector<std::pair<Index, int64_t>>& callees,
                                    uint32_t first_id) {
  auto model = std::make_shared<Model>();
  model->regions = regions;
  for (uint32_t r = 0; r < regions.size(); ++r) model->regions[r].id = r;
  Cnode root;
  root.id = first_id;
  root.region = 0;
  model->cnodes.push_back(root);
  for (const auto& [region_index, line] : callees) {
    Cnode c;
    c.id = first_id + static_cast<uint32_t>(model->cnodes.size());
    c.region = region_index;
    c.line = line;
    c.parent = 0;
    model->cnodes[0].children.push_back(static_cast<Index>(model->cnodes.size()));
    model->cnodes.push_back(c);
  }
  return model;
}

// A routine with hundreds of callees (looked up through a hash past 64): each callee of the
// second input goes onto the last alike callee there is by then, or is added at the end; the
// first input's alike callees stay apart (its tree is copied). The rule applied by the test:
// a scan of all callees there, in order.
TEST(CalleeUnification, ManyCalleesGoOntoTheLastAlikeOne) {
  std::vector<Region> regions{region("main", "a.c", 1, 9)};
  for (int r = 1; r <= 120; ++r)
    regions.push_back(region("f" + std::to_string(r % 90), "a.c", 1, 9));
  std::vector<std::pair<Index, int64_t>> first, second;
  for (int i = 0; i < 300; ++i) first.push_back({static_cast<Index>(1 + i % 120), i % 4});
  for (int i = 0; i < 400; ++i) second.push_back({static_cast<Index>(1 + (i * 7) % 120), i % 5});
  const auto a = main_calling(regions, first, 0), b = main_calling(regions, second, 1000);
  UnifiedDefinitions unified;
  InputMapping map_a, map_b;
  unified.add_call_tree(*a, map_a);
  unified.add_call_tree(*b, map_b);
  const Model& out = unified.model();

  // The callees there, as (region name, line), in order.
  std::vector<std::pair<std::string, int64_t>> there;
  for (const auto& [r, line] : first) there.push_back({regions[r].name, line});
  std::vector<size_t> expected;  // by callee of the second input: its position there
  for (const auto& [r, line] : second) {
    size_t at = SIZE_MAX;
    for (size_t j = 0; j < there.size(); ++j)
      if (there[j] == std::pair{regions[r].name, line}) at = j;
    if (at == SIZE_MAX) {
      at = there.size();
      there.push_back({regions[r].name, line});
    }
    expected.push_back(at);
  }
  ASSERT_EQ(out.cnodes.size(), 1 + there.size());
  const std::vector<Index>& callees = out.cnodes[map_a.cnode[0]].children;
  ASSERT_EQ(callees.size(), there.size());
  for (size_t j = 0; j < there.size(); ++j) {
    EXPECT_EQ(out.regions[out.cnodes[callees[j]].region].name, there[j].first);
    EXPECT_EQ(out.cnodes[callees[j]].line, there[j].second);
  }
  for (size_t k = 0; k < second.size(); ++k)
    ASSERT_EQ(map_b.cnode[1 + k], callees[expected[k]]) << "callee " << k << " of the second";
}

// Roots (`regions` index, line), each calling one callee: region `callee_region` at the line
// given, or none when the line is negative.
std::shared_ptr<Model> roots_with_callees(const std::vector<Region>& regions,
                                          const std::vector<std::array<int64_t, 3>>& roots,
                                          Index callee_region, uint32_t first_id) {
  auto model = std::make_shared<Model>();
  model->regions = regions;
  for (uint32_t r = 0; r < regions.size(); ++r) model->regions[r].id = r;
  for (const auto& [region_index, line, callee_line] : roots) {
    Cnode root;
    root.id = first_id + static_cast<uint32_t>(model->cnodes.size());
    root.region = static_cast<Index>(region_index);
    root.line = line;
    const Index at = static_cast<Index>(model->cnodes.size());
    model->cnodes.push_back(root);
    if (callee_line < 0) continue;
    Cnode callee;
    callee.id = root.id + 1;
    callee.region = callee_region;
    callee.line = callee_line;
    callee.parent = at;
    model->cnodes[at].children.push_back(static_cast<Index>(model->cnodes.size()));
    model->cnodes.push_back(callee);
  }
  return model;
}

// Hundreds of roots (found through a hash): each root of either input goes onto the alike root
// there is by then, an earlier root of its own input included, its callee onto that root's
// alike callee or after its callees; any other root is added at the end. The rule applied by
// the test: a scan of all roots there, in order.
TEST(RootUnification, ManyRootsGoOntoTheAlikeRoot) {
  std::vector<Region> regions{region("g", "a.c", 1, 9)};
  for (int r = 1; r <= 150; ++r)
    regions.push_back(region("f" + std::to_string(r % 110), "a.c", 1, 9));
  std::vector<std::array<int64_t, 3>> first, second;
  for (int i = 0; i < 500; ++i) first.push_back({1 + i % 150, i % 3, i % 7 == 0 ? -1 : i % 2});
  for (int i = 0; i < 600; ++i)
    second.push_back({1 + (i * 7) % 150, i % 4, i % 5 == 0 ? -1 : i % 3});
  const auto a = roots_with_callees(regions, first, 0, 0);
  const auto b = roots_with_callees(regions, second, 0, 5000);
  UnifiedDefinitions unified;
  InputMapping map_a, map_b;
  unified.add_call_tree(*a, map_a);
  unified.add_call_tree(*b, map_b);
  const Model& out = unified.model();

  const std::vector<Index> roots = out.cnode_roots();  // in the order they were added
  // The roots there as (region name, line), each with its callees' lines, in order.
  std::vector<std::pair<std::string, int64_t>> there;
  std::vector<std::vector<int64_t>> callee_lines;
  auto expect = [&](const Model& input, const InputMapping& map,
                    const std::vector<std::array<int64_t, 3>>& input_roots) {
    Index c = 0;
    for (const auto& [region_index, line, callee_line] : input_roots) {
      const std::pair<std::string, int64_t> call{regions[region_index].name, line};
      size_t at = SIZE_MAX;
      for (size_t j = 0; j < there.size() && at == SIZE_MAX; ++j)
        if (there[j] == call) at = j;
      if (at == SIZE_MAX) {
        at = there.size();
        there.push_back(call);
        callee_lines.emplace_back();
      }
      ASSERT_LT(at, roots.size());
      ASSERT_EQ(map.cnode[c], roots[at]) << "root " << input.cnodes[c].id;
      std::vector<int64_t>& lines = callee_lines[at];
      if (callee_line >= 0) {
        const auto callee = std::find(lines.begin(), lines.end(), callee_line);
        const size_t k = callee - lines.begin();
        if (callee == lines.end()) lines.push_back(callee_line);
        ASSERT_LT(k, out.cnodes[roots[at]].children.size()) << "root " << input.cnodes[c].id;
        ASSERT_EQ(map.cnode[c + 1], out.cnodes[roots[at]].children[k]);
      }
      c += callee_line < 0 ? 1 : 2;
    }
  };
  expect(*a, map_a, first);
  expect(*b, map_b, second);
  ASSERT_EQ(roots.size(), there.size());
  for (size_t j = 0; j < there.size(); ++j) {
    EXPECT_EQ(out.regions[out.cnodes[roots[j]].region].name, there[j].first) << "root " << j;
    EXPECT_EQ(out.cnodes[roots[j]].line, there[j].second) << "root " << j;
    std::vector<int64_t> lines;
    for (Index callee : out.cnodes[roots[j]].children) lines.push_back(out.cnodes[callee].line);
    EXPECT_EQ(lines, callee_lines[j]) << "the callees of root " << j;
  }
  // Past the hash's threshold many times over, and most roots went onto alike ones.
  EXPECT_GT(there.size(), 4 * 64u);
  EXPECT_LT(there.size(), (first.size() + second.size()) / 2);
}

}  // namespace
}  // namespace cubekit
