// cube_derive against CubeLib 4.6 (../shared/oracle/_algebra): the reports we write, dumped by
// our cube_dump, print what the original's reports printed; on summary.cubex, where the
// original crashes, the new metric's values agree with cube_dump -m of the same expression and
// with values computed by hand from the oracle's dumps of the input.
#include <gtest/gtest.h>

#include <cmath>

#include "algebra_oracle.hpp"

namespace {

using namespace cubekit::test;

fs::path case_dir(const char* name) {
  return shared_dir() / "oracle" / "_algebra" / name;
}

class DeriveOracle : public ::testing::TestWithParam<const char*> {};

TEST_P(DeriveOracle, WrittenReportDumpsLikeOriginal) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = case_dir("A_extrap_single_x1_vs_x10");
  TempDir tmp("derive");
  fs::path report;
  const RunResult r = run_algebra_step(dir, GetParam(), tmp.path(), report);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read_file(dir / (std::string(GetParam()) + ".out")));
  ASSERT_TRUE(fs::exists(report)) << report;
  expect_dumps_equal(dir, GetParam(), report);
}

INSTANTIATE_TEST_SUITE_P(Steps, DeriveOracle,
                         ::testing::Values("derive_post", "derive_pre_incl", "derive_real_excl"));

// The value printed for `label` in the first data table of a cube_dump -t aggr output.
double printed_value(const std::string& dump, const std::string& label, size_t table = 0) {
  size_t at = 0;
  for (size_t t = 0; t <= table; ++t) {
    at = dump.find("Print out the data of the metric", at);
    if (at == std::string::npos) return NAN;
    ++at;
  }
  at = dump.find("\n" + label + " ", at);
  if (at == std::string::npos) return NAN;
  return std::stod(dump.substr(at + label.size() + 2));
}

// Index of a metric's table in a `-m all` dump.
size_t table_of(const std::string& dump, const std::string& metric) {
  size_t n = 0;
  for (size_t at = 0;
       (at = dump.find("Print out the data of the metric ", at)) != std::string::npos; ++n) {
    at += 33;
    if (dump.compare(at, metric.size() + 1, metric + "\n") == 0) return n;
  }
  return SIZE_MAX;
}

TEST(DeriveSummary, PostderivedWhereTheOriginalCrashes) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = case_dir("F_cubelib_summary");
  EXPECT_EQ(read_file(dir / "derive_post.rc"), "139\n");  // the original's crash
  TempDir tmp("derive");
  fs::path report;
  const RunResult r = run_algebra_step(dir, "derive_post", tmp.path(), report);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const RunResult ours =
      run_tool("cube_dump", {"-m", "time_per_visit", "-z", "incl", "-t", "aggr", report.string()});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  // By hand from the original's dumps of the input: inclusive time / exclusive visits.
  const fs::path input_dumps = shared_dir() / "oracle" / "cubelib__examples__cube__summary.cubex";
  const std::string incl = read_file(input_dumps / "dump_all_incl_aggr.out");
  const std::string excl = read_file(input_dumps / "dump_all_excl_aggr.out");
  for (const char* cnode : {"MAIN__(id=0)", "setup_mpi_(id=1)", "MPI_Init(id=2)"}) {
    const double time = printed_value(incl, cnode, table_of(incl, "time"));
    const double visits = printed_value(excl, cnode, table_of(excl, "visits"));
    ASSERT_GT(visits, 0) << cnode;
    EXPECT_NEAR(printed_value(ours.out, cnode), time / visits, 1e-5 * time / visits) << cnode;
  }
  EXPECT_EQ(printed_value(ours.out, "MAIN__(id=0)"), 481.372);

  // And the same numbers as cube_dump -m with the expression on the input, everywhere.
  const fs::path input = algebra_input("cubelib__examples__cube__summary.cubex");
  const RunResult adhoc = run_tool("cube_dump", {"-m", "metric::time(i)/metric::visits(e)", "-z",
                                                 "incl", "-s", "csv2", input.string()});
  const RunResult stored =
      run_tool("cube_dump", {"-m", "time_per_visit", "-z", "incl", "-s", "csv2", report.string()});
  ASSERT_EQ(adhoc.exit_code, 0) << adhoc.err;
  const auto body = [](const std::string& s) { return s.substr(s.find('\n')); };
  EXPECT_EQ(body(stored.out), body(adhoc.out));
  EXPECT_GT(stored.out.size(), 1000u);
}

TEST(DeriveSummary, StoredExclusiveMetricEqualsItsExpression) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path input = algebra_input("cubelib__examples__cube__summary.cubex");
  TempDir tmp("derive");
  const fs::path out = tmp.path() / "real";
  const RunResult r =
      run_tool("cube_derive", {"-r", "exclusive", "-e", "metric::time(e)/metric::visits(e)", "avg",
                               "-p", "Time", input.string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path report = out.string() + ".cubex";
  // Stored exclusive values are the expression's call-exclusive values, location by location.
  const RunResult adhoc = run_tool("cube_dump", {"-m", "metric::time(e)/metric::visits(e)", "-z",
                                                 "excl", "-s", "csv2", input.string()});
  const RunResult stored =
      run_tool("cube_dump", {"-m", "avg", "-z", "excl", "-s", "csv2", report.string()});
  const auto body = [](const std::string& s) { return s.substr(s.find('\n')); };
  EXPECT_EQ(body(stored.out), body(adhoc.out));
  EXPECT_GT(stored.out.size(), 1000u);
  // -p Time: the new metric is the last child of Time.
  const RunResult w = run_tool("cube_dump", {"-w", report.string()});
  EXPECT_NE(w.out.find("\n  |-avg  ( id=80, avg, , DOUBLE, https://url.de, Created metric using "
                       "tool cube_derive with a CubePL expression \"metric::time(e)/"
                       "metric::visits(e)\", EXCLUSIVE convertible, cacheable)\n"),
            std::string::npos)
      << w.out.substr(0, 3000);
}

struct BadCall {
  std::vector<std::string> args;
  int rc;
  const char* message;  // part of stderr
};

TEST(DeriveErrors, ClearMessageAndExitCode) {
  CUBEKIT_REQUIRE_SHARED();
  const std::string input = algebra_input("extrap__single_parameter__mm.x1y1z1.r1__profile.cubex");
  TempDir tmp("derive");
  const std::string out = (tmp.path() / "x").string();
  const BadCall calls[] = {
      {{"-e", "metric::time(", "m", input, "-o", out}, 1, "metric 'm'"},
      {{"-e", "1", "time", input, "-o", out}, 1, "a metric named 'time' exists already"},
      {{"-e", "1", "-p", "Nope", "m", input, "-o", out}, 1, "no metric with display name 'Nope'"},
      {{"m", input}, 1, "Error: Expression for metric calculation is missing"},
      {{"-e", "1", input}, 1, "Error: Wrong arguments."},
      {{"-t", "sideways", "-e", "1", "m", input}, 1, "postderived or prederived"},
      {{"-r", "both", "-e", "1", "m", input}, 1, "exclusive or inclusive"},
      {{"-e", "1", "m", "/nonexistent.cubex", "-o", out}, 1, "/nonexistent.cubex"},
      // `for` is cubekit's extension: fine in cube_dump -m, never written into a report that
      // CubeLib and the Cube GUI would then show as 0 (docs/cubepl.md, "for loops").
      {{"-t", "postderived", "-e",
        "{ ${s} = 0; for (${i} = 0; ${i} < 3; ${i} = ${i} + 1) { ${s} = ${s} + metric::visits(); };"
        " return ${s}; }",
        "m", input, "-o", out},
       1,
       "metric 'm': expression would not compile in CubeLib, so it cannot be written: 1:13: 'for' "
       "is not part of CubePL (a cubekit extension"},
      // xor exists in cubekit's CubePL only (cubepl.md §13 Q7).
      {{"-t", "postderived", "-e",
        "{ ${r} = 0; if (metric::visits() > 1 xor metric::visits() > 2) { ${r} = 1; }; "
        "return ${r}; }",
        "m", input, "-o", out},
       1,
       "1:38: expected ')' or and/or, found 'xor'"},
      {{"-h"}, 0, "Usage: cube_derive"},
      {{"-x"}, 0, "Usage: cube_derive"},
  };
  for (const BadCall& c : calls) {
    const RunResult r = run_tool("cube_derive", c.args);
    EXPECT_EQ(r.exit_code, c.rc) << c.args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    if (c.rc != 0) {
      EXPECT_FALSE(fs::exists(out + ".cubex")) << "a failed run left a report";
    }
  }
}

}  // namespace
