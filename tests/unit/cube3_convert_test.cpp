// cube3to4 / cube4to3 on CubeLib's own Cube 3 files: every conversion must dump exactly as the
// original did under CubeLib 4.6 (../shared/oracle), values must survive bit for bit with
// `cube4to3 -x` (without it they are rounded as CubeLib rounds them), and reports Cube 3 cannot
// hold are refused without leaving files behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::read_file;
using cubekit::test::run_tool;
using cubekit::test::shared_dir;

namespace {

using cubekit::test::listing;
using cubekit::test::TempDir;

// The real Cube 3 inputs, relative to data/real/cubelib; the oracle folder is derived.
const std::vector<std::string> kInputs = {"test0.0/test0.0.cube",    "test1.1/equal.cube",
                                          "test1.1/not_equal1.cube", "test1.1/template.cube",
                                          "test16/profile.cube",     "test16/trace.cube"};

fs::path oracle_of(const std::string& input) {
  std::string folder = "cubelib__test__" + input;
  folder.replace(folder.find('/'), 1, "__");
  return shared_dir() / "oracle" / folder;
}

// The three value dumps of `report` equal what CubeLib printed for the original.
void expect_oracle_dumps(const fs::path& report, const fs::path& oracle) {
  const std::pair<const char*, std::vector<std::string>> steps[] = {
      {"dump_all_incl_aggr", {"-m", "all", "-z", "incl", "-t", "aggr"}},
      {"dump_all_excl_aggr", {"-m", "all", "-z", "excl", "-t", "aggr"}},
      {"dump_all_incl_csv2", {"-m", "all", "-z", "incl", "-s", "csv2"}}};
  for (const auto& [step, options] : steps) {
    std::vector<std::string> args = options;
    args.push_back(report.string());
    const auto r = run_tool("cube_dump", args);
    EXPECT_EQ(r.exit_code, 0) << step << ": " << r.err;
    EXPECT_TRUE(r.out == read_file(oracle / (std::string(step) + ".out")))
        << report << " differs from " << oracle / step;
  }
}

// Every call-tree exclusive value of every metric is bit-identical in `a` and `b`.
void expect_same_values(const fs::path& a, const fs::path& b) {
  using cubekit::Flavour;
  const auto ra = cubekit::Report::open(a), rb = cubekit::Report::open(b);
  const cubekit::Model& m = ra.model();
  ASSERT_EQ(m.metrics.size(), rb.model().metrics.size());
  ASSERT_EQ(m.cnodes.size(), rb.model().cnodes.size());
  cubekit::MetricEngine ea(ra), eb(rb);
  for (cubekit::Index i = 0; i < m.metrics.size(); ++i) {
    if (m.metrics[i].is_void) continue;
    for (cubekit::Index c = 0; c < m.cnodes.size(); ++c) {
      const auto va = ea.location_values(i, c, Flavour::kInclusive, Flavour::kExclusive);
      const auto vb = eb.location_values(i, c, Flavour::kInclusive, Flavour::kExclusive);
      ASSERT_EQ(va.size() * va.stride(), vb.size() * vb.stride());
      ASSERT_EQ(std::memcmp(va.data(), vb.data(), va.size() * va.stride()), 0)
          << m.metrics[i].uniq_name << " cnode " << m.cnodes[c].id;
    }
  }
}

class Cube3Convert : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { CUBEKIT_REQUIRE_SHARED(); }
};

TEST_P(Cube3Convert, RoundTripDumpsLikeTheOriginal) {
  TempDir dir("c34");
  const fs::path original = shared_dir() / "data" / "real" / "cubelib" / GetParam();
  const fs::path cube = dir.path() / "in.cube";
  fs::copy_file(original, cube);
  // Default names: in.cube -> in.cubex beside it.
  auto r = run_tool("cube3to4", {cube.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" Start to export " + cube.string() + " into " +
                       (dir.path() / "in").string() + ".cubex"),
            std::string::npos)
      << r.out;
  const fs::path cubex = dir.path() / "in.cubex";
  ASSERT_TRUE(fs::exists(cubex));
  expect_oracle_dumps(cubex, oracle_of(GetParam()));

  const fs::path back = dir.path() / "back.cube";
  r = run_tool("cube4to3", {"-x", "-o", back.string(), cubex.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  expect_oracle_dumps(back, oracle_of(GetParam()));
  expect_same_values(original, back);
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"back.cube", "in.cube", "in.cubex"}));
}

TEST_P(Cube3Convert, GzipOutputReadsBack) {
  TempDir dir("c34");
  const fs::path original = shared_dir() / "data" / "real" / "cubelib" / GetParam();
  const fs::path gz = dir.path() / "out.cube.gz";
  auto r = run_tool("cubekit", {"cube4to3", "-x", "-o", gz.string(), original.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = read_file(gz);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b");
  expect_oracle_dumps(gz, oracle_of(GetParam()));
  expect_same_values(original, gz);
}

INSTANTIATE_TEST_SUITE_P(Cube3ConvertReal, Cube3Convert, ::testing::ValuesIn(kInputs),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Without -x values are printed as CubeLib prints them, with 6 significant digits: test1.1's
// template holds 0.000181790997885, which CubeLib writes as 0.000181791.
TEST(Cube3ConvertTool, DefaultValuesHaveSixSignificantDigits) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path out = dir.path() / "rounded.cube";
  const fs::path in = shared_dir() / "data/real/cubelib/test1.1/template.cube";
  ASSERT_NE(read_file(in).find("\n0.000181790997885\n"), std::string::npos);
  const auto r = run_tool("cube4to3", {"-o", out.string(), in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(out);
  EXPECT_NE(text.find("\n0.000181791\n"), std::string::npos);
  EXPECT_EQ(text.find("0.000181790997885"), std::string::npos);
}

TEST(Cube3ConvertTool, DefaultNameOfCube4to3DropsCubex) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path cubex = dir.path() / "t.cubex";
  fs::copy_file(shared_dir() / "data/real/cubelib/test0.0/test0.0.cubex", cubex);
  const auto r = run_tool("cube4to3", {cubex.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Reading " + cubex.string() + " ...  done.\n Start to export " + cubex.string() +
                       " into " + (dir.path() / "t.cube").string() + "\ndone.\n");
  EXPECT_TRUE(fs::exists(dir.path() / "t.cube"));
}

TEST(Cube3ConvertTool, OutputNameNumbersLaterInputs) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path in = shared_dir() / "data/real/cubelib/test0.0/test0.0.cube";
  const fs::path out = dir.path() / "x";
  const auto r = run_tool("cube3to4", {"-o", out.string(), in.string(), in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"x.1.cubex", "x.cubex"}));
}

TEST(Cube3ConvertTool, RefusesSystemTreeDeeperThanCube3) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  // machine / rack / midplane / nodeboard / nodecard: five levels above the processes.
  const fs::path deep = shared_dir() / "data/real/pycubexr/blast.p64.r1/profile.cubex";
  const auto r = run_tool("cube4to3", {"-o", (dir.path() / "deep.cube").string(), deep.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot be written as Cube 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'midplane 1' (class midplane)"), std::string::npos) << r.err;
  EXPECT_TRUE(listing(dir.path()).empty());
}

TEST(Cube3ConvertTool, RefusesProcessesDirectlyBelowAMachine) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path flat = shared_dir() / "data/real/cubelib/test33/proxy.cubex";
  const auto r = run_tool("cube4to3", {"-o", (dir.path() / "flat.cube").string(), flat.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("without a node level"), std::string::npos) << r.err;
  EXPECT_TRUE(listing(dir.path()).empty());
}

TEST(Cube3ConvertTool, UnwritableDirectoryLeavesNothing) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path in = shared_dir() / "data/real/cubelib/test0.0/test0.0.cubex";
  // root ignores permission bits; a regular file in place of the directory fails for everyone.
  const fs::path not_dir = dir.path() / "file";
  std::ofstream(not_dir) << "x";
  auto r = run_tool("cube4to3", {"-o", (not_dir / "out.cube").string(), in.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot create a temporary file"), std::string::npos) << r.err;
  if (::geteuid() != 0) {
    const fs::path ro = dir.path() / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    r = run_tool("cube4to3", {"-o", (ro / "out.cube").string(), in.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(listing(ro).empty());
    fs::permissions(ro, fs::perms::owner_all);
  }
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"file"}));
}

TEST(Cube3ConvertTool, RefusesToOverwriteItsInput) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path cube = dir.path() / "x.cube";
  fs::copy_file(shared_dir() / "data/real/cubelib/test0.0/test0.0.cube", cube);
  const std::string before = read_file(cube);
  const auto r = run_tool("cube4to3", {cube.string()});  // default name: x.cube again
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(cube), before);
}

// A report with a postderived metric `expression` below time (0.1 s on one thread).
std::string derived_cube(const std::string& expression) {
  return R"(<?xml version="1.0" encoding="UTF-8"?>
<cube version="3.0">
<metrics>
<metric id="0"><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype>
<uom>sec</uom><url></url><descr></descr>
<metric id="1" type="POSTDERIVED"><disp_name>Twice</disp_name><uniq_name>twice</uniq_name>
<dtype>FLOAT</dtype><uom>sec</uom><url></url><descr></descr><cubepl>)" +
         expression + R"(</cubepl>
</metric>
</metric>
</metrics>
<program>
<region id="0" mod="x.c" begin="1" end="2"><name>main</name><url></url><descr></descr></region>
<cnode id="0" calleeId="0"></cnode>
</program>
<system>
<machine Id="0"><name>m</name><node Id="0"><name>n</name>
<process Id="0"><rank>0</rank><thread Id="0"><rank>0</rank></thread></process>
</node></machine>
</system>
<severity><matrix metricId="0"><row cnodeId="0">0.1</row></matrix></severity>
</cube>
)";
}

// Cube 3 has no derived metrics: like CubeLib, cube4to3 writes their computed values.
TEST(Cube3ConvertTool, WritesDerivedMetricsAsTheirValues) {
  TempDir dir("c34");
  const fs::path in = dir.path() / "derived.cube";
  std::ofstream(in) << derived_cube("2*metric::time()");
  const fs::path out = dir.path() / "out.cube";
  const auto r = run_tool("cube4to3", {"-o", out.string(), in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("twice"), std::string::npos) << r.err;
  const cubekit::Report back = cubekit::Report::open(out.string());
  const cubekit::Index twice = *back.model().metric_by_uniq_name("twice");
  EXPECT_FALSE(cubekit::is_derived(back.model().metrics[twice].kind));
  const auto rows = back.severities(twice);
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(reinterpret_cast<const double*>(rows->row(0))[0], 0.2);
}

// A derived metric whose CubePL does not compile cannot be computed: left out, with a warning
// naming it; the rest is written.
TEST(Cube3ConvertTool, LeavesUncompilableDerivedMetricsOutWithAWarning) {
  TempDir dir("c34");
  const fs::path in = dir.path() / "broken.cube";
  std::ofstream(in) << derived_cube("2*metric::time(");
  const fs::path out = dir.path() / "out.cube";
  const auto r = run_tool("cube4to3", {"-o", out.string(), in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Warning: metric 'twice'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("derived metrics are left out"), std::string::npos) << r.err;
  const std::string text = read_file(out);
  EXPECT_EQ(text.find("twice"), std::string::npos);
  EXPECT_NE(text.find("<row cnodeId=\"0\">\n0.1\n</row>"), std::string::npos) << text;
}

// A report CubeLib's cube_derive wrote (oracle A): the postderived time_per_visit goes into the
// Cube 3 document as its call-exclusive values, which dump exactly as the original's.
TEST(Cube3ConvertTool, DerivedMetricOfARealReportKeepsItsExclusiveValues) {
  CUBEKIT_REQUIRE_SHARED();
  TempDir dir("c34");
  const fs::path in = shared_dir() / "oracle/_algebra/A_extrap_single_x1_vs_x10/derive_post.cubex";
  const fs::path out = dir.path() / "post.cube";
  ASSERT_EQ(run_tool("cube4to3", {"-o", out.string(), in.string()}).exit_code, 0);
  const auto original =
      run_tool("cube_dump", {"-m", "time_per_visit", "-z", "excl", "-s", "csv2", in.string()});
  const auto converted =
      run_tool("cube_dump", {"-m", "time_per_visit", "-z", "excl", "-s", "csv2", out.string()});
  ASSERT_EQ(original.exit_code, 0) << original.err;
  EXPECT_EQ(converted.out, original.out);
  EXPECT_NE(original.out.find("1,0,1.67e-06"), std::string::npos) << original.out;
}

TEST(Cube3ConvertTool, HelpAndMissingInput) {
  for (const char* tool : {"cube3to4", "cube4to3"}) {
    auto r = run_tool(tool, {"-h"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err.rfind(std::string("Usage: ") + tool + " [-o output] [-h]", 0), 0u) << r.err;
    r = run_tool(tool, {});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("At least one file is required"), std::string::npos) << r.err;
  }
}

}  // namespace
