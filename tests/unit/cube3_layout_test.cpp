// The Cube 3 text cube4to3 writes, against a text written by hand after CubeLib 4.6's layout (as
// its tests' templates show it: test19, test25, test28) and against CubeLib's own conversion of
// example3.cubex (test 8's template): indentation, metric numbering without gaps, every row,
// one value per line, values rounded to 6 significant digits; and the exact values
// `cube4to3 -x` writes, which read back bit for bit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/cube3_writer.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"
#include "test_support.hpp"
#include "unit/cube3_system_tree.hpp"
#include "unit/small_model.hpp"

namespace {

namespace fs = std::filesystem;
using cubekit::Flavour;
using cubekit::Index;
using cubekit::kNoIndex;
using cubekit::MetricKind;
using cubekit::Model;
using cubekit::test::read_file;
using cubekit::test::run_tool;
using cubekit::test::TempDir;

// A ghost metric first (id 0), then time (INCLUSIVE) with wait below it, then visits; call
// paths main → foo on two threads; attributes out of key order, a named 2-d topology whose
// coordinates are stored out of thread order.
std::shared_ptr<Model> small_report_model() {
  auto model = std::make_shared<Model>();
  model->attrs = {{"zeta", "1"}, {"alpha", "2"}};
  model->mirrors = {"http://example.org/"};
  model->metrics_title = "Metrics";
  model->program_title = "Calls";
  model->system_title = "Machines";
  cubekit::test::add_metric(*model, "ghost", "FLOAT", MetricKind::kExclusive).ghost = true;
  cubekit::test::add_metric(*model, "time", "FLOAT", MetricKind::kInclusive);
  cubekit::test::add_metric(*model, "wait", "FLOAT", MetricKind::kExclusive).parent = 1;
  model->metrics[1].children = {2};
  cubekit::test::add_metric(*model, "visits", "INTEGER", MetricKind::kExclusive);
  cubekit::test::add_call_tree(*model, {"main", "foo"}, {kNoIndex, 0});
  cubekit::test::add_two_processes(*model);
  cubekit::Topology topo;
  topo.name = "Topo1";
  topo.dims = {{"x", 2, true}, {"y", 1, false}};
  topo.add_coord(cubekit::Topology::Owner::kLocation, 1, std::vector<int64_t>{1, 0});
  topo.add_coord(cubekit::Topology::Owner::kLocation, 0, std::vector<int64_t>{0, 0});
  model->topologies = {topo};
  return model;
}

// Stored rows per metric and call path (two threads each): time inclusive 18.1 at main and 18
// at foo, so main's exclusive time is 18.1 - 18 = 0.10000000000000142; wait all zero; visits
// 1, 2 at main and 0, 0 at foo.
void write_small_report(const std::string& path) {
  auto model = small_report_model();
  model->finalize(path);
  cubekit::WriteOptions options;
  options.skip_identity_rows = false;
  cubekit::ReportWriter writer(path, model, options);
  const double ghost[2][2] = {{7, 7}, {7, 7}}, time[2][2] = {{18.1, 18.1}, {18, 18}},
               wait[2][2] = {{0, 0}, {0, 0}};
  const int64_t visits[2][2] = {{1, 2}, {0, 0}};
  const void* rows[4] = {ghost, time, wait, visits};
  for (Index m = 0; m < 4; ++m) {
    writer.begin_metric(m);
    const size_t row_bytes = 2 * 8;
    for (Index c : cubekit::storage_order(*model, model->metrics[m].kind))
      writer.write_row(c, static_cast<const std::byte*>(rows[m]) + c * row_bytes);
    writer.end_metric();
  }
  writer.finish();
}

std::string metric_text(const std::string& indent, const char* id, const char* name,
                        const char* dtype) {
  return indent + "<metric id=\"" + id + "\">\n" + indent + "  <disp_name>" + name +
         "</disp_name>\n" + indent + "  <uniq_name>" + name + "</uniq_name>\n" + indent +
         "  <dtype>" + dtype + "</dtype>\n" + indent + "  <uom></uom>\n" + indent +
         "  <url></url>\n" + indent + "  <descr></descr>\n";
}

std::string region_text(const char* id, const char* name) {
  return std::string("    <region id=\"") + id + "\" mod=\"\" begin=\"-1\" end=\"-1\">\n" +
         "      <name>" + name + "</name>\n      <url></url>\n      <descr></descr>\n" +
         "    </region>\n";
}

std::string process_text(const char* id) {
  return std::string("        <process Id=\"") + id + "\">\n          <name>p" + id +
         "</name>\n          <rank>" + id + "</rank>\n          <thread Id=\"" + id +
         "\">\n            <name>t" + id +
         "</name>\n            <rank>0</rank>\n          </thread>\n        </process>\n";
}

std::string matrix_text(const char* id, const char* main_row, const char* foo_row) {
  return std::string("<matrix metricId=\"") + id + "\">\n<row cnodeId=\"0\">\n" + main_row +
         "</row>\n<row cnodeId=\"1\">\n" + foo_row + "</row>\n</matrix>\n";
}

// CubeLib's layout of the small report, written out by hand.
std::string expected_cube3_text() {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"3.0\">\n"
         "  <attr key=\"alpha\" value=\"2\"/>\n  <attr key=\"zeta\" value=\"1\"/>\n"
         "  <doc>\n    <mirrors>\n      <murl>http://example.org/</murl>\n    </mirrors>\n"
         "  </doc>\n  <metrics title=\"Metrics\">\n" +
         metric_text("    ", "0", "time", "FLOAT") + metric_text("      ", "1", "wait", "FLOAT") +
         "      </metric>\n    </metric>\n" + metric_text("    ", "2", "visits", "INTEGER") +
         "    </metric>\n  </metrics>\n  <program title=\"Calls\">\n" + region_text("0", "main") +
         region_text("1", "foo") +
         "    <cnode id=\"0\" calleeId=\"0\">\n      <cnode id=\"1\" calleeId=\"1\">\n"
         "      </cnode>\n    </cnode>\n  </program>\n  <system title=\"Machines\">\n"
         "    <machine Id=\"0\">\n      <name>m</name>\n      <node Id=\"1\">\n"
         "        <name>n</name>\n" +
         process_text("0") + process_text("1") +
         "      </node>\n    </machine>\n    <topologies>\n"
         "      <cart name=\"Topo1\"  ndims=\"2\">\n"
         "        <dim name=\"x\" size=\"2\" periodic=\"true\"/>\n"
         "        <dim name=\"y\" size=\"1\" periodic=\"false\"/>\n"
         "        <coord thrdId=\"0\">0 0</coord>\n        <coord thrdId=\"1\">1 0</coord>\n"
         "      </cart>\n    </topologies>\n  </system>\n<severity>\n" +
         matrix_text("0", "0.1\n0.1\n", "18\n18\n") + matrix_text("1", "0\n0\n", "0\n0\n") +
         matrix_text("2", "1\n2\n", "0\n0\n") + "</severity>\n</cube>\n";
}

double exclusive_time_at_main(const std::string& path) {
  const cubekit::Report r = cubekit::Report::open(path);
  const Index time = *r.model().metric_by_uniq_name("time");
  const auto v =
      cubekit::MetricEngine(r).location_values(time, 0, Flavour::kInclusive, Flavour::kExclusive);
  double first;
  std::memcpy(&first, v.at(0), sizeof first);
  return first;
}

TEST(Cube3Layout, TextIsCubeLibsLayout) {
  TempDir dir("c3layout");
  const std::string cubex = (dir.path() / "small.cubex").string();
  write_small_report(cubex);
  const std::string cube = (dir.path() / "small.cube").string();
  std::vector<std::string> notes;
  cubekit::write_cube3(cubekit::Report::open(cubex), cube, {},
                       [&](const std::string& note) { notes.push_back(note); });
  EXPECT_EQ(cubekit::test::first_difference(read_file(cube), expected_cube3_text()), "");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("metric 'ghost' left out"), std::string::npos) << notes[0];
}

TEST(Cube3Layout, DefaultValuesAreRoundedAsCubeLibRoundsThem) {
  TempDir dir("c3layout");
  const std::string cubex = (dir.path() / "small.cubex").string();
  write_small_report(cubex);
  const double exact = 18.1 - 18.0;
  ASSERT_EQ(exclusive_time_at_main(cubex), exact);
  ASSERT_NE(exact, 0.1);
  const auto r = run_tool("cube4to3", {"-o", (dir.path() / "rounded.cube").string(), cubex});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Written as "0.1", so the document holds 0.1, not 18.1 - 18.
  EXPECT_EQ(exclusive_time_at_main((dir.path() / "rounded.cube").string()), 0.1);
}

TEST(Cube3Layout, ExactValuesRoundTripThroughCube3to4) {
  TempDir dir("c3layout");
  const std::string cubex = (dir.path() / "small.cubex").string();
  write_small_report(cubex);
  const fs::path cube = dir.path() / "exact.cube";
  auto r = run_tool("cube4to3", {"-x", "-o", cube.string(), cubex});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(cube).find("<row cnodeId=\"0\">\n0.10000000000000142\n0.10000000000000142\n"),
            std::string::npos);
  r = run_tool("cube3to4", {"-o", (dir.path() / "back").string(), cube.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(exclusive_time_at_main((dir.path() / "back.cubex").string()), 18.1 - 18.0);
}

// CubeLib's cube_canonize and cube_part write a copy of the input made by CubeLib's Cube copy,
// which takes no tree titles: test 19's template (cube4to3 of a canonized example3.cubex) has
// none, test 8's (cube4to3 of example3.cubex itself) has all three.
TEST(Cube3Layout, CanonizeAndPartDropTheTreeTitles) {
  TempDir dir("c3layout");
  const std::string cubex = (dir.path() / "small.cubex").string();
  write_small_report(cubex);
  ASSERT_EQ(cubekit::Report::open(cubex).model().metrics_title, "Metrics");
  const std::string canonized = (dir.path() / "canonized").string();
  auto r = run_tool("cube_canonize", {cubex, canonized});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string part = (dir.path() / "part").string();
  r = run_tool("cube_part", {"-R", "0", "-o", part, cubex});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& copy : {canonized, part}) {
    const cubekit::Report report = cubekit::Report::open(copy + ".cubex");
    EXPECT_EQ(report.model().metrics_title, "") << copy;
    EXPECT_EQ(report.model().program_title, "") << copy;
    EXPECT_EQ(report.model().system_title, "") << copy;
  }
}

// MAXDOUBLE values: 12 significant digits, as CubeLib prints them; its identity (-DBL_MAX, a
// call path without data) exactly, since 12 digits of it would not read back.
TEST(Cube3Layout, MaxDoubleValuesHaveTwelveDigitsAndTheirIdentityReadsBack) {
  TempDir dir("c3layout");
  const std::string cubex = (dir.path() / "max.cubex").string();
  auto model = std::make_shared<Model>();
  cubekit::test::add_metric(*model, "max_time", "MAXDOUBLE", MetricKind::kExclusive);
  cubekit::test::add_call_tree(*model, {"main", "foo"}, {kNoIndex, 0});
  cubekit::test::add_two_processes(*model);
  const double lowest = -std::numeric_limits<double>::max();
  const double rows[2][2] = {{1.23456789012345, 2.5}, {lowest, lowest}};
  model->finalize(cubex);
  cubekit::ReportWriter writer(cubex, model);  // the identity row is left out, as no data
  writer.begin_metric(0);
  for (Index c : cubekit::storage_order(*model, MetricKind::kExclusive))
    writer.write_row(c, reinterpret_cast<const std::byte*>(rows[c]));
  writer.end_metric();
  writer.finish();
  const std::string cube = (dir.path() / "max.cube").string();
  cubekit::write_cube3(cubekit::Report::open(cubex), cube);
  EXPECT_NE(read_file(cube).find(matrix_text("0", "1.23456789012\n2.5\n",
                                             "-1.7976931348623157e+308\n"
                                             "-1.7976931348623157e+308\n")),
            std::string::npos)
      << read_file(cube);
  const cubekit::Report back = cubekit::Report::open(cube);
  const auto v =
      cubekit::MetricEngine(back).location_values(0, 1, Flavour::kInclusive, Flavour::kExclusive);
  double first;
  std::memcpy(&first, v.at(0), sizeof first);
  EXPECT_EQ(first, lowest);
}

// The report CubeLib's tests read (tests/cubelib_suite/make_example3.cpp) converted by
// cube4to3 is CubeLib's conversion of it, test 8's template, byte for byte (titles, all-zero
// rows and 6-digit values such as 0.1 for 18.1 - 18 included), but for one attribute the
// template has and the report does not.
TEST(Cube3Layout, Example3ConvertsToTest8sTemplate) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c3layout");
  const fs::path cubex = dir.path() / "example3.cubex", cube = dir.path() / "example3.cube";
  const std::string make = std::string(CUBEKIT_MAKE_EXAMPLE3) + " '" + cubex.string() + "'";
  ASSERT_EQ(std::system(make.c_str()), 0) << make;
  const auto r = run_tool("cube4to3", {"-o", cube.string(), cubex.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected =
      read_file(cubekit::test::shared_dir() / "data/cubelib-test/test8/template.cube");
  const std::string extra = "  <attr key=\"Cube syntax version\" value=\"3\"/>\n";
  const size_t at = expected.find(extra);
  ASSERT_NE(at, std::string::npos);
  expected.erase(at, extra.size());
  EXPECT_EQ(cubekit::test::first_difference(read_file(cube), expected), "");
}

TEST(Cube3Layout, HelpNamesTheExactOption) {
  const auto r = run_tool("cube4to3", {"-h"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("  -x     Exact values"), std::string::npos) << r.err;
}

}  // namespace
