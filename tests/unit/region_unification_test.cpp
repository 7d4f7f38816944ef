// Regions of unified call trees (UnifiedDefinitions, cube_diff / cube_merge / cube_mean and the
// other algebra tools): each call path's region is the first region already there that is alike
// (same name, module and lines, whatever else differs), else a copy of its own. Checked against
// that rule applied by the test itself, region by region, on inputs of many regions with alike
// ones within an input, across inputs, and regions that differ in one of the four fields only.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cubekit
