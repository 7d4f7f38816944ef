// tau2cube on TAU profiles written here in TAU's text format (profile.N.C.T: a line
// "<n> templated_functions_MULTI_<metric>", a column line, n function lines
// "\"name\" calls subrs excl incl profilecalls GROUP=...", "<k> aggregates", "<u> userevents",
// a column line and u event lines "\"name\" count max min mean sumsqr"), and on the TAU profiles
// of CubeLib's test 28 against that test's templates. Every expected value of the profiles
// written here is worked out by hand from their lines: TAU times are microseconds, CubeLib's
// tau2cube stores whole seconds and counts (INTEGER, the fraction dropped) as inclusive values.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

#include "algebra_oracle.hpp"
#include "cubekit/report.hpp"

namespace {

using namespace cubekit::test;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// Node 0: main (1 call, 6 s inclusive) calls compute twice (5 s), which calls MPI_Send() four
// times (2 s) sending 4 messages of 16..1024 bytes (mean 300). The line "compute" (the region
// over all its callers) is the flat duplicate TAU writes in call-path profiles. Node 1: main
// (2.7 s) calls compute once (2.2 s), no messages. FP operations on node 0 only: main 110
// inclusive, compute 100, MPI_Send() 0.
void make_profile(const fs::path& dir) {
  write(dir / "MULTI__TIME/profile.0.0.0",
        "4 templated_functions_MULTI_TIME\n"
        "# Name Calls Subrs Excl Incl ProfileCalls # <metadata></metadata>\n"
        "\"main\" 1 2 1000000 6000000 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"main => compute\" 2 1 3000000 5000000 0 GROUP=\"TAU_CALLPATH\"\n"
        "\"main => compute => MPI_Send()\" 4 0 2000000 2000000 0 GROUP=\"MPI|TAU_CALLPATH\"\n"
        "\"compute\" 2 1 3000000 5000000 0 GROUP=\"TAU_DEFAULT\"\n"
        "0 aggregates\n"
        "2 userevents\n"
        "# eventname numevents max min mean sumsqr\n"
        "\"Message size\" 4 1024 16 300 1049600\n"
        "\"Message size : main => compute => MPI_Send()\" 4 1024 16 300 1049600\n");
  write(dir / "MULTI__TIME/profile.1.0.0",
        "3 templated_functions_MULTI_TIME\n"
        "# Name Calls Subrs Excl Incl ProfileCalls #\n"
        "\"main\" 1 1 500000 2700000 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"main => compute\" 1 0 2200000 2200000 0 GROUP=\"TAU_CALLPATH\"\n"
        "\"compute\" 1 0 2200000 2200000 0 GROUP=\"TAU_DEFAULT\"\n"
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

TEST(Tau2Cube, MetricsAndCallPathsAsCubeLibMakesThem) {
  TempDir tmp("tau2cube");
  make_profile(tmp.path() / "tau");
  const fs::path report = tmp.path() / "out.cubex";
  const RunResult r = run_tool("tau2cube", {(tmp.path() / "tau").string(), "-o", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Call paths main (0), main/compute (1), main/compute/MPI_Send() (2); threads node 0 (0) and
  // node 1 (1). Inclusive whole seconds: main 6 and 2 (2.7 s), compute 5 and 2 (2.2 s),
  // MPI_Send() 2 and none; exclusive: main 6-5 and 2-2, compute 5-2 and 2-0.
  EXPECT_EQ(dump(report, "TIME", "incl"),
            "Cnode ID, Thread ID,TIME\n0,0,6\n0,1,2\n1,0,5\n1,1,2\n2,0,2\n2,1,0\n");
  EXPECT_EQ(dump(report, "TIME", "excl"),
            "Cnode ID, Thread ID,TIME\n0,0,1\n0,1,0\n1,0,3\n1,1,2\n2,0,2\n2,1,0\n");
  // CALLS holds each call path's calls as an inclusive value, so its exclusive value is the
  // calls minus the callees' calls: main 1-2 and 1-1, compute 2-4 and 1-0.
  EXPECT_EQ(dump(report, "CALLS", "incl"),
            "Cnode ID, Thread ID,CALLS\n0,0,1\n0,1,1\n1,0,2\n1,1,1\n2,0,4\n2,1,0\n");
  EXPECT_EQ(dump(report, "CALLS", "excl"),
            "Cnode ID, Thread ID,CALLS\n0,0,-1\n0,1,0\n1,0,-2\n1,1,1\n2,0,4\n2,1,0\n");
  // A metric that is not time keeps its unit: FP operations 110 - 100 in main.
  EXPECT_EQ(dump(report, "PAPI_FP_OPS", "excl"),
            "Cnode ID, Thread ID,PAPI_FP_OPS\n0,0,10\n0,1,0\n1,0,100\n1,1,0\n2,0,0\n2,1,0\n");
  const cubekit::Report opened = cubekit::Report::open(report.string());
  const cubekit::Model& m = opened.model();
  ASSERT_EQ(m.metrics.size(), 3u);  // no user-event metric without --user-events
  const std::vector<std::vector<std::string>> metrics = {
      {"TIME", "TIME", "INTEGER", "sec", "Time in seconds"},
      {"PAPI_FP_OPS", "PAPI_FP_OPS", "INTEGER", "occ", ""},
      {"CALLS", "CALLS", "INTEGER", "occ", "Number of calls"}};
  for (size_t i = 0; i < metrics.size(); ++i) {
    const cubekit::Metric& x = m.metrics[i];
    EXPECT_EQ((std::vector<std::string>{x.uniq_name, x.disp_name, x.dtype_text, x.uom, x.descr}),
              metrics[i]);
    EXPECT_EQ(x.kind, cubekit::MetricKind::kInclusive) << x.uniq_name;
  }
  const std::map<std::string, std::string> attrs(m.attrs.begin(), m.attrs.end());
  EXPECT_EQ(attrs.count("CUBE_CT_AGGR") ? attrs.at("CUBE_CT_AGGR") : "", "MAX");
  // Regions in the order the lines name them, each of "tau" paradigm.
  ASSERT_EQ(m.regions.size(), 3u);
  EXPECT_EQ(m.regions[0].name, "main");
  EXPECT_EQ(m.regions[1].name, "compute");
  EXPECT_EQ(m.regions[2].name, "MPI_Send()");
  EXPECT_EQ(m.regions[2].paradigm, "tau");
  // One machine "Machine" with one node "Node"; a process per TAU node (rank = node number),
  // a thread per TAU thread, unnamed.
  ASSERT_EQ(m.system_nodes.size(), 2u);
  EXPECT_EQ(m.system_nodes[0].name, "Machine");
  EXPECT_EQ(m.system_nodes[0].descr, "Created by tau2cube");
  EXPECT_EQ(m.system_nodes[1].name, "Node");
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[1].rank, 1);
  EXPECT_EQ(m.groups[1].name, "");
  ASSERT_EQ(m.locations.size(), 2u);
  EXPECT_EQ(m.locations[1].rank, 0);
}

// --user-events adds a TAU_ATOMIC metric per event, after CALLS.
TEST(Tau2Cube, UserEventsOnRequest) {
  TempDir tmp("tau2cube-events");
  make_profile(tmp.path() / "tau");
  const fs::path report = tmp.path() / "out.cubex";
  const RunResult r =
      run_tool("tau2cube", {"--user-events", (tmp.path() / "tau").string(), "-o", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
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
}

TEST(Tau2Cube, FlatProfileInTheCurrentDirectoryByDefault) {
  TempDir tmp("tau2cube-flat");
  // A flat single-metric profile: "templated_functions" is TIME. Two regions, both roots, so
  // each one's exclusive time is its inclusive time: 1.9 s and 0.75 s, whole seconds 1 and 0.
  write(tmp.path() / "profile.0.0.0",
        "2 templated_functions\n"
        "# Name Calls Subrs Excl Incl ProfileCalls\n"
        "\"main\" 1 3 1150000 1900000 0 GROUP=\"TAU_DEFAULT\"\n"
        "\"work\" 3 0 750000 750000 0 GROUP=\"TAU_USER\"\n"
        "0 aggregates\n");
  const fs::path report = tmp.path() / "flat";  // .cubex is added
  const RunResult r = run_tool("tau2cube", {tmp.path().string(), "-o", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dump(report.string() + ".cubex", "TIME", "excl"),
            "Cnode ID, Thread ID,TIME\n0,0,1\n1,0,0\n");
}

// The rows of a Cube 3 template: metric uniq name -> cnode id -> the row's values as text.
std::map<std::string, std::map<int, std::string>> template_rows(const fs::path& cube3) {
  const std::string text = read_file(cube3);
  std::map<int, std::string> metric_names;
  const std::regex metric(
      R"re(<metric id="(\d+)">\s*<disp_name>[^<]*</disp_name>\s*<uniq_name>([^<]*))re");
  for (std::sregex_iterator i(text.begin(), text.end(), metric), e; i != e; ++i)
    metric_names[std::stoi((*i)[1])] = (*i)[2];
  std::map<std::string, std::map<int, std::string>> rows;
  const std::regex row(
      R"re(<matrix metricId="(\d+)">|<row cnodeId="(\d+)">\s*([^<]*?)\s*</row>)re");
  std::string current;
  for (std::sregex_iterator i(text.begin(), text.end(), row), e; i != e; ++i) {
    if ((*i)[1].matched)
      current = metric_names.at(std::stoi((*i)[1]));
    else
      rows[current][std::stoi((*i)[2])] = (*i)[3];
  }
  return rows;
}

// Our exclusive values (Cube 3 stores exclusive ones) in the template's row layout.
std::map<int, std::string> exclusive_rows(const fs::path& report, const std::string& metric) {
  std::istringstream csv(dump(report, metric, "excl"));
  std::map<int, std::string> rows;
  std::string line;
  std::getline(csv, line);  // header
  while (std::getline(csv, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1);
    rows[std::stoi(line.substr(0, a))] = line.substr(b + 1);
  }
  return rows;
}

// CubeLib's test 28 converts one TAU profile file at a time (a file, not a folder) and
// compares cube4to3 of the result with its templates. Profile 1 is a flat profile of metric
// "BGP Timers" (the metric is "BGP": CubeLib reads the name up to the first space; not time,
// so counts), profile 2 a call-path time profile.
TEST(Tau2Cube, CubeLibTest28ProfilesGiveItsTemplatesValues) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path test28 = shared_dir() / "data" / "cubelib-test" / "test28";
  TempDir tmp("tau2cube-test28");
  for (const auto& [profile, cube3, metric, cnodes] :
       {std::tuple{"profile1", "template1.cube", "BGP", 195},
        std::tuple{"profile2", "template2.cube", "TIME", 8}}) {
    const fs::path report = tmp.path() / (std::string(profile) + ".cubex");
    const RunResult r = run_tool(
        "tau2cube", {(test28 / profile / "profile.0.0.0").string(), "-o", report.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto expected = template_rows(test28 / cube3);
    ASSERT_EQ(expected.size(), 2u) << cube3;
    ASSERT_EQ(expected.at(metric).size(), static_cast<size_t>(cnodes)) << cube3;
    EXPECT_EQ(exclusive_rows(report, metric), expected.at(metric)) << profile;
    EXPECT_EQ(exclusive_rows(report, "CALLS"), expected.at("CALLS")) << profile;
  }
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
  EXPECT_NE(r.err.find("neither a TAU profile file nor a directory"), std::string::npos) << r.err;
  r = convert_bad(tmp.path() / "name", "profile.0.x.0", "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("profile.0.x.0: not named profile.<node>.<context>.<thread>"),
            std::string::npos)
      << r.err;
  // A file given instead of a folder must be a profile.N.C.T file.
  const std::string notes = tmp.write("notes.txt", "2 templated_functions\n");
  r = run_tool("tau2cube", {notes, "-o", (tmp.path() / "o").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("notes.txt: not named profile.<node>.<context>.<thread>"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "o.cubex"));
  EXPECT_EQ(run_tool("tau2cube", {"a", "b"}).exit_code, 1);
  EXPECT_EQ(run_tool("tau2cube", {"-o"}).exit_code, 1);
  EXPECT_EQ(run_tool("tau2cube", {"-h"}).exit_code, 0);
}

}  // namespace
