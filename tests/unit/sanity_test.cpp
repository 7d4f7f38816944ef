// cube_sanity's checks on a report made here with one fault of each kind, each expectation
// worked out by hand: which tests run (regions in the order the call tree first reaches them,
// children first), which fail and why.
#include "cubekit/sanity.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/writer.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

struct RegionSpec {
  const char* name;
  const char* mod;
  int64_t begin, end;
};
// 0 main, 1 ANONYMOUS@x (no file, no lines), 2 solve_TRUNCATED (no end line), 3 TRACING,
// 4 MPI_Init, 5 UNKNOWN.
const RegionSpec kRegions[] = {
    {"main", "a.c", 1, 10},    {"ANONYMOUS@x", "", -1, -1}, {"solve_TRUNCATED", "a.c", 5, -1},
    {"TRACING", "EPIK", 0, 0}, {"MPI_Init", "MPI", 1, 1},   {"UNKNOWN", "a.c", 1, 2}};
// Call paths: 0 main, 1 main/ANONYMOUS, 2 main/solve, 3 main/solve/TRACING (misplaced),
// 4 main/MPI_Init, 5 main/MPI_Init/TRACING, 6 UNKNOWN (a root). Exclusive time, one location:
// solve −5 makes its exclusive and inclusive (−5 + 1) values negative; main's inclusive is
// 1 + 2 − 4 + 2 = 1.
const Index kRegionOf[] = {0, 1, 2, 3, 4, 3, 5};
const Index kParentOf[] = {kNoIndex, 0, 0, 2, 0, 4, kNoIndex};
const double kTime[] = {1, 2, -5, 1, 1, 1, 1};

Report faulty_report(const std::string& path) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  for (uint32_t r = 0; r < 6; ++r) {
    Region region;
    region.id = r;
    region.name = region.mangled_name = kRegions[r].name;
    region.mod = kRegions[r].mod;
    region.begin = kRegions[r].begin;
    region.end = kRegions[r].end;
    model->regions.push_back(region);
  }
  for (uint32_t c = 0; c < 7; ++c) {
    Cnode cnode;
    cnode.id = c;
    cnode.region = kRegionOf[c];
    cnode.parent = kParentOf[c];
    model->cnodes.push_back(cnode);
    if (cnode.parent != kNoIndex) model->cnodes[cnode.parent].children.push_back(c);
  }
  test::add_one_machine(*model, {1});
  return test::write_first_metric(path, model, kTime);
}

struct Check {
  std::string name;
  unsigned depth = 0;
  std::vector<std::string> tests, failures;  // what each test names; why those that failed
};

class Recorder : public SanityReporter {
 public:
  std::vector<Check> checks;
  void begin(const std::string& check, unsigned depth, size_t) override {
    checks.push_back({check, depth, {}, {}});
  }
  void test(const std::function<std::string()>& what, bool passed,
            const std::string& why) override {
    checks.back().tests.push_back(what());
    if (!passed) checks.back().failures.push_back(why);
  }
  void end() override {}
};

class Sanity : public ::testing::Test {
 protected:
  test::TempDir dir_{"sanity"};
  Report report_ = faulty_report((dir_.path() / "faulty.cubex").string());
  MetricEngine engine_{report_};

  std::vector<Check> run(const SanityOptions& options) {
    Recorder r;
    check_sanity(engine_, options, r);
    return r.checks;
  }
};

const std::vector<std::string> kRegionTests = {
    "\"ANONYMOUS@x\"", "\"TRACING\"", "\"solve_TRUNCATED\"",
    "\"MPI_Init\"",    "\"main\"",    "\"UNKNOWN\""};

TEST_F(Sanity, EveryFaultIsFoundOnce) {
  const std::vector<Check> checks = run({});
  ASSERT_EQ(checks.size(), 8u);
  EXPECT_EQ(checks[0].name, "Name not empty or UNKNOWN");
  EXPECT_EQ(checks[0].tests, kRegionTests);
  EXPECT_EQ(checks[0].failures, std::vector<std::string>{"In region with id 5 (Name: UNKNOWN)\n"
                                                         "The region's name is UNKNOWN."});
  EXPECT_EQ(checks[1].name, "No ANONYMOUS functions");
  EXPECT_EQ(checks[1].depth, 1u);
  EXPECT_EQ(checks[1].failures.size(), 1u);
  EXPECT_EQ(checks[2].name, "No TRUNCATED functions");
  EXPECT_EQ(checks[2].failures.size(), 1u);
  EXPECT_EQ(checks[3].name, "File name not empty");
  EXPECT_EQ(checks[3].failures, std::vector<std::string>{"In region with id 1 (Name: ANONYMOUS@x)\n"
                                                         "The region's file name is empty."});
  EXPECT_EQ(checks[4].name, "Proper line numbers");
  EXPECT_EQ(checks[4].depth, 2u);
  EXPECT_EQ(checks[4].failures,
            (std::vector<std::string>{
                "In region with id 1 (Name: ANONYMOUS@x)\nBegin and end line numbers are negative.",
                "In region with id 2 (Name: solve_TRUNCATED)\nEnd line number is negative."}));
  EXPECT_EQ(checks[5].name, "No TRACING outside Init and Finalize");
  EXPECT_EQ(checks[5].tests.size(), 7u);  // every call path
  ASSERT_EQ(checks[5].failures.size(), 1u);
  EXPECT_NE(checks[5].failures[0].find("Parent's name is solve_TRUNCATED"), std::string::npos);
  EXPECT_EQ(checks[6].name, "No negative inclusive metrics");
  EXPECT_EQ(checks[6].tests.size(), 7u);  // one metric × 7 call paths × one location
  EXPECT_EQ(checks[6].tests[2], "No negative inclusive metrics :: time :: 3 :: 1");
  EXPECT_EQ(checks[6].failures,
            std::vector<std::string>{
                "metric: time, cnode: solve_TRUNCATED (id: 2), thread id: 0 is negative."});
  EXPECT_EQ(checks[7].failures,
            std::vector<std::string>{
                "exclusive metric: time, cnode: solve_TRUNCATED (id: 2), thread id: 0 is "
                "negative."});
}

TEST_F(Sanity, OptionsTurnChecksOffAndFiltersOn) {
  SanityOptions options;
  options.negative_inclusive = options.negative_exclusive = options.line_numbers = false;
  options.filter_patterns = {"MPI_*", "*TRUNC*"};
  const std::vector<Check> checks = run(options);
  ASSERT_EQ(checks.size(), 6u);
  EXPECT_EQ(checks[1].name, "Regions properly filtered.");
  EXPECT_EQ(checks[1].depth, 1u);
  EXPECT_EQ(checks[1].failures.size(), 2u);  // MPI_Init and solve_TRUNCATED
  for (const Check& c : checks) EXPECT_NE(c.name, "Proper line numbers");
}

// Issue 25: a MAXDOUBLE value at its identity (−DBL_MAX, e.g. max_time where nothing ran) is
// "no value", not a negative one; CubeLib 4.6 counts it negative (its get_sev of a row that holds
// nothing is the type's identity), cubekit does not. A real negative value still fails.
// main → {idle, broken}: max_time 3, identity, −4.
TEST(SanityNegative, MaxDoubleIdentityIsNoValueNotANegativeOne) {
  test::TempDir dir("sanity-maxdouble");
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "max_time", "MAXDOUBLE", MetricKind::kExclusive);
  test::add_call_tree(*model, {"main", "idle", "broken"}, {kNoIndex, 0, 0});
  test::add_one_machine(*model, {1});
  const double max_time[] = {3, -DBL_MAX, -4};
  const Report report =
      test::write_first_metric((dir.path() / "m.cubex").string(), model, max_time);
  MetricEngine engine(report);
  Recorder r;
  SanityOptions options;
  check_sanity(engine, options, r);
  size_t seen = 0;
  for (const Check& c : r.checks) {
    if (c.name != "No negative inclusive metrics" && c.name != "No negative exclusive metrics")
      continue;
    ++seen;
    EXPECT_EQ(c.tests.size(), 3u) << c.name;
    ASSERT_EQ(c.failures.size(), 1u) << c.name;
    EXPECT_NE(c.failures[0].find("cnode: broken (id: 2)"), std::string::npos) << c.failures[0];
  }
  EXPECT_EQ(seen, 2u);
}

TEST(SanityFilter, EveryWordIsAPattern) {
  test::TempDir dir("sanity-filter");
  const auto file = dir.path() / "f.filt";
  std::ofstream(file) << "MPI_*  foo\nbar";  // no final line break: bar counts too
  EXPECT_EQ(read_filter_patterns(file.string()), (std::vector<std::string>{"MPI_*", "foo", "bar"}));
  EXPECT_THROW(read_filter_patterns((dir.path() / "none").string()), Error);
  EXPECT_THROW(read_filter_patterns("/dev/zero"), Error);  // endless: refused, no hang
}

}  // namespace
}  // namespace cubekit
