// tau2cube on TAU profiles written here in TAU's text format (profile.N.C.T: a line
// "<n> templated_functions_MULTI_<metric>", a column line, n function lines
// "\"name\" calls subrs excl incl profilecalls GROUP=...", "<k> aggregates", "<u> userevents",
// a column line and u event lines "\"name\" count max min mean sumsqr"). Every expected
// value below is worked out by hand from those lines (TAU times are microseconds).
#include <gtest/gtest.h>

#include <fstream>

#include "algebra_oracle.hpp"

namespace {

using namespace cubekit::test;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// Node 0: main (1 call, 6000 µs inclusive) calls compute twice (5000 µs), which calls
// MPI_Send() four times (2000 µs) sending 4 messages of 16..1024 bytes (mean 300). The line
// "compute" (the region over all its callers) is the flat duplicate TAU writes in call-path
// profiles. Node 1: main (2500 µs) calls compute once (2000 µs), no messages.
// FP operations on node 0 only: main 110 inclusive, compute 100, MPI_Send() 0.
void make_profile(const fs::path& dir) {
  write(dir / "MULTI__TIME/profile.0.0.0",
        "4 templated_functions_MULTI_TIME\n"
        "# Name Calls Subrs Excl Incl ProfileCalls # <metadata></metadata>\n"
        "\"main\" 1 2 1000 6000 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"main => compute\" 2 1 3000 5000 0 GROUP=\"TAU_CALLPATH\"\n"
        "\"main => compute => MPI_Send()\" 4 0 2000 2000 0 GROUP=\"MPI|TAU_CALLPATH\"\n"
        "\"compute\" 2 1 3000 5000 0 GROUP=\"TAU_DEFAULT\"\n"
        "0 aggregates\n"
        "2 userevents\n"
        "# eventname numevents max min mean sumsqr\n"
        "\"Message size\" 4 1024 16 300 1049600\n"
        "\"Message size : main => compute => MPI_Send()\" 4 1024 16 300 1049600\n");
  write(dir / "MULTI__TIME/profile.1.0.0",
        "3 templated_functions_MULTI_TIME\n"
        "# Name Calls Subrs Excl Incl ProfileCalls #\n"
        "\"main\" 1 1 500 2500 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"main => compute\" 1 0 2000 2000 0 GROUP=\"TAU_CALLPATH\"\n"
        "\"compute\" 1 0 2000 2000 0 GROUP=\"TAU_DEFAULT\"\n"
        "0 aggregates\n");
  write(dir / "MULTI__PAPI_FP_OPS/profile.0.0.0",
        "3 templated_functions_MULTI_PAPI_FP_OPS\n"
        "# Name Calls Subrs Excl Incl ProfileCalls #\n"
        "\"main\" 1 2 10 110 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"main => compute\" 2 1 100 100 0 GROUP=\"TAU_CALLPATH\"\n"
        "\"main => compute => MPI_Send()\" 4 0 0 0 0 GROUP=\"MPI|TAU_CALLPATH\"\n"
        "0 aggregates\n");
}

std::string dump(const fs::path& report, const std::string& metric, const std::string& flavour) {
  const RunResult r =
      run_tool("cube_dump", {"-m", metric, "-z", flavour, "-s", "csv2", report.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Tau2Cube, MetricsCallPathsAndUserEvents) {
  TempDir tmp("tau2cube");
  make_profile(tmp.path() / "tau");
  const fs::path report = tmp.path() / "out.cubex";
  const RunResult r = run_tool("tau2cube", {(tmp.path() / "tau").string(), "-o", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Call paths main (0), main/compute (1), main/compute/MPI_Send() (2); threads node 0 (0) and
  // node 1 (1). Exclusive time: main 6000-5000 µs, compute 5000-2000 µs, MPI_Send() 2000 µs.
  EXPECT_EQ(dump(report, "time", "excl"),
            "Cnode ID, Thread ID,time\n0,0,0.001\n0,1,0.0005\n1,0,0.003\n1,1,0.002\n"
            "2,0,0.002\n2,1,0\n");
  EXPECT_EQ(dump(report, "time", "incl"),
            "Cnode ID, Thread ID,time\n0,0,0.006\n0,1,0.0025\n1,0,0.005\n1,1,0.002\n"
            "2,0,0.002\n2,1,0\n");
  // Calls per call path, not summed over callees.
  EXPECT_EQ(dump(report, "visits", "excl"),
            "Cnode ID, Thread ID,visits\n0,0,1\n0,1,1\n1,0,2\n1,1,1\n2,0,4\n2,1,0\n");
  // A metric that is not time keeps its unit: FP operations 110 - 100 in main.
  EXPECT_EQ(dump(report, "PAPI_FP_OPS", "excl"),
            "Cnode ID, Thread ID,PAPI_FP_OPS\n0,0,10\n0,1,0\n1,0,100\n1,1,0\n2,0,0\n2,1,0\n");
  // The context event at MPI_Send(): 4 values from 16 to 1024, mean 300; standard deviation
  // sqrt(1049600/4 - 300²) = sqrt(172400) = 415.211. The event without context is the same
  // messages and is not counted twice.
  EXPECT_EQ(dump(report, "tau_event_Message_size", "excl"),
            "Cnode ID, Thread ID,tau_event_Message_size\n0,0,(0,-,-):-,-\n0,1,(0,-,-):-,-\n"
            "1,0,(0,-,-):-,-\n1,1,(0,-,-):-,-\n2,0,(4,16,1024):300,415.211\n2,1,(0,-,-):-,-\n");
  const RunResult w = run_tool("cube_dump", {"-w", report.string()});
  EXPECT_NE(w.out.find("Message size  ( id=3, tau_event_Message_size, occ, TAU_ATOMIC"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("  |-node 1 (id=2, class=node"), std::string::npos) << w.out;
}

TEST(Tau2Cube, FlatProfileInTheCurrentDirectoryByDefault) {
  TempDir tmp("tau2cube-flat");
  // A flat single-metric profile: "templated_functions" is TIME. Two regions, both roots, so
  // each one's exclusive time is its inclusive time.
  write(tmp.path() / "profile.0.0.0",
        "2 templated_functions\n"
        "# Name Calls Subrs Excl Incl ProfileCalls\n"
        "\"main\" 1 3 250 1000 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"work\" 3 0 750 750 0 GROUP=\"TAU_USER\"\n"
        "0 aggregates\n");
  const fs::path report = tmp.path() / "flat";  // .cubex is added
  const RunResult r = run_tool("tau2cube", {tmp.path().string(), "-o", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dump(report.string() + ".cubex", "time", "excl"),
            "Cnode ID, Thread ID,time\n0,0,0.001\n1,0,0.00075\n");
}

RunResult convert_bad(const fs::path& dir, const std::string& file, const std::string& text) {
  write(dir / file, text);
  return run_tool("tau2cube", {dir.string(), "-o", (dir / "out.cubex").string()});
}

TEST(Tau2Cube, MalformedFilesNameFileAndLine) {
  TempDir tmp("tau2cube-bad");
  struct Bad {
    const char* text;
    const char* message;
  } bads[] = {
      {"x templated_functions\n", "profile.0.0.0:1: expected \"<N> templated_functions"},
      {"1 templated_functions\n\"main\" 1 0 1 1 0\n", "profile.0.0.0:2: expected the column"},
      {"2 templated_functions\n# Name\n\"main\" 1 0 1 1 0\n", "profile.0.0.0:4: the file ends"},
      {"1 templated_functions\n# Name\nmain 1 0 1 1 0\n", "profile.0.0.0:3: expected a name"},
      {"1 templated_functions\n# Name\n\"main\" 1 zero 1 1 0\n", "profile.0.0.0:3: expected calls"},
      {"1 templated_functions\n# Name\n\"a => b\" 1 0 1 1 0\n",
       "profile.0.0.0:3: no line for the caller 'a'"},
      {"1 templated_functions\n# Name\n\"a =>  => b\" 1 0 1 1 0\n",
       "profile.0.0.0:3: empty region name"},
      {"1 templated_functions\n# Name\n\"main\" 1 0 1 1 0\n0 aggregates\n1 userevents\n"
       "# eventname\n\"size\" 1 2\n",
       "profile.0.0.0:7: expected count"},
      {"1 templated_functions\n# Name\n\"main\" 1 0 1 1 0\nnonsense\n",
       "profile.0.0.0:4: expected \"<N> aggregates\""},
  };
  int k = 0;
  for (const Bad& b : bads) {
    const fs::path dir = tmp.path() / std::to_string(++k);
    const RunResult r = convert_bad(dir, "profile.0.0.0", b.text);
    EXPECT_EQ(r.exit_code, 1) << b.text;
    EXPECT_NE(r.err.find(b.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.cubex")) << "a report was written for " << b.text;
  }
}

TEST(Tau2Cube, BadArgumentsAndDirectories) {
  TempDir tmp("tau2cube-args");
  RunResult r = run_tool("tau2cube", {tmp.path().string(), "-o", (tmp.path() / "o").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no TAU profile files"), std::string::npos) << r.err;
  r = run_tool("tau2cube", {(tmp.path() / "missing").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  r = convert_bad(tmp.path() / "name", "profile.0.x.0", "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("profile.0.x.0: not named profile.<node>.<context>.<thread>"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(run_tool("tau2cube", {"a", "b"}).exit_code, 1);
  EXPECT_EQ(run_tool("tau2cube", {"-o"}).exit_code, 1);
  EXPECT_EQ(run_tool("tau2cube", {"-h"}).exit_code, 0);
}

}  // namespace
