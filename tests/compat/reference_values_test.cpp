// Library answers against values another reader produced (incl.csv / excl.csv beside the real
// pyCubexR profiles) and against the hand-worked example of cube-format.md §12.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cubekit/algebra.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::shared_dir;

namespace cubekit {
namespace {

struct CsvTable {
  std::vector<std::string> columns;  // metric names after "Cnode ID, Thread ID"
  std::vector<std::vector<std::string>> rows;
};

CsvTable read_csv(const fs::path& p) {
  std::ifstream in(p);
  CsvTable t;
  std::string line;
  std::getline(in, line);
  std::stringstream header(line);
  for (std::string cell; std::getline(header, cell, ',');) t.columns.push_back(cell);
  t.columns.erase(t.columns.begin(), t.columns.begin() + 2);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    t.rows.push_back(cells);
  }
  return t;
}

// Every (cnode, location, metric) of the CSV equals the library's per-location value, to the
// printed precision.
void check_against_csv(const fs::path& report_path, const fs::path& csv, Flavour call) {
  const Report report = Report::open(report_path.string());
  MetricEngine engine(report);
  const Model& model = report.model();
  const CsvTable table = read_csv(csv);
  size_t checked = 0;
  for (size_t col = 0; col < table.columns.size(); ++col) {
    const auto metric = model.metric_by_uniq_name(table.columns[col]);
    ASSERT_TRUE(metric) << table.columns[col];
    for (const auto& row : table.rows) {
      const auto cnode = model.cnode_by_id(std::stoul(row[0]));
      ASSERT_TRUE(cnode) << row[0];
      const size_t location = std::stoul(row[1]);
      const Values v = engine.location_values(*metric, *cnode, Flavour::kInclusive, call);
      const double expected = std::stod(row[2 + col]);
      const double actual = v.scalar(location);
      EXPECT_NEAR(actual, expected, 1e-5 * std::max(1.0, std::fabs(expected)))
          << report_path << " metric " << table.columns[col] << " cnode " << row[0] << " location "
          << location;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

class ReferenceCsv : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceCsv, InclusiveAndExclusiveValuesMatch) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = shared_dir() / "data" / "real" / "pycubexr" / GetParam();
  fs::path report;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".cubex") report = f.path();
  check_against_csv(report, dir / "incl.csv", Flavour::kInclusive);
  check_against_csv(report, dir / "excl.csv", Flavour::kExclusive);
}

INSTANTIATE_TEST_SUITE_P(Pycubexr, ReferenceCsv,
                         ::testing::Values("call_tree_test", "blast.p64.r1", "time.p4.n2000.x1.r0"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// cube-format.md §12: call_tree_test.cubex, worked by hand from its bytes.
TEST(WorkedExample, CallTreeTest) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report = Report::open(
      (shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex").string());
  MetricEngine engine(report);
  const Model& m = report.model();
  ASSERT_EQ(m.cnodes.size(), 18u);
  ASSERT_EQ(m.locations.size(), 1u);
  const Index visits = *m.metric_by_uniq_name("visits");
  const Index time = *m.metric_by_uniq_name("time");
  const Index bytes_put = *m.metric_by_uniq_name("bytes_put");
  EXPECT_FALSE(report.has_data(bytes_put));  // declared, no members: all zero
  auto value = [&](Index metric, uint32_t cnode_id, Flavour call) {
    return engine.location_values(metric, *m.cnode_by_id(cnode_id), Flavour::kInclusive, call)
        .scalar(0);
  };
  // Row 3 of the INCLUSIVE metric belongs to cnode 6 (children-first order), §12.4.
  EXPECT_DOUBLE_EQ(value(time, 6, Flavour::kInclusive), 12.002032681105344);
  EXPECT_DOUBLE_EQ(value(time, 1, Flavour::kInclusive), 74.04997668704343);
  EXPECT_NEAR(value(time, 1, Flavour::kExclusive),
              74.04997668704343 - (60.00095408441209 + 12.002032681105344 + 1.8029116519949788 +
                                   0.2439507441735722),
              1e-12);
  EXPECT_EQ(value(visits, 2, Flavour::kInclusive), 7);  // 1 + 1 + 2 + 3
  EXPECT_EQ(value(visits, 0, Flavour::kInclusive), 72);
  EXPECT_EQ(value(visits, 17, Flavour::kExclusive), 12);
  EXPECT_EQ(value(bytes_put, 0, Flavour::kInclusive), 0);
  // All locations aggregated: one location, so the same numbers.
  const Values all = engine.aggregated_values(visits, Flavour::kInclusive, Flavour::kInclusive);
  EXPECT_EQ(all.scalar(*m.cnode_by_id(0)), 72);
}

// blast.p64.r1 is big-endian (§12.7).
TEST(WorkedExample, BigEndianBlast) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report =
      Report::open((shared_dir() / "data/real/pycubexr/blast.p64.r1/profile.cubex").string());
  const Index time = *report.model().metric_by_uniq_name("time");
  const Values v = stored_values(report, time, *report.model().cnode_by_id(0));
  EXPECT_DOUBLE_EQ(v.scalar(0), 45.28082930875);
  EXPECT_DOUBLE_EQ(v.scalar(1), 45.2839017475);
}

// Column = location id, not document order (§6.2): cube-values_example declares locations in
// the order 0, 2, 1, 3 and stored 1, 2, 3, 4 for threads 0..3 at the first call path.
TEST(WorkedExample, ColumnsAreLocationIds) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report = Report::open(
      (shared_dir() / "data/real/pycubexr/test_only_files/cube-values_example.cubex").string());
  const Model& m = report.model();
  EXPECT_EQ(m.locations[1].id, 2u);
  const Values v = stored_values(report, *m.metric_by_uniq_name("INT8"), *m.cnode_by_id(0));
  for (size_t l = 0; l < 4; ++l) EXPECT_EQ(v.scalar(l), double(l + 1));
}

}  // namespace
}  // namespace cubekit

namespace cubekit {
namespace {

// System-tree aggregation (§8.3) against the per-location values of blast's incl.csv, summed
// by hand per node: each location group holds one location; the machine holds all 64.
TEST(SystemAggregation, NodesAndGroupsSumTheirLocations) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = shared_dir() / "data/real/pycubexr/blast.p64.r1";
  const Report report = Report::open((dir / "profile.cubex").string());
  MetricEngine engine(report);
  const Model& m = report.model();
  const CsvTable csv = read_csv(dir / "incl.csv");
  const size_t time_col =
      std::find(csv.columns.begin(), csv.columns.end(), "time") - csv.columns.begin();
  std::vector<double> per_location(m.locations.size(), 0.0);
  for (const auto& row : csv.rows)
    if (row[0] == "0") per_location[std::stoul(row[1])] = std::stod(row[2 + time_col]);
  const Values root_row = engine.location_values(*m.metric_by_uniq_name("time"), *m.cnode_by_id(0),
                                                 Flavour::kInclusive, Flavour::kInclusive);
  const SystemValues sys = system_values(report, root_row);
  for (Index g = 0; g < m.groups.size(); ++g) {
    double expected = 0;
    for (Index l : m.groups[g].locations) expected += per_location[m.locations[l].id];
    EXPECT_NEAR(sys.groups.scalar(g), expected, 1e-5 * expected) << m.groups[g].name;
  }
  for (Index n = 0; n < m.system_nodes.size(); ++n) {
    // Walk the subtree by hand: every group below n.
    double expected = 0;
    std::vector<Index> stack{n};
    while (!stack.empty()) {
      const Index s = stack.back();
      stack.pop_back();
      for (Index g : m.system_nodes[s].groups)
        for (Index l : m.groups[g].locations) expected += per_location[m.locations[l].id];
      for (Index k : m.system_nodes[s].children) stack.push_back(k);
    }
    EXPECT_NEAR(sys.nodes.scalar(n), expected, 1e-5 * expected) << m.system_nodes[n].name;
  }
  // The whole system equals the all-locations aggregate CubeLib prints for the root
  // (oracle dump_all_incl_aggr.out: "PARALLEL(id=0) 2869.11").
  EXPECT_NEAR(sys.nodes.scalar(m.system_roots()[0]), 2869.11, 0.005);
}

// Flat profile (§8.5): a region's value is the ⊕ over the call paths calling it. In
// call_tree_test every region is called from exactly one call path (§12.2), so the region of
// d3 (cnode 17) has 12 exclusive visits and the root region 1.
TEST(FlatProfile, RegionSumsItsCallPaths) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report = Report::open(
      (shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex").string());
  MetricEngine engine(report);
  const Model& m = report.model();
  const Values regions = engine.region_values(*m.metric_by_uniq_name("visits"), Flavour::kInclusive,
                                              Flavour::kExclusive);
  EXPECT_EQ(regions.scalar(m.cnodes[*m.cnode_by_id(17)].region), 12);
  EXPECT_EQ(regions.scalar(m.cnodes[*m.cnode_by_id(0)].region), 1);
  double total = 0;
  for (size_t r = 0; r < regions.size(); ++r) total += regions.scalar(r);
  EXPECT_EQ(total, 72);  // all exclusive visits
}

}  // namespace
}  // namespace cubekit
