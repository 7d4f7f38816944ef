// CubeLib's test 1.2 files (../shared/data/cubelib-test/test1.2): empty.cube (every value zero),
// non_empty1.cube (values) and no_structure.cube (a Cube 3 document whose <metrics>, <program>
// and <system> are empty). Test 1.2 wants cube_is_empty to say "empty" (exit 0) for the first,
// "not empty" (exit != 0) for the second and to refuse the third (exit != 0): CubeLib's parser
// needs at least one metric, region, call path and machine, so no tool of it reads that file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using cubekit::test::run_tool;
using cubekit::test::RunResult;
using cubekit::test::shared_dir;

fs::path test12_file(const std::string& name) {
  return shared_dir() / "data" / "cubelib-test" / "test1.2" / name;
}

TEST(CubeIsEmpty, CubeLibTest12Verdicts) {
  CUBEKIT_REQUIRE_SHARED();
  RunResult r = run_tool("cube_is_empty", {test12_file("empty.cube").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_tool("cube_is_empty", {test12_file("non_empty1.cube").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("Experiments are different."), std::string::npos) << r.out;
  // Refused: a message naming the file and the empty metric dimension, and no verdict.
  const fs::path broken = test12_file("no_structure.cube");
  r = run_tool("cube_is_empty", {broken.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find(broken.string() + ":14:3: the metric dimension is empty"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("Checking operation"), std::string::npos) << r.out;
}

// Every tool that reads the file refuses it the same way (exit 1, file and reason named).
TEST(EmptyDimensions, EveryToolRefusesNoStructureCube) {
  CUBEKIT_REQUIRE_SHARED();
  const std::string broken = test12_file("no_structure.cube").string();
  cubekit::test::TempDir tmp("no-structure");
  const std::string out = (tmp.path() / "out.cubex").string();
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"cube_dump", {broken}},
      {"cube_stat", {broken}},
      {"cube_calltree", {broken}},
      {"cube_info", {broken}},
      {"cube_regioninfo", {broken}},
      {"cube_sanity", {broken}},
      {"cube_rank", {broken}},
      {"cube_nodeview", {broken}},
      {"cube_test", {broken, broken}},
      {"cube_cmp", {broken, broken}},
      {"cube_diff", {"-o", out, broken, broken}},
      {"cube_cut", {"-r", "main", "-o", out, broken}},
      {"cube_clean", {"-o", out, broken}},
      {"cube3to4", {"-o", out, broken}},
      {"cube_topoassist", {"-n", "-a", "0", "-o", out, broken}}};
  for (const auto& [tool, args] : runs) {
    const RunResult r = run_tool(tool, args);
    EXPECT_EQ(r.exit_code, 1) << tool << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("no_structure.cube:14:3: the metric dimension is empty"),
              std::string::npos)
        << tool << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << tool << " wrote a report";
  }
}

}  // namespace
