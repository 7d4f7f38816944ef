// cube_dump with CubePL: `-c <file>` (a call path is printed when the file's expression,
// evaluated as a POSTDERIVED metric, inclusive, whole system, is > 0; CubeLib's cnodeSelection)
// and ghost metrics defined in `-m` expressions (cubepl.md §9.8).
//
// call_tree_test.cubex (cube-format.md §12): exclusive visits of cnodes 0..17 are
// 1 1 1 1 2 3 2 2 4 6 3 3 6 9 4 4 8 12 (72 in all); cnode 2 calls region "signed char".
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::run_tool;
using cubekit::test::shared_dir;

namespace {

class DumpCubePL : public ::testing::Test {
 protected:
  void SetUp() override {
    CUBEKIT_REQUIRE_SHARED();
    real_ = shared_dir() / "data/real";
    // The dashes matter: -c must not read "/tmp/cubekit-dump-…" as the id range 0-0.
    dir_ = fs::temp_directory_path() / ("cubekit-dump-cubepl-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // Writes `text` to a file in the test's directory and returns its path.
  std::string file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  cubekit::test::RunResult dump(std::vector<std::string> args, const std::string& report =
                                                                   "pycubexr/call_tree_test/"
                                                                   "call_tree_test.cubex") {
    args.push_back((real_ / report).string());
    return run_tool("cube_dump", args);
  }
  std::string csv(const std::string& metric, const std::string& cnodes,
                  const std::string& report = "pycubexr/call_tree_test/call_tree_test.cubex") {
    const auto r = dump({"-m", metric, "-c", cnodes, "-t", "aggr", "-s", "csv2"}, report);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  fs::path real_, dir_;
};

TEST_F(DumpCubePL, FileSelectsCallPathsWhereTheExpressionIsPositive) {
  // Several lines, a comment, a string: the text is compiled as written.
  const std::string many = file("many.cubepl",
                                "{\n"
                                "  // visited more than five times\n"
                                "  ${a} = 0;\n"
                                "  if (metric::visits(e) > 5) { ${a} = 1; };\n"
                                "  return ${a};\n"
                                "}\n");
  EXPECT_EQ(csv("visits", many), "Cnode ID,visits\n9,6\n12,6\n13,9\n16,8\n17,12\n");
  // Selection does not depend on -z: the flavours of the selection are fixed.
  const auto incl = dump({"-m", "visits", "-c", many, "-z", "incl", "-t", "aggr", "-s", "csv2"});
  EXPECT_EQ(incl.out, "Cnode ID,visits\n9,6\n12,6\n13,9\n16,8\n17,12\n");
}

TEST_F(DumpCubePL, NegativeValuesDoNotSelect) {
  // 5 - visits is > 0 for visits 1..4, 0 for none, < 0 (non-zero, yet not selected) for 6..12.
  EXPECT_EQ(
      csv("visits", file("neg.cubepl", "5 - metric::visits(e)\n")),
      "Cnode ID,visits\n0,1\n1,1\n2,1\n3,1\n4,2\n5,3\n6,2\n7,2\n8,4\n10,3\n11,3\n14,4\n15,4\n");
}

TEST_F(DumpCubePL, StringsWithBlanksKeepTheirBlanks) {
  // CubeLib joins the file's words ("signedchar") and would select nothing.
  const std::string f = file("signed.cubepl",
                             "{ ${s} = 0;\n"
                             "  if (${cube::region::name}[${calculation::region::id}] eq \"signed "
                             "char\") { ${s} = 1; };\n"
                             "  return ${s}; }\n");
  EXPECT_EQ(csv("visits", f), "Cnode ID,visits\n2,1\n");
}

TEST_F(DumpCubePL, TextThatOnlyCompilesWithItsWordsJoinedIsReadAsCubeLibDoes) {
  // `max (` is an error as written (no white space after a function name) but fine joined.
  EXPECT_EQ(csv("visits", file("joined.cubepl", "max (metric::visits(e), 5) - 5\n")),
            "Cnode ID,visits\n9,6\n12,6\n13,9\n16,8\n17,12\n");
}

TEST_F(DumpCubePL, ProgramsAgreeWithTheBuiltInSelections) {
  // CubeLib implements roots, leafs, level and name as CubePL programs like these; cubekit
  // implements them directly. Both ways must select the same call paths of a real profile.
  const std::string report = "cubelib/examples/summary.cubex";
  const std::string depth =
      "{ ${d} = 0; ${c} = ${calculation::callpath::id};\n"
      "  while (${cube::callpath::parent::id}[${c}] != -1) {\n"
      "    ${c} = ${cube::callpath::parent::id}[${c}]; ${d} = ${d} + 1; };\n";
  const std::string level2 = file("level2.cubepl", depth + "  return 1 - |${d} - 2|; }\n");
  EXPECT_EQ(csv("visits", level2, report), csv("visits", "level=2", report));
  const std::string deep = file("deep.cubepl", depth + "  return ${d} - 3; }\n");
  EXPECT_EQ(csv("visits", deep, report), csv("visits", "level>3", report));
  // The same walk as a for loop (cubekit's extension, docs/cubepl.md).
  const std::string level2_for =
      file("level2for.cubepl",
           "{ ${d} = 0;\n"
           "  for (${c} = ${calculation::callpath::id}; ${cube::callpath::parent::id}[${c}] != -1;"
           " ${c} = ${cube::callpath::parent::id}[${c}]) { ${d} = ${d} + 1; };\n"
           "  return 1 - |${d} - 2|; }\n");
  EXPECT_EQ(csv("visits", level2_for, report), csv("visits", "level=2", report));
  const std::string leafs =
      file("leafs.cubepl",
           "{ ${l} = 0; if (${cube::callpath::#children}[${calculation::callpath::id}] == 0) "
           "{ ${l} = 1; }; return ${l}; }\n");
  EXPECT_EQ(csv("visits", leafs, report), csv("visits", "leafs", report));
  const std::string mpi =
      file("mpi.cubepl",
           "{ ${m} = 0; if (${cube::region::name}[${calculation::region::id}] =~ /^MPI_[A-Z]/) "
           "{ ${m} = 1; }; return ${m}; }\n");
  const std::string by_name = csv("visits", mpi, report);
  EXPECT_EQ(by_name, csv("visits", "name=/^MPI_[A-Z]/", report));
  EXPECT_GT(std::count(by_name.begin(), by_name.end(), '\n'), 10) << by_name;
}

TEST_F(DumpCubePL, SelectionWorksWithNewMetricsAndGhosts) {
  const std::string twice = file(
      "ghost.cubepl",
      "{ cube::metric::postderived::v2 << metric::visits(e) * 2 >>; return metric::v2() - 10; }\n");
  EXPECT_EQ(csv("metric::visits(e)*2", twice),
            "Cnode ID,New Metric1\n9,12\n12,12\n13,18\n16,16\n17,24\n");
}

TEST_F(DumpCubePL, BadSelectionFilesAreErrors) {
  auto r = dump({"-m", "visits", "-c", (dir_ / "missing.cubepl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("missing.cubepl: neither a list of call path ids"), std::string::npos)
      << r.err;
  r = dump({"-m", "visits", "-c", file("syntax.cubepl", "{\n  return 1 + ;\n}\n")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("syntax.cubepl: invalid CubePL expression in this file: 2:14: expected"),
            std::string::npos)
      << r.err;
  r = dump({"-m", "visits", "-c", file("empty.cubepl", " \n\n")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("empty.cubepl: the file holds no CubePL expression"), std::string::npos)
      << r.err;
  r = dump(
      {"-m", "visits", "-c", file("for.cubepl", "{ for (${i} = 0; ${i} < 2;) { }; return 1; }")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("1:27: expected an assignment ${…} = … as the for loop's step, found ')'"),
            std::string::npos)
      << r.err;
}

TEST_F(DumpCubePL, MetricFilesAreReadTheSameWay) {
  // -m <file>: a metric named after the file; comments and blanks in strings survive.
  const std::string f = file("m.cubepl",
                             "// twice the visits, plus one for region \"signed char\"\n"
                             "{ ${x} = 0;\n"
                             "  if (${cube::region::name}[${calculation::region::id}] eq \"signed "
                             "char\") { ${x} = 1; };\n"
                             "  return 2 * metric::visits(e) + ${x}; }\n");
  EXPECT_EQ(csv(f, "1-4"), "Cnode ID," + f + "\n1,2\n2,3\n3,2\n4,4\n");
  const auto r = dump({"-m", file("bad.cubepl", "1 +\n"), "-c", "0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.cubepl: cannot create a metric from this file: 2:1: expected"),
            std::string::npos)
      << r.err;
}

TEST_F(DumpCubePL, GhostMetricsInNewMetricExpressions) {
  // The §12.4 example on a real profile: twice the (exclusive) visits of cnodes 0..5.
  EXPECT_EQ(
      csv("{ cube::metric::postderived::gm << metric::visits() * 2 >>; return metric::gm(); }",
          "0-5"),
      "Cnode ID,New Metric1\n0,2\n1,2\n2,2\n3,2\n4,4\n5,6\n");
  // A prederived exclusive ghost summed along the call tree: the root's inclusive value is
  // every visit, 72; its exclusive value 1.
  const std::string pre =
      "{ cube::metric::prederived::pv(e) << metric::visits() >>; return metric::pv(); }";
  auto r = dump({"-m", pre, "-c", "0", "-z", "incl", "-t", "aggr", "-s", "csv2"});
  EXPECT_EQ(r.out, "Cnode ID,New Metric1\n0,72\n") << r.err;
  EXPECT_EQ(csv(pre, "0"), "Cnode ID,New Metric1\n0,1\n");
  // The ghost is hidden: `all` lists the report's metrics (as CubeLib's -m all does, see the
  // oracle) and the new metric only.
  r = dump({"-m", pre + ",all", "-c", "0", "-s", "csv2"});
  const std::string oracle = cubekit::test::read_file(
      shared_dir() /
      "oracle/pycubexr__call_tree_test__call_tree_test.cubex/dump_all_incl_csv2.out");
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), oracle.substr(0, oracle.find('\n')) + ",New Metric1")
      << r.out;
}

}  // namespace
