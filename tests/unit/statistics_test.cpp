// LocationStatistics (cube_stat -%): exact moments and extremes, P² quartile estimates; the
// expected numbers are worked out by hand from the algorithm's steps (Jain & Chlamtac 1985).
#include "cubekit/statistics.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cubekit
