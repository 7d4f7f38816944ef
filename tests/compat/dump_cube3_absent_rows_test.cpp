// A call path without a <row> in a Cube 3 document holds 0 in CubeLib, also for MAXDOUBLE and
// MINDOUBLE metrics, whose identity (∓DBL_MAX, printed "-") is not 0: cube_dump prints 0 there,
// inclusive values take that 0 into their maximum / minimum, and so does a metric without any
// <matrix>. The expected texts below are derived by hand from the document; the original
// CubeLib 4.6 cube_dump (built outside the repository, 2026-11-27) printed the same for each
// form run here on this document (and on its "4.0" version, read by the same parser).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using cubekit::test::run_tool;
using cubekit::test::RunResult;

// main (id 0) calls work (id 1); two threads. Only work has rows: peak (MAXDOUBLE) -2.5 | 1.5,
// low (MINDOUBLE) 3.5 | -0.5.
constexpr const char* kDocument = R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="3.0">
  <metrics>
    <metric id="0">
      <disp_name>Peak</disp_name><uniq_name>peak</uniq_name><dtype>MAXDOUBLE</dtype>
      <uom>sec</uom><url></url><descr></descr>
    </metric>
    <metric id="1">
      <disp_name>Low</disp_name><uniq_name>low</uniq_name><dtype>MINDOUBLE</dtype>
      <uom>sec</uom><url></url><descr></descr>
    </metric>
  </metrics>
  <program>
    <region id="0" mod="x.c" begin="1" end="20"><name>main</name><url></url><descr></descr></region>
    <region id="1" mod="x.c" begin="21" end="30"><name>work</name><url></url><descr></descr></region>
    <cnode id="0" calleeId="0"><cnode id="1" calleeId="1"></cnode></cnode>
  </program>
  <system>
    <machine Id="0"><name>m</name>
      <node Id="0"><name>n0</name>
        <process Id="0"><rank>0</rank>
          <thread Id="0"><rank>0</rank></thread>
          <thread Id="1"><rank>1</rank></thread>
        </process>
      </node>
    </machine>
  </system>
  <severity>
    <matrix metricId="0">
      <row cnodeId="1">-2.5 1.5</row>
    </matrix>
    <matrix metricId="1">
      <row cnodeId="1">3.5 -0.5</row>
    </matrix>
  </severity>
</cube>
)";

// What cube_dump prints from its DATA (or FLAT PROFILE) banner on.
std::string data_part(const RunResult& r) {
  const size_t data = r.out.find(" =====");
  return data == std::string::npos ? r.out : r.out.substr(data);
}

class DumpCube3AbsentRows : public ::testing::Test {
 protected:
  std::string dump(std::vector<std::string> args, const std::string& document = kDocument) {
    const std::string path = dir_.write("absent.cube", document);
    args.insert(args.begin(), {"-m", "all"});
    args.push_back(path);
    const RunResult r = run_tool("cube_dump", args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return data_part(r);
  }
  cubekit::test::TempDir dir_{"dump-cube3-absent"};
};

// The human layout: the DATA banner, then for each metric its title, the column heads and
// the rows given.
std::string human(const std::string& columns, const std::string& peak_rows,
                  const std::string& low_rows) {
  const std::string head =
      columns +
      "\n-------------------------------------------------------------------------------\n";
  return " ===================== DATA =================== \n"
         "Print out the data of the metric peak\n\n" +
         head + peak_rows + "Print out the data of the metric low\n\n" + head + low_rows;
}

const std::string kThreads = "           Thread 0             Thread 1             ";
const std::string kAllThreads = "           All threads";

// Per thread: main has no row, so 0 | 0 (exclusive, the default and -z excl); inclusively
// main is max(0, -2.5) | max(0, 1.5) for peak and min(0, 3.5) | min(0, -0.5) for low.
TEST_F(DumpCube3AbsentRows, PerThreadValuesAreZeroNotTheIdentity) {
  const std::string exclusive = human(kThreads,
                                      "main(id=0) 0                   0                   \n"
                                      "work(id=1) -2.5                1.5                 \n",
                                      "main(id=0) 0                   0                   \n"
                                      "work(id=1) 3.5                 -0.5                \n");
  EXPECT_EQ(dump({}), exclusive);
  EXPECT_EQ(dump({"-z", "excl"}), exclusive);
  EXPECT_EQ(dump({"-z", "stored"}), exclusive);
  EXPECT_EQ(dump({"-z", "incl"}), human(kThreads,
                                        "main(id=0) 0                   1.5                 \n"
                                        "work(id=1) -2.5                1.5                 \n",
                                        "main(id=0) 0                   -0.5                \n"
                                        "work(id=1) 3.5                 -0.5                \n"));
}

// Over all threads: exclusive main max(0, 0) = 0 (peak) and min(0, 0) = 0 (low), work
// max(-2.5, 1.5) = 1.5 and min(3.5, -0.5) = -0.5; inclusive main takes work's value.
TEST_F(DumpCube3AbsentRows, AggregatedValuesTakeTheZeroIn) {
  EXPECT_EQ(dump({"-t", "aggr"}), human(kAllThreads, "main(id=0) 0\nwork(id=1) 1.5\n",
                                        "main(id=0) 0\nwork(id=1) -0.5\n"));
  EXPECT_EQ(
      dump({"-t", "aggr", "-z", "incl"}),
      human(kAllThreads, "main(id=0) 1.5\nwork(id=1) 1.5\n", "main(id=0) -0.5\nwork(id=1) -0.5\n"));
  EXPECT_EQ(dump({"-s", "csv2"}),
            "Cnode ID, Thread ID,peak,low\n0,0,0,0\n0,1,0,0\n1,0,-2.5,3.5\n1,1,1.5,-0.5\n");
  EXPECT_EQ(dump({"-s", "csv2", "-t", "aggr"}), "Cnode ID,peak,low\n0,0,0\n1,1.5,-0.5\n");
}

// A MINDOUBLE metric without a <matrix> is 0 at every call path and thread.
TEST_F(DumpCube3AbsentRows, MetricWithoutMatrixIsZero) {
  std::string document = kDocument;
  const std::string matrix =
      "    <matrix metricId=\"1\">\n      <row cnodeId=\"1\">3.5 -0.5</row>\n"
      "    </matrix>\n";
  document.erase(document.find(matrix), matrix.size());
  EXPECT_EQ(dump({"-s", "csv2"}, document),
            "Cnode ID, Thread ID,peak,low\n0,0,0,0\n0,1,0,0\n1,0,-2.5,0\n1,1,1.5,0\n");
}

}  // namespace
