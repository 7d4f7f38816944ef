// The flat profile (cube_dump -r) where CubeLib has no value, and its csv, csv2 and gnuplot
// layouts. Where nothing adds to a value (a region no call path calls, the "Subroutines" of a
// region without call paths of other regions below it) CubeLib prints "0." for MINDOUBLE /
// MAXDOUBLE (types it keeps as value objects), neither the empty maximum's "-" nor a 0's "0";
// for DOUBLE and the integers it has their 0 except with all locations at once. Expected texts:
// what CubeLib 4.6's cube_dump (built on this project's machine, /work/ref/unity/bin/cube_dump)
// printed for the commands named, on real profiles under ../shared/data/real (the oracle steps
// dump_r and dump_r_2m_aggr cover -r without -t and -t aggr of time and visits only).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"

using cubekit::test::run_tool;
using cubekit::test::shared_dir;

namespace {

class DumpFlatProfile : public ::testing::Test {
 protected:
  void SetUp() override { CUBEKIT_REQUIRE_SHARED(); }
  static std::string dump(
      std::vector<std::string> args,
      const std::string& report = "extrap/single_parameter/mm.x10y1z1.r1.cubex") {
    args.push_back((shared_dir() / "data/real" / report).string());
    const auto r = run_tool("cube_dump", args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
};

// cube_dump -m max_time -r -t aggr mm.x10y1z1.r1.cubex
TEST_F(DumpFlatProfile, AggregatedMaxDouble) {
  EXPECT_EQ(dump({"-m", "max_time", "-r", "-t", "aggr"}),
            "\n"
            "\n"
            " =============== FLAT PROFILE ============= \n"
            "Print out the data of the metric max_time\n"
            "\n"
            "                         All threads\n"
            "-------------------------------------------------------------------------------\n"
            "MEASUREMENT OFF(id=0)    0.\n"
            "   Subroutines           0.\n"
            "TRACE BUFFER FLUSH(id=1) 0.\n"
            "   Subroutines           0.\n"
            "THREADS(id=2)            0.\n"
            "   Subroutines           0.\n"
            "main(id=3)               1.7147e-05\n"
            "   Subroutines           2.334e-06\n"
            "init_mat(id=4)           2.334e-06\n"
            "   Subroutines           0.\n"
            "zero_mat(id=5)           1.071e-06\n"
            "   Subroutines           0.\n"
            "mat_mul(id=6)            1.069e-06\n"
            "   Subroutines           0.\n");
}

// cube_dump -m min_time,max_time -r -s csv2 -t aggr mm.x10y1z1.r1.cubex
TEST_F(DumpFlatProfile, Csv2MinAndMaxDouble) {
  EXPECT_EQ(dump({"-m", "min_time,max_time", "-r", "-s", "csv2", "-t", "aggr"}),
            "Region ID,max_time,Subroutines,min_time,Subroutines\n"
            "0,0.,0.,0.,0.\n"
            "1,0.,0.,0.,0.\n"
            "2,0.,0.,0.,0.\n"
            "3,1.7147e-05,2.334e-06,1.7147e-05,1.006e-06\n"
            "4,2.334e-06,0.,1.006e-06,0.\n"
            "5,1.071e-06,0.,1.071e-06,0.\n"
            "6,1.069e-06,0.,1.069e-06,0.\n");
}

// cube_dump -m min_time -r -t 0 mm.x10y1z1.r1.cubex
TEST_F(DumpFlatProfile, ChosenLocationMinDouble) {
  EXPECT_EQ(dump({"-m", "min_time", "-r", "-t", "0"}),
            "\n"
            "\n"
            " =============== FLAT PROFILE ============= \n"
            "Print out the data of the metric min_time\n"
            "\n"
            "                         Master thread                      \n"
            "-------------------------------------------------------------------------------\n"
            "MEASUREMENT OFF(id=0)    0.                       \n"
            "   Subroutines           0.                       \n"
            "TRACE BUFFER FLUSH(id=1) 0.                       \n"
            "   Subroutines           0.                       \n"
            "THREADS(id=2)            0.                       \n"
            "   Subroutines           0.                       \n"
            "main(id=3)               1.7147e-05               \n"
            "   Subroutines           1.006e-06                \n"
            "init_mat(id=4)           1.006e-06                \n"
            "   Subroutines           0.                       \n"
            "zero_mat(id=5)           1.071e-06                \n"
            "   Subroutines           0.                       \n"
            "mat_mul(id=6)            1.069e-06                \n"
            "   Subroutines           0.                       \n");
}

// cube_dump -m time -r -t 0 mm.x10y1z1.r1.cubex: DOUBLE's 0 where nothing adds.
TEST_F(DumpFlatProfile, ChosenLocationDoubleHasZero) {
  EXPECT_EQ(dump({"-m", "time", "-r", "-t", "0"}),
            "\n"
            "\n"
            " =============== FLAT PROFILE ============= \n"
            "Print out the data of the metric time\n"
            "\n"
            "                         Master thread                      \n"
            "-------------------------------------------------------------------------------\n"
            "MEASUREMENT OFF(id=0)    0                        \n"
            "   Subroutines           0                        \n"
            "TRACE BUFFER FLUSH(id=1) 0                        \n"
            "   Subroutines           0                        \n"
            "THREADS(id=2)            0                        \n"
            "   Subroutines           0                        \n"
            "main(id=3)               1.1667e-05               \n"
            "   Subroutines           5.48e-06                 \n"
            "init_mat(id=4)           3.34e-06                 \n"
            "   Subroutines           0                        \n"
            "zero_mat(id=5)           1.071e-06                \n"
            "   Subroutines           0                        \n"
            "mat_mul(id=6)            1.069e-06                \n"
            "   Subroutines           0                        \n");
}

// cube_dump -m max_time -r -s gnuplot mm.x10y1z1.r1.cubex (all locations: one here)
TEST_F(DumpFlatProfile, GnuplotPerLocationMaxDouble) {
  EXPECT_EQ(dump({"-m", "max_time", "-r", "-s", "gnuplot"}),
            "\n"
            "\n"
            "# ===================== FLAT PROFILE  =================== \n"
            "# Print out the data of the metric max_time\n"
            "\n"
            "\n"
            "#MEASUREMENT OFF(id=0)   Subroutines \n"
            "0\t0\t0.\t0.\n"
            "\n"
            "#TRACE BUFFER FLUSH(id=1)   Subroutines \n"
            "1\t0\t0.\t0.\n"
            "\n"
            "#THREADS(id=2)   Subroutines \n"
            "2\t0\t0.\t0.\n"
            "\n"
            "#main(id=3)   Subroutines \n"
            "3\t0\t1.7147e-05\t2.334e-06\n"
            "\n"
            "#init_mat(id=4)   Subroutines \n"
            "4\t0\t2.334e-06\t0.\n"
            "\n"
            "#zero_mat(id=5)   Subroutines \n"
            "5\t0\t1.071e-06\t0.\n"
            "\n"
            "#mat_mul(id=6)   Subroutines \n"
            "6\t0\t1.069e-06\t0.\n"
            "\n");
}

// cube_dump -m max_time,time -r -s csv2 mm.x10y1z1.r1.cubex: csv2 queries each location on its
// own, so DOUBLE has its 0 even without -t.
TEST_F(DumpFlatProfile, Csv2PerLocation) {
  EXPECT_EQ(dump({"-m", "max_time,time", "-r", "-s", "csv2"}),
            "Region ID, Thread ID,time,Subroutines,max_time,Subroutines\n"
            "0,0,0,0,0.,0.\n"
            "1,0,0,0,0.,0.\n"
            "2,0,0,0,0.,0.\n"
            "3,0,1.1667e-05,5.48e-06,1.7147e-05,2.334e-06\n"
            "4,0,3.34e-06,0,2.334e-06,0.\n"
            "5,0,1.071e-06,0,1.071e-06,0.\n"
            "6,0,1.069e-06,0,1.069e-06,0.\n");
}

// cube_dump -m max_time -r -s csv -t aggr mm.x10y1z1.r1.cubex
TEST_F(DumpFlatProfile, CsvAggregatedMaxDouble) {
  std::string expected;
  for (const char* row : {"0,0.,0.", "1,0.,0.", "2,0.,0.", "3,1.7147e-05,2.334e-06",
                          "4,2.334e-06,0.", "5,1.071e-06,0.", "6,1.069e-06,0."})
    expected += std::string("\n\n") + row + "\n";
  EXPECT_EQ(dump({"-m", "max_time", "-r", "-s", "csv", "-t", "aggr"}), expected + "\n");
}

// cube_dump -m time -r -s csv -t 1,3 extrap/simple_threaded/cube-example1.cubex: a row per
// chosen location, by location id.
TEST_F(DumpFlatProfile, CsvChosenLocations) {
  EXPECT_EQ(dump({"-m", "time", "-r", "-s", "csv", "-t", "1,3"},
                 "extrap/simple_threaded/cube-example1.cubex"),
            "\n\n0,1,0,3.2\n0,3,0,3.1\n"
            "\n\n1,1,0,0\n1,3,0,0\n"
            "\n\n2,1,0,0\n2,3,0,0\n"
            "\n\n3,1,3.2,0\n3,3,3.1,0\n"
            "\n\n4,1,0,0\n4,3,0,0\n"
            "\n");
}

// cube_dump -m mpi_collective -r -s csv2 -t 22,23 cubelib/examples/summary.cubex, its first
// rows: CubeLib adds a region's subroutine call paths breadth first from the region's own; in
// document order the two sums end in ...714 and ...322.
TEST_F(DumpFlatProfile, SubroutinesAddedInCubeLibsOrder) {
  const std::string out = dump({"-m", "mpi_collective", "-r", "-s", "csv2", "-t", "22,23"},
                               "cubelib/examples/summary.cubex");
  const std::string expected_head =
      "Region ID, Thread ID,mpi_collective,Subroutines\n"
      "0,22,0,0.00464715\n"
      "0,23,0,0.00653323\n";
  EXPECT_EQ(out.substr(0, expected_head.size()), expected_head);
}

// cube_dump -m imbalance -r -x excl -t aggr -s csv2 cubelib/examples/summary.cubex, its rows
// of regions 0, 15 and 16: CubeLib subtracts the sub-metrics' flat profiles from the metric's
// region by region, which decides the rounding residues (subtracting per call path first gave
// 7.14479e-15 for region 0's subroutines where CubeLib has 0).
TEST_F(DumpFlatProfile, MetricExclusiveSubtractedPerRegion) {
  const std::string out = dump({"-m", "imbalance", "-r", "-x", "excl", "-t", "aggr", "-s", "csv2"},
                               "cubelib/examples/summary.cubex");
  for (const std::string row :
       {"\n0,7.09133e-15,0\n", "\n15,-1.77636e-15,1.42109e-14\n", "\n16,1.77636e-15,8.88178e-16\n"})
    EXPECT_NE(out.find(row), std::string::npos) << row << " not in\n" << out;
}

// cube_dump -m mpi_communication -r -x excl -t 0 -s csv2 cubelib/examples/summary.cubex, its
// first row: the same per location.
TEST_F(DumpFlatProfile, MetricExclusiveSubtractedPerRegionAndLocation) {
  const std::string out =
      dump({"-m", "mpi_communication", "-r", "-x", "excl", "-t", "0", "-s", "csv2"},
           "cubelib/examples/summary.cubex");
  const std::string expected_head =
      "Region ID, Thread ID,mpi_communication,Subroutines\n"
      "0,0,7.74608e-16,6.12357e-16\n";
  EXPECT_EQ(out.substr(0, expected_head.size()), expected_head);
}

}  // namespace
