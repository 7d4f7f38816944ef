// The flat profile's "Subroutines" as CubeLib defines them (cube_dump -r): the ⊕ of the
// exclusive values of every call path below one of the region's own that belongs to another
// region, each once. A recursive tree and a MAXDOUBLE metric tell this apart from "inclusive
// minus exclusive", which counts a recursion's callees twice and cannot subtract maxima.
#include "cubekit/flat_profile.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/writer.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

// Regions A (id 0), B (1), C (2); call paths 0 A → 1 B → 2 A → 3 C, and 0 A → 4 C; two
// locations (one process, two threads). Exclusive values per call path [location 0, 1]:
//   time (DOUBLE):    A [1, 2]  B [2, 1]  A [4, 0]  C [8, 3]  C [16, 5]
//   peak (MAXDOUBLE): A [1, 9]  B [2, 1]  A [7, 0]  C [3, 4]  C [5, 2]
// Subroutines of A: call paths 1, 3, 4 (2 is A itself; 3 counts once although both A's are
// above it); of B: 2 and 3; of C: none.
const std::vector<std::vector<double>> kTime = {{1, 2}, {2, 1}, {4, 0}, {8, 3}, {16, 5}};
const std::vector<std::vector<double>> kPeak = {{1, 9}, {2, 1}, {7, 0}, {3, 4}, {5, 2}};

Report recursive_report(const std::string& path) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  test::add_metric(*model, "peak", "MAXDOUBLE", MetricKind::kExclusive);
  for (uint32_t r = 0; r < 3; ++r) {
    Region region;
    region.id = r;
    region.name = region.mangled_name = std::string(1, static_cast<char>('A' + r));
    model->regions.push_back(region);
  }
  const Index region_of[] = {0, 1, 0, 2, 2};
  const Index parent_of[] = {kNoIndex, 0, 1, 2, 0};
  for (uint32_t c = 0; c < 5; ++c) {
    Cnode cnode;
    cnode.id = c;
    cnode.region = region_of[c];
    cnode.parent = parent_of[c];
    model->cnodes.push_back(cnode);
    if (cnode.parent != kNoIndex) model->cnodes[cnode.parent].children.push_back(c);
  }
  test::add_one_machine(*model, {2});
  model->finalize("flat_profile_test");
  ReportWriter writer(path, model);
  for (Index m = 0; m < 2; ++m) {
    const auto& values = m == 0 ? kTime : kPeak;
    writer.begin_metric(m);
    for (Index c : storage_order(*model, MetricKind::kExclusive))
      writer.write_row(c, reinterpret_cast<const std::byte*>(values[c].data()));
    writer.end_metric();
  }
  writer.finish();
  return Report::open(path);
}

class FlatProfileOfRecursion : public ::testing::Test {
 protected:
  test::TempDir dir_{"flat_profile"};
  Report report_ = recursive_report((dir_.path() / "recursive.cubex").string());
  MetricEngine engine_{report_};
};

TEST_F(FlatProfileOfRecursion, SumsCountEachCalleeOnce) {
  const FlatProfile p = flat_profile(engine_, 0, Flavour::kInclusive);
  EXPECT_EQ(p.regions, (std::vector<Index>{0, 1, 2}));
  EXPECT_EQ(p.exclusive.scalar(0), 1 + 2 + 4 + 0);
  EXPECT_EQ(p.subroutines.scalar(0), 3 + 11 + 21);  // B, the inner C, the outer C
  EXPECT_EQ(p.exclusive.scalar(1), 3);
  EXPECT_EQ(p.subroutines.scalar(1), 4 + 11);  // the inner A and C
  EXPECT_EQ(p.exclusive.scalar(2), 11 + 21);
  EXPECT_EQ(p.subroutines.scalar(2), 0);
  // C calls nobody: for DOUBLE CubeLib has the 0 (cube_dump -r -t aggr prints "0").
  EXPECT_EQ(p.no_subroutines, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(subroutines_text(p, 2), "0");
}

// The shape lists the call paths named above (A: 1, 4, 3 in CubeLib's order, B: 2, 3, C:
// none), and the profile from it has the same numbers for both types (MAXDOUBLE: C has no
// subroutines value). Five call paths in all: a limit of four is too small.
TEST_F(FlatProfileOfRecursion, TheShapeGivesTheSameProfile) {
  const Model& model = report_.model();
  const std::optional<FlatProfileShape> shape = flat_profile_shape(model, 5);
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->first, (std::vector<size_t>{0, 3, 5, 5}));
  EXPECT_EQ(shape->call_paths, (std::vector<Index>{1, 4, 3, 2, 3}));
  EXPECT_EQ(shape->called, (std::vector<bool>{true, true, true}));
  EXPECT_FALSE(flat_profile_shape(model, 4).has_value());
  for (Index metric : {Index{0}, Index{1}}) {
    const Values exclusive =
        engine_.aggregated_values(metric, Flavour::kInclusive, Flavour::kExclusive);
    const FlatProfile direct = flat_profile(model, exclusive);
    const FlatProfile shaped = flat_profile(model, *shape, exclusive);
    EXPECT_EQ(shaped.regions, direct.regions);
    for (Index r = 0; r < 3; ++r) {
      EXPECT_EQ(exclusive_text(shaped, r), exclusive_text(direct, r)) << metric << " " << r;
      EXPECT_EQ(subroutines_text(shaped, r), subroutines_text(direct, r)) << metric << " " << r;
    }
    EXPECT_EQ(shaped.no_subroutines, direct.no_subroutines);
    EXPECT_EQ(shaped.no_exclusive, direct.no_exclusive);
  }
  EXPECT_EQ(flat_profile(model, *shape,
                         engine_.aggregated_values(0, Flavour::kInclusive, Flavour::kExclusive))
                .subroutines.scalar(0),
            3 + 11 + 21);
}

TEST_F(FlatProfileOfRecursion, SumsPerLocation) {
  const LocationFlatProfile p = location_flat_profile(engine_, 0, Flavour::kInclusive);
  auto at = [](const std::optional<Values>& v, Index l) { return v->scalar(l); };
  ASSERT_TRUE(p.subroutines[0] && p.subroutines[1] && p.exclusive[2]);
  EXPECT_EQ(at(p.exclusive[0], 0), 5);
  EXPECT_EQ(at(p.exclusive[0], 1), 2);
  EXPECT_EQ(at(p.subroutines[0], 0), 2 + 8 + 16);
  EXPECT_EQ(at(p.subroutines[0], 1), 1 + 3 + 5);
  EXPECT_EQ(at(p.subroutines[1], 0), 4 + 8);
  EXPECT_EQ(at(p.subroutines[1], 1), 0 + 3);
  EXPECT_EQ(at(p.exclusive[2], 0), 24);
  // C calls nobody: CubeLib's value of a chosen location is DOUBLE's 0 (cube_dump -r -t 0
  // prints "0"), unlike all locations at once (DirectCalleesInclusivePerLocation).
  ASSERT_TRUE(p.subroutines[2]);
  EXPECT_EQ(at(p.subroutines[2], 0), 0);
  EXPECT_EQ(at(p.subroutines[2], 1), 0);
}

// CubeLib's rule for all locations at once: the inclusive values of each call path of the
// region's direct callees of another region. A (call paths 0 and 2): callees 1 (B: B, the inner
// A and C), 4 (C) and 3 (C): [2+4+8 + 16 + 8, 1+0+3 + 5 + 3]; the inner A and C count again.
// B (call path 1): callee 2 (A: A and C); C: no callees.
TEST_F(FlatProfileOfRecursion, DirectCalleesInclusivePerLocation) {
  const LocationFlatProfile p = location_flat_profile(engine_, 0, Flavour::kInclusive,
                                                      SubroutineRule::kDirectCalleesInclusive);
  ASSERT_TRUE(p.subroutines[0] && p.subroutines[1] && p.exclusive[0]);
  EXPECT_EQ(p.exclusive[0]->scalar(0), 5);  // the same exclusive values as the other rule
  EXPECT_EQ(p.subroutines[0]->scalar(0), 14 + 16 + 8);
  EXPECT_EQ(p.subroutines[0]->scalar(1), 4 + 5 + 3);
  EXPECT_EQ(p.subroutines[1]->scalar(0), 4 + 8);
  EXPECT_EQ(p.subroutines[1]->scalar(1), 0 + 3);
  EXPECT_FALSE(p.subroutines[2]);
  // Maxima: A's callees' subtrees have maxima [7, 4] (B, A, C), [5, 2] and [3, 4].
  const LocationFlatProfile peak = location_flat_profile(engine_, 1, Flavour::kInclusive,
                                                         SubroutineRule::kDirectCalleesInclusive);
  EXPECT_EQ(peak.subroutines[0]->scalar(0), 7);
  EXPECT_EQ(peak.subroutines[0]->scalar(1), 4);
}

TEST_F(FlatProfileOfRecursion, MaximaOfTheCallees) {
  const LocationFlatProfile p = location_flat_profile(engine_, 1, Flavour::kInclusive);
  ASSERT_TRUE(p.subroutines[0] && p.subroutines[1]);
  EXPECT_EQ(p.exclusive[0]->scalar(0), 7);    // max(1, 7)
  EXPECT_EQ(p.exclusive[0]->scalar(1), 9);    // max(9, 0)
  EXPECT_EQ(p.subroutines[0]->scalar(0), 5);  // max(2, 3, 5)
  EXPECT_EQ(p.subroutines[0]->scalar(1), 4);  // max(1, 4, 2)
  EXPECT_EQ(p.subroutines[1]->scalar(0), 7);  // max(7, 3)
  EXPECT_EQ(p.subroutines[1]->scalar(1), 4);  // max(0, 4)
  const FlatProfile all = flat_profile(engine_, 1, Flavour::kInclusive);
  EXPECT_EQ(all.exclusive.scalar(0), 9);
  EXPECT_EQ(all.subroutines.scalar(0), 5);  // call paths' maxima over locations: 2, 4, 5
  EXPECT_EQ(all.subroutines.scalar(1), 7);
  // C calls nobody: CubeLib has no MAXDOUBLE value there, per location or aggregated, and
  // prints "0." (not the empty maximum's "-", nor a 0's "0").
  EXPECT_FALSE(p.subroutines[2]);
  EXPECT_EQ(all.no_subroutines, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(all.no_exclusive, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(subroutines_text(all, 2), "0.");
  EXPECT_EQ(exclusive_text(all, 2), "5");  // max(3, 5, 4, 2)
}

}  // namespace
}  // namespace cubekit
