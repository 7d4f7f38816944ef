// cube_dump options beyond the four oracle commands, on call_tree_test.cubex whose values are
// worked out by hand in cube-format.md §12 (visits rows in pre-order: 1 1 1 1 2 3 2 2 4 6 3 3 6
// 9 4 4 8 12 for cnodes 0..17; one location).
#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::run_tool;
using cubekit::test::shared_dir;

namespace {

class DumpOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    CUBEKIT_REQUIRE_SHARED();
    report_ = (shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex").string();
  }
  cubekit::test::RunResult dump(std::vector<std::string> args) {
    args.push_back(report_);
    return run_tool("cube_dump", args);
  }
  std::string report_;
};

TEST_F(DumpOptions, MetricListIsPrintedLastToFirst) {
  const auto r = dump({"-m", "visits,time", "-c", "0", "-t", "aggr"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.out.find("metric time"), r.out.find("metric visits"));
}

TEST_F(DumpOptions, LeafSelectionWithExclusiveVisits) {
  const auto r = dump({"-m", "visits", "-c", "leafs", "-t", "aggr", "-s", "csv2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Cnode ID,visits\n3,1\n4,2\n5,3\n7,2\n8,4\n9,6\n11,3\n12,6\n13,9\n15,4\n16,8\n17,12\n");
}

TEST_F(DumpOptions, RootsLevelsAndRanges) {
  EXPECT_EQ(dump({"-m", "visits", "-c", "roots", "-z", "incl", "-t", "aggr", "-s", "csv2"}).out,
            "Cnode ID,visits\n0,72\n");
  // Level 2 are a, b, c, d (ids 2, 6, 10, 14): inclusive visits 7, 14, 21, 28.
  EXPECT_EQ(dump({"-m", "visits", "-c", "level=2", "-z", "incl", "-t", "aggr", "-s", "csv2"}).out,
            "Cnode ID,visits\n2,7\n6,14\n10,21\n14,28\n");
  EXPECT_EQ(dump({"-m", "visits", "-c", "level<1", "-t", "aggr", "-s", "csv2"}).out,
            "Cnode ID,visits\n0,1\n");
  // Ids in the order given, ranges expanded.
  EXPECT_EQ(dump({"-m", "visits", "-c", "17,3-5", "-t", "aggr", "-s", "csv2"}).out,
            "Cnode ID,visits\n17,12\n3,1\n4,2\n5,3\n");
}

TEST_F(DumpOptions, NameRegexSelectsByRegionName) {
  // Regions d1, d2, d3 start with "d"; region d itself was renamed "double" (§12).
  EXPECT_EQ(dump({"-m", "visits", "-c", "name=/^d/", "-t", "aggr", "-s", "csv2"}).out,
            "Cnode ID,visits\n14,4\n15,4\n16,8\n17,12\n");
}

TEST_F(DumpOptions, PerLocationAndStoredValues) {
  // time is stored inclusive: -z stored shows the stored (inclusive) value of main.
  const auto stored = dump({"-m", "time", "-c", "1", "-z", "stored", "-s", "csv2"});
  EXPECT_EQ(stored.out, "Cnode ID, Thread ID,time\n1,0,74.05\n");
  const auto excl = dump({"-m", "time", "-c", "1", "-t", "0", "-s", "csv2"});
  EXPECT_EQ(excl.out, "Cnode ID, Thread ID,time\n1,0,0.000127525\n");
}

TEST_F(DumpOptions, FlatProfileSumsCallPathsOfARegion) {
  const auto r = dump({"-m", "visits", "-r", "-t", "aggr", "-s", "csv2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Region of cnode 17 (d3) is called once: 12 visits, no callees.
  EXPECT_NE(r.out.find(",12,0\n"), std::string::npos) << r.out;
}

TEST_F(DumpOptions, CsvAndGnuplotLayouts) {
  EXPECT_EQ(dump({"-m", "visits", "-c", "3", "-t", "aggr", "-s", "csv"}).out, "\n\n3,1\n\n");
  EXPECT_EQ(dump({"-m", "visits", "-c", "3", "-t", "aggr", "-s", "gnuplot"}).out,
            "\n\n# ===================== DATA =================== \n"
            "# Print out the data of the metric visits\n\n\n#a1(id=3)\n3\t1\n\n");
}

TEST_F(DumpOptions, OutputFileAndSections) {
  const fs::path out = fs::temp_directory_path() / "cubekit-dump-o.txt";
  const auto r = dump({"-w", "mirrors", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(cubekit::test::read_file(out).rfind(" =============== CUBE MIRRORS", 0), 0u);
  fs::remove(out);
}

TEST_F(DumpOptions, ShowsMiscMemberContent) {
  const auto r = dump({"-w", "files", "-f", "remapping.spec"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Content of the file \"remapping.spec\""), std::string::npos);
  EXPECT_GT(r.out.size(), 100000u);  // the member is 111364 bytes (§12.1)
}

TEST_F(DumpOptions, ErrorsExitWithOne) {
  auto r = dump({"-m", "no_such_metric"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no_such_metric"), std::string::npos);
  r = dump({"-z", "sideways", "-m", "visits"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Wrong arguments"), std::string::npos);
  r = run_tool("cube_dump", {"-m", "all", "/nonexistent/x.cubex"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/x.cubex"), std::string::npos);
  r = run_tool("cube_dump", {});
  EXPECT_EQ(r.exit_code, 1);
}

// -w takes the next word only when it names a section (CubeLib's cube_dump); otherwise the word
// is the report. An attached word that names none (-wxyz) is refused: CubeLib re-reads it for
// ever.
TEST_F(DumpOptions, StructureOptionTakesOnlyASectionName) {
  auto r = run_tool("cube_dump", {"-w", report_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" =============== CUBE MIRRORS"), std::string::npos);
  EXPECT_NE(r.out.find("FILES"), std::string::npos) << "all sections, not only one";
  r = dump({"-wmirrors"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(" =============== CUBE MIRRORS", 0), 0u);
  r = dump({"-wxyz"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Error: Wrong arguments."), std::string::npos);
}

TEST_F(DumpOptions, CubekitDispatchesSubcommands) {
  auto r =
      run_tool("cubekit", {"dump", "-m", "visits", "-c", "3", "-t", "aggr", "-s", "csv2", report_});
  EXPECT_EQ(r.out, "Cnode ID,visits\n3,1\n");
  r = run_tool("cubekit", {"frobnicate"});
  EXPECT_EQ(r.exit_code, 1);
}

TEST_F(DumpOptions, CubePLExpressionBecomesNewMetric) {
  // Exclusive visits of cnodes 0..5 (see the top of this file), as a POSTDERIVED DOUBLE.
  const auto r = dump({"-m", "metric::visits(e)", "-c", "0-5", "-t", "aggr", "-s", "csv2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Cnode ID,New Metric1\n0,1\n1,1\n2,1\n3,1\n4,2\n5,3\n");
  // Inclusive call-tree flavour does not change an explicit (e).
  EXPECT_EQ(
      dump({"-m", "metric::visits(e)", "-c", "5", "-z", "incl", "-t", "aggr", "-s", "csv2"}).out,
      "Cnode ID,New Metric1\n5,3\n");
  // Numbered in the order the list is processed: last to first.
  EXPECT_EQ(dump({"-m", "visits,metric::visits()+1,metric::visits()*2", "-c", "5", "-t", "aggr",
                  "-s", "csv2"})
                .out,
            "Cnode ID,New Metric1,New Metric2,visits\n5,6,4,3\n");
}

TEST_F(DumpOptions, NamedCubePLExpression) {
  // main (id 1) is visited once; its inclusive time is 74.05 (stored inclusive, see above).
  const auto r = dump(
      {"-m", "ratio:metric::time(i)/metric::visits(e)", "-c", "1,5", "-t", "aggr", "-s", "csv2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto time = dump({"-m", "time", "-c", "5", "-z", "incl", "-t", "aggr", "-s", "csv2"});
  // Cnode 5 has 3 exclusive visits: the ratio is a third of its inclusive time.
  const double t5 = std::stod(time.out.substr(time.out.rfind(',') + 1));
  const std::string out = r.out;
  ASSERT_EQ(out.rfind("Cnode ID,ratio\n1,74.05\n5,", 0), 0u) << out;
  EXPECT_NEAR(std::stod(out.substr(out.rfind(',') + 1)), t5 / 3, 1e-5 * t5) << out;
}

TEST_F(DumpOptions, InvalidExpressionIsAnErrorWithItsPosition) {
  const auto r = dump({"-m", "metric::time(i", "-t", "aggr"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("1:15: expected"), std::string::npos) << r.err;
}

}  // namespace
