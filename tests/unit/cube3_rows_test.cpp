// format's Cube 3 writer (format/cube3_writer.hpp) takes its values from Cube3Rows alone; the
// report's call-exclusive rows are handed in by cubekit::write_cube3 above it. The rows given are
// the rows written (read back by the Cube 3 reader), a metric without data gets no <matrix>, and
// each metric's rows are released once, after they are written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "format/cube3_writer.hpp"
#include "test_support.hpp"
#include "unit/cube3_system_tree.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

// The value handed in for (call path c, thread l): exact in binary, distinct everywhere.
double planted(Index c, size_t l) {
  return 10.0 * double(c) + double(l) + 0.5;
}

TEST(Cube3Rows, TheDocumentHoldsTheRowsHandedIn) {
  test::TempDir dir("cube3-rows");
  const std::string path = (dir.path() / "rows.cube").string();
  Model model;
  test::add_metric(model, "time", "DOUBLE", MetricKind::kExclusive);
  test::add_metric(model, "visits", "UINT64", MetricKind::kExclusive);
  test::add_call_tree(model, {"main", "foo", "bar"}, {kNoIndex, 0, 0});
  test::add_two_processes(model);  // the system tree Cube 3 holds
  model.finalize(path);

  std::vector<double> row(2);
  std::vector<Index> released;
  format::Cube3Rows rows;
  rows.has_data = [](Index metric) { return metric == 0; };
  rows.row = [&](Index metric, Index cnode) {
    EXPECT_EQ(metric, 0u) << "a row asked for a metric without data";
    for (size_t l = 0; l < row.size(); ++l) row[l] = planted(cnode, l);
    return format::Cube3Row{reinterpret_cast<const std::byte*>(row.data()), row.size(),
                            sizeof(double)};
  };
  rows.done = [&](Index metric) { released.push_back(metric); };
  format::write_cube3_document(model, rows, path, false, true, {});

  EXPECT_EQ(released, std::vector<Index>{0});
  const std::string text = test::read_file(path);
  EXPECT_NE(text.find("<matrix metricId=\"0\">"), std::string::npos) << text;
  EXPECT_EQ(text.find("<matrix metricId=\"1\">"), std::string::npos) << text;
  const Report back = Report::open(path);
  EXPECT_FALSE(back.has_data(1));
  MetricEngine engine(back);
  for (Index c = 0; c < 3; ++c) {
    const Values v = engine.location_values(0, c, Flavour::kInclusive, Flavour::kExclusive);
    ASSERT_EQ(v.size(), 2u);
    for (size_t l = 0; l < 2; ++l) EXPECT_EQ(v.scalar(l), planted(c, l)) << c << " " << l;
  }
}

}  // namespace
}  // namespace cubekit
