// cube_diff, cube_merge, cube_mean and cube_cmp against CubeLib 4.6 (../shared/oracle/_algebra):
// each step runs as the original did (inputs under their INPUTS.txt names in a temporary
// directory); exit code, standard output and error, and our cube_dump of every report written
// must equal the original's. Plus round trips and bad input with independent expectations.
#include <gtest/gtest.h>

#include "algebra_oracle.hpp"

namespace {

using namespace cubekit::test;

struct Step {
  const char* case_name;
  const char* step;    // <step>.cmd
  const char* report;  // the -o name; empty: no report written
};

void PrintTo(const Step& s, std::ostream* os) {
  *os << s.case_name << "/" << s.step;
}

constexpr Step kSteps[] = {
    {"A_extrap_single_x1_vs_x10", "diff_ab", "diff_ab"},
    {"A_extrap_single_x1_vs_x10", "diff_aa", "diff_aa"},
    {"A_extrap_single_x1_vs_x10", "merge_ab", "merge_ab"},
    {"A_extrap_single_x1_vs_x10", "mean_ab", "mean_ab"},
    {"A_extrap_single_x1_vs_x10", "mean_abc", "mean_abc"},
    {"A_extrap_single_x1_vs_x10", "cmp_aa", ""},
    {"A_extrap_single_x1_vs_x10", "cmp_ab", ""},
    {"B_extrap_threaded_f1_vs_f2", "diff_ab", "diff_ab"},
    {"B_extrap_threaded_f1_vs_f2", "merge_ab", "merge_ab"},
    {"B_extrap_threaded_f1_vs_f2", "mean_ab", "mean_ab"},
    {"B_extrap_threaded_f1_vs_f2", "cmp_ab", ""},
    {"C_cubelib_test1.1_cmp", "cmp_template_equal", ""},
    {"C_cubelib_test1.1_cmp", "cmp_template_not_equal1", ""},
    {"E_cubelib_test16_remap2", "diff_trace_profile", ""},
    {"E_cubelib_test16_remap2", "merge_trace_profile", ""},
    {"F_cubelib_summary", "cmp_self", ""},
    {"I_visible_more", "diff_C_x1_x10", "diff_C_x1_x10"},
    {"I_visible_more", "mean_x1_x10", "mean_x1_x10"},
    {"I_visible_more", "mean_c_x1_x10", "mean_c_x1_x10"},
    {"I_visible_more", "cmp_blast_time_p4", ""},
};

// Runs the words of a .cmd with the working directory `dir` (as the oracle was made).
RunResult run_in(const fs::path& dir, const std::vector<std::string>& words) {
  const fs::path back = fs::current_path();
  fs::current_path(dir);
  const RunResult r =
      run_tool(words.front(), std::vector<std::string>(words.begin() + 1, words.end()));
  fs::current_path(back);
  return r;
}

class AlgebraOracle : public ::testing::TestWithParam<Step> {};

TEST_P(AlgebraOracle, PrintsAndWritesLikeOriginal) {
  CUBEKIT_REQUIRE_SHARED();
  const Step& s = GetParam();
  const fs::path dir = shared_dir() / "oracle" / "_algebra" / s.case_name;
  TempDir tmp("algebra");
  for (const auto& [name, real] : algebra_inputs(dir)) fs::create_symlink(real, tmp.path() / name);
  const std::string step = s.step;
  const RunResult r = run_in(tmp.path(), command_words(read_file(dir / (step + ".cmd"))));
  EXPECT_EQ(r.exit_code, std::stoi(read_file(dir / (step + ".rc")))) << r.err;
  EXPECT_EQ(r.out, read_file(dir / (step + ".out")))
      << first_difference(r.out, read_file(dir / (step + ".out")));
  EXPECT_EQ(r.err, read_file(dir / (step + ".err")));
  if (*s.report == '\0') return;
  const fs::path report = tmp.path() / (std::string(s.report) + ".cubex");
  ASSERT_TRUE(fs::exists(report));
  expect_dumps_equal(dir, s.report, report);
}

INSTANTIATE_TEST_SUITE_P(Steps, AlgebraOracle, ::testing::ValuesIn(kSteps),
                         [](const ::testing::TestParamInfo<Step>& info) {
                           std::string n = std::string(info.param.case_name).substr(0, 1) + "_" +
                                           info.param.step;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// x1 and x10 of extrap's single_parameter series (same structure), or empty paths.
std::pair<fs::path, fs::path> two_profiles() {
  if (shared_dir().empty()) return {};
  const fs::path d = shared_dir() / "data" / "real" / "extrap" / "single_parameter";
  return {d / "mm.x1y1z1.r1.cubex", d / "mm.x10y1z1.r1.cubex"};
}

TEST(AlgebraRoundTrip, MeanOfAReportWithItselfEqualsIt) {
  const auto [a, b] = two_profiles();
  CUBEKIT_REQUIRE_SHARED();
  TempDir tmp("algebra-rt");
  // time is DOUBLE: (a/2 + a/2) is exactly a; integer metrics would truncate each half.
  const fs::path out = tmp.path() / "m";
  ASSERT_EQ(run_tool("cube_mean", {"-o", out.string(), a.string(), a.string()}).exit_code, 0);
  const RunResult d1 = run_tool("cube_dump", {"-m", "time", "-z", "incl", out.string() + ".cubex"});
  const RunResult d2 = run_tool("cube_dump", {"-m", "time", "-z", "incl", a.string()});
  EXPECT_EQ(d1.out, d2.out);
}

TEST(AlgebraRoundTrip, DiffOfAReportWithItselfIsZeroAndCmpSaysEqual) {
  const auto [a, b] = two_profiles();
  CUBEKIT_REQUIRE_SHARED();
  TempDir tmp("algebra-rt");
  const fs::path out = tmp.path() / "d";
  ASSERT_EQ(run_tool("cube_diff", {"-o", out.string(), b.string(), b.string()}).exit_code, 0);
  // The additive metrics; MIN/MAXDOUBLE ones give min(a, -a) = -|a| as in CubeLib (their ⊕).
  const RunResult csv = run_tool("cube_dump", {"-m", "time,visits,PAPI_FP_OPS,bytes_put", "-z",
                                               "incl", "-s", "csv2", out.string() + ".cubex"});
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);  // header
  int rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    const std::string values = line.substr(line.find(',', line.find(',') + 1) + 1);
    for (char c : values) EXPECT_TRUE(c == '0' || c == ',' || c == '-') << line;
  }
  EXPECT_GT(rows, 0);
  EXPECT_EQ(run_tool("cube_cmp", {b.string(), b.string()}).exit_code, 0);
  EXPECT_EQ(run_tool("cube_cmp", {a.string(), b.string()}).exit_code, 1);
}

TEST(AlgebraBadInput, UnreadableInputAndOutputOverInputAreRefusedWithoutOutput) {
  const auto [a, b] = two_profiles();
  CUBEKIT_REQUIRE_SHARED();
  TempDir tmp("algebra-bad");
  const fs::path out = tmp.path() / "x";
  const RunResult missing = run_tool(
      "cube_merge", {"-o", out.string(), a.string(), (tmp.path() / "nope.cubex").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nope.cubex"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(out.string() + ".cubex"));

  const fs::path copy = tmp.path() / "in.cubex";
  fs::copy_file(a, copy);
  const std::string before = read_file(copy);
  const RunResult over =
      run_tool("cube_diff", {"-o", (tmp.path() / "in").string(), copy.string(), b.string()});
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_NE(over.err.find("overwrite"), std::string::npos) << over.err;
  EXPECT_EQ(read_file(copy), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()), 1);
}

TEST(AlgebraBadInput, WrongArgumentCountsExitOne) {
  EXPECT_EQ(run_tool("cube_diff", {"only-one.cubex"}).exit_code, 1);
  EXPECT_EQ(run_tool("cube_merge", {"only-one.cubex"}).exit_code, 1);
  EXPECT_EQ(run_tool("cube_cmp", {}).exit_code, 1);
  EXPECT_EQ(run_tool("cube_mean", {"-h"}).exit_code, 0);
}

}  // namespace
