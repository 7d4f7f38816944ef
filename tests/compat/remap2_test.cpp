// cube_remap2 against CubeLib 4.6 (../shared/oracle/_algebra E and F): each remapping step is
// run as the original was (inputs under their INPUTS.txt names in a temporary directory); what
// it prints and the dumps of the report it writes must equal the original's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>

#include "algebra_oracle.hpp"

namespace {

using namespace cubekit::test;

struct Step {
  const char* case_name;
  const char* step;    // <step>.cmd
  const char* report;  // the -o name
};

void PrintTo(const Step& s, std::ostream* os) {
  *os << s.case_name << "/" << s.step;
}

constexpr Step kSteps[] = {
    {"E_cubelib_test16_remap2", "remap_profile_scorep", "profile_remap"},
    {"E_cubelib_test16_remap2", "remap_trace_scout2", "trace_remap"},
    {"E_cubelib_test16_remap2", "remap_profile_scalasca_spec", "profile_remap_sc"},
    {"E_cubelib_test16_remap2", "remap_profile_remapping_spec", "profile_remap_rs"},
    {"F_cubelib_summary", "remap_scorep", "remap_scorep"},
};

// Outputs that differ from the original's, each with the reason (docs/cube_remap2.md).
struct KnownDifference {
  const char* name;  // <report>.cubex.dump_<x> or <step>.err
  const char* reason;
};
constexpr std::array<KnownDifference, 1> kKnownDifferences{{
    {"remap_scorep.err",
     "cubekit says on standard error which input metrics it leaves out; CubeLib is silent"},
}};

const char* known_difference(const std::string& name) {
  for (const KnownDifference& k : kKnownDifferences)
    if (name == k.name) return k.reason;
  return nullptr;
}

class Remap2Oracle : public ::testing::TestWithParam<Step> {};

TEST_P(Remap2Oracle, PrintsAndWritesLikeOriginal) {
  CUBEKIT_REQUIRE_SHARED();
  const Step& s = GetParam();
  const fs::path dir = shared_dir() / "oracle" / "_algebra" / s.case_name;
  TempDir tmp("remap2");
  for (const auto& [name, real] : algebra_inputs(dir)) fs::create_symlink(real, tmp.path() / name);
  const RunResult r =
      run_in(tmp.path(), command_words(read_file(dir / (std::string(s.step) + ".cmd"))));
  ASSERT_EQ(r.exit_code, std::stoi(read_file(dir / (std::string(s.step) + ".rc")))) << r.err;
  EXPECT_EQ(r.out, read_file(dir / (std::string(s.step) + ".out")));
  if (!known_difference(std::string(s.step) + ".err")) {
    EXPECT_EQ(r.err, read_file(dir / (std::string(s.step) + ".err")));
  }
  const fs::path report = tmp.path() / (std::string(s.report) + ".cubex");
  ASSERT_TRUE(fs::exists(report));

  for (const char* dump : {"dump_w", "dump_excl_aggr", "dump_incl_aggr", "dump_incl_csv2"}) {
    const std::string name = std::string(s.report) + ".cubex." + dump;
    std::vector<std::string> args = command_words(read_file(dir / (name + ".cmd")));
    args.erase(args.begin());
    args.back() = report.string();
    const RunResult d = run_tool("cube_dump", args);
    const std::string expected = read_file(dir / (name + ".out"));
    if (known_difference(name)) {
      EXPECT_NE(d.out, expected) << name << " now matches: remove it from kKnownDifferences";
      continue;
    }
    EXPECT_EQ(d.exit_code, 0) << d.err;
    EXPECT_TRUE(d.out == expected) << name << ": output differs from the original's";
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, Remap2Oracle, ::testing::ValuesIn(kSteps),
                         [](const ::testing::TestParamInfo<Step>& info) {
                           std::string n = std::string(info.param.case_name).substr(0, 1) + "_" +
                                           info.param.step;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
