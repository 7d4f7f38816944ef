// The flame graph's spans (cubekit/flame_layout.hpp) of a small call tree, against places
// worked out by hand: narrow spans left out with all below them, yet taking their room.
#include "cubekit/flame_layout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cubekit/error.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

// Call paths in pre-order with their inclusive values (test::add_two_foo_call_tree):
//   0 main 256 → 1 foo 128 → 2 bar 96 → 3 foo 32 → 4 foo 16
//                                      → 5 baz 64
//              → 6 bar 64 → 7 baz 32
// Powers of two: every share and place below is exact.
Model small_tree() {
  Model model;
  test::add_two_foo_call_tree(model);
  return model;
}

// The inclusive values of the tree above, in call path order.
const std::vector<double> kInclusive = {256, 128, 96, 32, 16, 64, 64, 32};

struct Place {
  Index cnode;
  uint32_t depth;
  double start, extent;
  bool operator==(const Place&) const = default;
};

std::vector<Place> places(const FlameLayout& layout) {
  std::vector<Place> out;
  for (const FlameBox& b : layout.boxes) out.push_back({b.cnode, b.depth, b.start, b.extent});
  return out;
}

TEST(FlameLayout, NarrowSpansTakeTheirRoomButAreLeftOut) {
  const Model model = small_tree();
  const std::vector<double>& incl = kInclusive;
  // 512 pixels for the total of 256: every span is twice its value.
  FlameOptions o;
  o.extent = 512;
  o.min_extent = 40;
  const FlameLayout all = flame_layout(model, incl, o);
  EXPECT_EQ(all.total, 256);
  // Only call path 4 (foo, 32 px) is narrower than 40 px.
  const std::vector<Place> expected = {{0, 0, 0, 512}, {1, 1, 0, 256},  {2, 2, 0, 192},
                                       {3, 3, 0, 64},  {5, 3, 64, 128}, {6, 1, 256, 128},
                                       {7, 2, 256, 64}};
  EXPECT_EQ(places(all), expected);
  // At 65 px, call path 3 (64 px) is left out, yet its sibling 5 still starts at 64.
  o.min_extent = 65;
  const std::vector<Place> wide = {
      {0, 0, 0, 512}, {1, 1, 0, 256}, {2, 2, 0, 192}, {5, 3, 64, 128}, {6, 1, 256, 128}};
  EXPECT_EQ(places(flame_layout(model, incl, o)), wide);
  // Depth 1: roots and their children only.
  o.max_depth = 1;
  const std::vector<Place> shallow = {{0, 0, 0, 512}, {1, 1, 0, 256}, {6, 1, 256, 128}};
  EXPECT_EQ(places(flame_layout(model, incl, o)), shallow);
}

TEST(FlameLayout, NegativeAndMissingValuesTakeNoRoom) {
  const Model model = small_tree();
  // foo (1) not a number: no room, left out with all below it; bar (6) is then the root's
  // first drawn child, at 0; baz (7) negative: left out. The total counts the root only.
  const std::vector<double> incl = {8, NAN, 1, 1, 1, 1, 4, -1};
  FlameOptions o;
  o.extent = 8;
  o.min_extent = 0.5;
  const std::vector<Place> expected = {{0, 0, 0, 8}, {6, 1, 0, 4}};
  const FlameLayout layout = flame_layout(model, incl, o);
  EXPECT_EQ(places(layout), expected);
  EXPECT_EQ(layout.total, 8);
  // A root of value 0: shares of 1 instead of a division by 0; nothing is wide enough.
  const std::vector<double> zero(8, 0.0);
  EXPECT_TRUE(flame_layout(model, zero, o).boxes.empty());
  EXPECT_EQ(flame_layout(model, zero, o).total, 0);
}

TEST(FlameLayout, TooManySpansAndWrongValueCountAreErrors) {
  const Model model = small_tree();
  const std::vector<double>& incl = kInclusive;
  FlameOptions o;
  o.extent = 512;
  o.min_extent = 1;
  o.max_boxes = 7;  // 8 spans are wide enough
  EXPECT_THROW(flame_layout(model, incl, o), Error);
  o.max_boxes = 8;
  EXPECT_EQ(flame_layout(model, incl, o).boxes.size(), 8u);
  EXPECT_THROW(flame_layout(model, std::vector<double>(7, 1.0), o), Error);
}

}  // namespace
}  // namespace cubekit
