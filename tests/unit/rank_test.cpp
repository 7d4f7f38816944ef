// cube_rank's score and cube_info's call tree order, on hand-computed expectations (the oracle
// steps in tests/compat/oracle_inspect_test.cpp check the printed lists against CubeLib 4.6).
#include <gtest/gtest.h>

#include <cmath>

#include "cubekit/info_tree.hpp"
#include "cubekit/rank.hpp"
#include "small_model.hpp"

namespace cubekit {
namespace {

double phi(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// The mass over [a, a + w], w the interval rounded down to whole steps of 0.001 (at least one):
// the original's Simpson loop up to 1000 steps, the closed form beyond.
TEST(NormalMass, CoversWholeStepsOfOneThousandth) {
  EXPECT_NEAR(normal_mass(0, 0.0105), phi(0.010) - phi(0), 1e-14);
  EXPECT_NEAR(normal_mass(1, 1.0004), phi(1.001) - phi(1), 1e-14);        // one step at least
  EXPECT_NEAR(normal_mass(-0.5, 0.4999), phi(0.499) - phi(-0.5), 1e-13);  // 999 steps
  EXPECT_NEAR(normal_mass(-3, 3), phi(3) - phi(-3), 1e-13);               // 6000 steps: closed form
  EXPECT_NEAR(normal_mass(40, 40.002), 0.0, 1e-300);
  // Without Simpson steps allowed: the closed form, the same mass to rounding.
  EXPECT_NEAR(normal_mass(-0.5, 0.4999, 0), phi(0.499) - phi(-0.5), 1e-13);
}

// CubeLib's cube_info rebuilds the call tree from the call paths sorted by id: siblings come
// in id order, whatever the document order.
TEST(CallForest, SiblingsAndRootsInIdOrder) {
  Model model;
  test::add_one_machine(model, {1});
  test::add_metric(model, "time", "DOUBLE", MetricKind::kExclusive);
  Region r;
  r.name = r.mangled_name = "f";
  model.regions.push_back(r);
  // Document order: root id 7 with children 5 then 2; root id 3.
  for (uint32_t id : {7u, 5u, 2u, 3u}) {
    Cnode c;
    c.id = id;
    c.region = 0;
    if (id == 5 || id == 2) c.parent = 0;
    model.cnodes.push_back(c);
  }
  model.cnodes[0].children = {1, 2};
  model.finalize("ids");
  const CallForest forest = CallForest::whole(model);
  ASSERT_EQ(forest.roots.size(), 2u);
  EXPECT_EQ(model.cnodes[forest.roots[0]].id, 3u);
  EXPECT_EQ(model.cnodes[forest.roots[1]].id, 7u);
  const std::vector<Index>& kids = forest.children[forest.roots[1]];
  ASSERT_EQ(kids.size(), 2u);
  EXPECT_EQ(model.cnodes[kids[0]].id, 2u);
  EXPECT_EQ(model.cnodes[kids[1]].id, 5u);
}

}  // namespace
}  // namespace cubekit
