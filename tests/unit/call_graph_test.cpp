// The call graph (cubekit/call_graph.hpp) of a small call tree with a region defined twice
// under one name and a region calling itself, against sums worked out by hand.
#include "cubekit/call_graph.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

// Regions main (0), foo (1), bar (2), foo (3: a second definition of foo), baz (4); call paths
// in pre-order, each with its exclusive value and (worked out) inclusive value:
//   0 main              1   255
//   1   foo (1)         2   158
//   2     bar           4   156
//   3       foo (3)     8    24
//   4         foo (1)  16    16   (foo calling foo)
//   5       baz       128   128
//   6   bar            32    96
//   7     baz          64    64
Model recursive_model() {
  Model model;
  test::add_two_foo_call_tree(model);
  return model;
}

const std::vector<double> kExclusive = {1, 2, 4, 8, 16, 128, 32, 64};
const std::vector<double> kInclusive = {255, 158, 156, 24, 16, 128, 96, 64};

struct Expected {
  std::string caller, callee;
  double inclusive;
  uint32_t call_paths;
};

void expect_calls(const CallGraph& g, const std::vector<Expected>& expected) {
  ASSERT_EQ(g.calls.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(g.regions[g.calls[i].caller].name, expected[i].caller) << i;
    EXPECT_EQ(g.regions[g.calls[i].callee].name, expected[i].callee) << i;
    EXPECT_EQ(g.calls[i].inclusive, expected[i].inclusive) << i;
    EXPECT_EQ(g.calls[i].call_paths, expected[i].call_paths) << i;
  }
}

TEST(CallGraph, SumsCallPathsIntoRegionsByNameAndCalls) {
  const Model model = recursive_model();
  const CallGraph g = call_graph(model, kInclusive, kExclusive);
  ASSERT_EQ(g.regions.size(), 4u);  // the two foo are one
  const std::vector<std::string> names = {"main", "foo", "bar", "baz"};
  // foo: exclusive 2 + 8 + 16; inclusive 158 (under main) + 24 (under bar), not 16 (under foo).
  const std::vector<double> exclusive = {1, 26, 36, 192}, inclusive = {255, 182, 252, 192};
  const std::vector<Index> heaviest = {0, 1, 2, 5};
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(g.regions[r].name, names[r]);
    EXPECT_EQ(g.regions[r].exclusive, exclusive[r]) << names[r];
    EXPECT_EQ(g.regions[r].inclusive, inclusive[r]) << names[r];
    EXPECT_EQ(g.regions[r].heaviest, heaviest[r]) << names[r];
  }
  expect_calls(g, {{"main", "foo", 158, 1},
                   {"foo", "bar", 156, 1},
                   {"bar", "foo", 24, 1},
                   {"foo", "foo", 16, 1},
                   {"bar", "baz", 192, 2},
                   {"main", "bar", 96, 1}});
}

TEST(CallGraph, HeaviestPartKeepsTheLargestRegionsAndTheirCalls) {
  const CallGraph g = call_graph(recursive_model(), kInclusive, kExclusive);
  // Three regions: main 255, bar 252, baz 192 (foo, 182, left out with its calls).
  const CallGraph three = heaviest_part(g, 3, 60);
  ASSERT_EQ(three.regions.size(), 3u);
  EXPECT_EQ(three.regions[0].name, "main");
  EXPECT_EQ(three.regions[1].name, "bar");
  EXPECT_EQ(three.regions[2].name, "baz");
  EXPECT_EQ(three.regions[2].exclusive, 192);
  expect_calls(three, {{"bar", "baz", 192, 2}, {"main", "bar", 96, 1}});
  // All four, one call asked for: still each region's largest incoming call (foo → foo, a
  // region calling itself, is never drawn).
  expect_calls(heaviest_part(g, 4, 1),
               {{"bar", "baz", 192, 2}, {"main", "foo", 158, 1}, {"foo", "bar", 156, 1}});
  expect_calls(heaviest_part(g, 10, 4), {{"bar", "baz", 192, 2},
                                         {"main", "foo", 158, 1},
                                         {"foo", "bar", 156, 1},
                                         {"main", "bar", 96, 1}});
  EXPECT_EQ(heaviest_part(g, 10, 60).calls.size(), 5u);
}

TEST(CallGraph, ValuesOfAnotherSizeAreAnError) {
  const Model model = recursive_model();
  const std::vector<double> short_values(7, 1.0);
  EXPECT_THROW(call_graph(model, short_values, kExclusive), Error);
  EXPECT_THROW(call_graph(model, kInclusive, short_values), Error);
}

}  // namespace
}  // namespace cubekit
