// The order in which cube_info adds up a column's value (docs/compatibility.md, "cube_info -x"):
// CubeLib's tools library (AggrCube::get_vcsev, called by AggregatedMetric::compute for every
// column and abridging rule) sums the system before the call tree. For a call path and a
// machine it adds the call-exclusive values of each node's locations (from 0, location after
// location), then the node sums (from 0, node after node); the inclusive value at the machine
// is that sum plus each child's inclusive value at the machine (children by id); the machines
// are added last. A chosen process adds its own locations the same way. These tests compute
// the expected numbers in that order by hand, on a report whose values give other doubles
// when each location's inclusive value is summed first, and check that the -x cut-off, which
// one ulp of the parent's value decides here, follows.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cubekit/info_tree.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

constexpr size_t kCallees = 16;

// Exclusive time of main (row 0) and its 16 callees (rows 1…16) at the four threads: node n0
// holds process 0 (threads 0, 1), node n1 process 1 (threads 2, 3). Chosen (by a search over
// one-decimal values) so that the two summation orders round main's inclusive value apart.
const double kTime[kCallees + 1][4] = {
    {8.8, 9.9, 2.6, 0.8}, {1.0, 5.0, 7.1, 4.5}, {2.3, 4.2, 6.2, 6.7}, {7.5, 8.5, 6.6, 1.2},
    {8.4, 2.9, 5.7, 3.7}, {7.4, 2.0, 2.5, 2.5}, {1.5, 8.8, 5.8, 3.3}, {4.0, 9.9, 5.1, 2.3},
    {8.1, 6.5, 9.9, 1.0}, {4.7, 8.2, 8.4, 9.1}, {0.4, 2.9, 1.2, 1.9}, {9.7, 5.8, 9.3, 3.7},
    {8.7, 4.5, 2.6, 7.8}, {9.5, 1.1, 6.0, 6.2}, {2.2, 3.7, 1.4, 2.0}, {2.5, 6.0, 6.5, 2.0},
    {0.1, 3.3, 6.8, 1.9}};

std::string cube3_report() {
  std::string xml =
      "<?xml version=\"1.0\"?>\n<cube version=\"3.0\"><metrics><metric id=\"0\">"
      "<disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype>"
      "<uom>sec</uom></metric></metrics><program>";
  for (size_t r = 0; r <= kCallees; ++r)
    xml += "<region id=\"" + std::to_string(r) + "\" mod=\"m.c\" begin=\"1\" end=\"2\"><name>" +
           (r == 0 ? std::string("main") : "f" + std::to_string(r)) + "</name></region>";
  xml += "<cnode id=\"0\" calleeId=\"0\">";
  for (size_t c = 1; c <= kCallees; ++c)
    xml += "<cnode id=\"" + std::to_string(c) + "\" calleeId=\"" + std::to_string(c) + "\"/>";
  xml += "</cnode></program><system><machine Id=\"0\"><name>m</name>";
  for (int n = 0; n < 2; ++n)
    xml += "<node Id=\"" + std::to_string(n) + "\"><name>n" + std::to_string(n) +
           "</name><process Id=\"" + std::to_string(n) + "\"><rank>" + std::to_string(n) +
           "</rank><thread Id=\"" + std::to_string(2 * n) + "\"><rank>0</rank></thread>" +
           "<thread Id=\"" + std::to_string(2 * n + 1) + "\"><rank>1</rank></thread>" +
           "</process></node>";
  xml += "</machine></system><severity><matrix metricId=\"0\">";
  char number[32];
  for (size_t c = 0; c <= kCallees; ++c) {
    xml += "<row cnodeId=\"" + std::to_string(c) + "\">";
    for (double v : kTime[c]) {
      std::snprintf(number, sizeof number, "%.1f ", v);
      xml += number;
    }
    xml += "</row>";
  }
  return xml + "</matrix></severity></cube>\n";
}

// CubeLib's order: per call path, node sums of their threads, added into the machine's sum.
double machine_sum(size_t cnode) {
  double n0 = 0, n1 = 0, machine = 0;
  n0 += kTime[cnode][0];
  n0 += kTime[cnode][1];
  n1 += kTime[cnode][2];
  n1 += kTime[cnode][3];
  machine += n0;
  machine += n1;
  return machine;
}

double main_inclusive_in_cubelib_order() {
  double at_machine = machine_sum(0);
  for (size_t c = 1; c <= kCallees; ++c) at_machine += machine_sum(c);
  double total = 0;
  total += at_machine;  // the only machine
  return total;
}

// The other order: each thread's inclusive value first, then the threads.
double main_inclusive_thread_by_thread() {
  double total = 0;
  for (size_t l = 0; l < 4; ++l) {
    double inclusive = kTime[0][l];
    for (size_t c = 1; c <= kCallees; ++c) inclusive += kTime[c][l];
    total += inclusive;
  }
  return total;
}

// cube_info -x's rule with the parent's value v for every child (docs/compatibility.md).
size_t callees_kept(double v) {
  double total = 0, cumulative = 0;
  for (size_t i = 0; i < kCallees; ++i) total += v;
  size_t kept = 0;
  while (cumulative < 0.5 * total && kept < kCallees) {
    cumulative += v;
    ++kept;
  }
  return kept;
}

TEST(InfoSumOrder, ColumnValueAddsTheSystemBeforeTheCallTree) {
  const test::TempDir dir("info-order");
  const Report report = Report::open(dir.write("two_nodes.cube", cube3_report()));
  MetricEngine engine(report);
  const double expected = main_inclusive_in_cubelib_order();
  ASSERT_NE(expected, main_inclusive_thread_by_thread());  // the inputs tell the orders apart
  const InfoColumn all = info_metric_column(report.model(), "time");
  EXPECT_EQ(info_column_value(engine, all, 0), expected);

  // Process 1 alone: its threads' values added per call path, then the call tree.
  double process1 = 0;
  for (size_t c = 0; c <= kCallees; ++c) {
    double threads = 0;
    threads += kTime[c][2];
    threads += kTime[c][3];
    process1 += threads;
  }
  EXPECT_EQ(info_column_value(engine, info_metric_column(report.model(), "time:incl:1"), 0),
            process1);
  // Exclusive: the system only.
  EXPECT_EQ(info_column_value(engine, info_metric_column(report.model(), "time:excl"), 0),
            machine_sum(0));
}

TEST(InfoSumOrder, CumulativeCutOffFollowsTheParentsLastBit) {
  const test::TempDir dir("info-order");
  const std::string path = dir.write("two_nodes.cube", cube3_report());
  const size_t kept = callees_kept(main_inclusive_in_cubelib_order());
  ASSERT_NE(kept, callees_kept(main_inclusive_thread_by_thread()));  // one ulp decides here
  const auto r = test::run_tool("cube_info", {"-x", "time,0.5", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line =
      "***** Aggregated " + std::to_string(kCallees - kept) + " siblings (+0 children) within main";
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cubekit
