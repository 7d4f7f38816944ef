// LocationStatistics (cube_stat -%): exact moments and extremes, P² quartile estimates; the
// expected numbers are worked out by hand from the algorithm's steps (Jain & Chlamtac 1985).
// cnodes_of_regions (cube_stat -r): the call paths of each routine asked for.
#include "cubekit/statistics.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubekit {
namespace {

TEST(LocationStatistics, FewerThanFiveValuesAreExact) {
  LocationStatistics s;
  for (double v : {4.0, 1.0, 3.0, 2.0}) s.add(v);
  EXPECT_EQ(s.count(), 4);
  EXPECT_DOUBLE_EQ(s.sum(), 10);
  EXPECT_DOUBLE_EQ(s.mean(), 2.5);
  EXPECT_DOUBLE_EQ(s.variance(), 5.0 / 3);  // ((1.5² + 0.5²) · 2) / 3
  EXPECT_DOUBLE_EQ(s.minimum(), 1);
  EXPECT_DOUBLE_EQ(s.maximum(), 4);
  EXPECT_DOUBLE_EQ(s.median(), 2.5);  // even count: mean of the two middle values
}

TEST(LocationStatistics, FiveValuesAreTheMarkers) {
  LocationStatistics s;
  for (double v : {5.0, 3.0, 1.0, 4.0, 2.0}) s.add(v);
  EXPECT_DOUBLE_EQ(s.minimum(), 1);
  EXPECT_DOUBLE_EQ(s.quartile25(), 2);
  EXPECT_DOUBLE_EQ(s.median(), 3);
  EXPECT_DOUBLE_EQ(s.quartile75(), 4);
  EXPECT_DOUBLE_EQ(s.maximum(), 5);
  EXPECT_DOUBLE_EQ(s.variance(), 2.5);
}

TEST(LocationStatistics, MarkersMoveByThePSquaredFormula) {
  // 6: a new maximum; desired positions 1, 2.25, 3.5, 4.75, 6: no marker moves.
  // 7: a new maximum; desired 1, 2.5, 4, 5.5, 7: the median marker is 1 off but its upper
  // neighbour is adjacent (positions 3 and 4); the upper quartile marker (position 4, height 4)
  // moves up: 4 + 1/(7−3) · ((4−3+1)(7−4)/(7−4) + (7−4−1)(4−3)/(4−3)) = 5, inside (3, 7).
  LocationStatistics s;
  for (double v : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}) s.add(v);
  EXPECT_EQ(s.count(), 7);
  EXPECT_DOUBLE_EQ(s.mean(), 4);
  EXPECT_DOUBLE_EQ(s.variance(), 28.0 / 6);  // (140 − 28²/7) / 6
  EXPECT_DOUBLE_EQ(s.minimum(), 1);
  EXPECT_DOUBLE_EQ(s.quartile25(), 2);
  EXPECT_DOUBLE_EQ(s.median(), 3);
  EXPECT_DOUBLE_EQ(s.quartile75(), 5);
  EXPECT_DOUBLE_EQ(s.maximum(), 7);
}

TEST(LocationStatistics, NewMinimumMovesTheLowestMarker) {
  LocationStatistics s;
  for (double v : {10.0, 20.0, 30.0, 40.0, 50.0, 0.0}) s.add(v);
  EXPECT_DOUBLE_EQ(s.minimum(), 0);
  EXPECT_DOUBLE_EQ(s.maximum(), 50);
}

// Regions: 0 "main", 1 "foo" mangled "_Z3foov", 2 "bar", 3 "foo" again (another module). Call
// paths 0-5 call regions 0, 1, 2, 3, 1, 2; a name finds a call path by its region's name or its
// mangled name, each once, in model order; a name asked twice has its call paths twice.
TEST(CnodesOfRegions, EachNameGetsItsCallPathsInModelOrder) {
  Model model;
  for (const auto& [name, mangled] : std::vector<std::pair<std::string, std::string>>{
           {"main", "main"}, {"foo", "_Z3foov"}, {"bar", "bar"}, {"foo", "foo"}}) {
    Region r;
    r.id = static_cast<uint32_t>(model.regions.size());
    r.name = name;
    r.mangled_name = mangled;
    model.regions.push_back(r);
  }
  for (Index region : {0, 1, 2, 3, 1, 2}) {
    Cnode c;
    c.id = static_cast<uint32_t>(model.cnodes.size());
    c.region = region;
    model.cnodes.push_back(c);
  }
  const std::vector<std::vector<Index>> found =
      cnodes_of_regions(model, {"foo", "_Z3foov", "bar", "nope", "main", "foo"});
  const std::vector<std::vector<Index>> expected{{1, 3, 4}, {1, 4}, {2, 5}, {}, {0}, {1, 3, 4}};
  EXPECT_EQ(found, expected);
}

}  // namespace
}  // namespace cubekit
