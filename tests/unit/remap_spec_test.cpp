// The .spec parser of cube_remap2 (remap.hpp: parse_remap_spec) on the specs shipped with
// CubeLib, on hand-written specs with every feature, and on malformed ones; cube_remap2's
// handling of bad specs, copy mode and a spec stored inside the report.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "test_support.hpp"
#include "unit/small_model.hpp"

namespace fs = std::filesystem;
using cubekit::test::read_file;
using cubekit::test::run_tool;
using cubekit::test::RunResult;
using cubekit::test::shared_dir;

namespace cubekit {
namespace {

const Metric& named(const RemapSpec& spec, const std::string& name) {
  for (const Metric& m : spec.metrics)
    if (m.uniq_name == name) return m;
  throw LookupError("no metric " + name);
}

TEST(RemapSpec, ScorepSpecOfCubeLib) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path file = shared_dir() / "data/real/cubelib/remap/scorep.spec";
  const RemapSpec spec = parse_remap_spec(read_file(file), file.string());
  EXPECT_EQ(spec.mirrors, (std::vector<std::string>{"http://vi-hps.com/path/to/documentation",
                                                    "http://vi-hps.com/path/to/documentation2",
                                                    "http://vi-hps.com/path/to/documentation3"}));
  ASSERT_EQ(spec.metrics.size(), 60u);  // the ids CubeLib gives them: 0 … 59
  const Metric& time = spec.metrics[0];
  EXPECT_EQ(time.uniq_name, "time");
  EXPECT_EQ(time.kind, MetricKind::kExclusive);  // no type attribute
  EXPECT_EQ(time.dtype_text, "FLOAT");
  const Metric& execution = named(spec, "execution");
  EXPECT_EQ(execution.kind, MetricKind::kPrederivedExclusive);
  EXPECT_EQ(spec.metrics[execution.parent].uniq_name, "time");
  // Raw '<' inside CubePL, kept verbatim with its white space.
  EXPECT_NE(execution.init_expression.find("while( ${i} < ${cube::#callpaths} )"),
            std::string::npos);
  EXPECT_EQ(execution.expression.substr(0, 14), "\n            {");
  EXPECT_EQ(named(spec, "visits").parent, kNoIndex);
}

TEST(RemapSpec, EveryFeature) {
  const std::string text = R"(<?xml version="1.0"?>
<doc><mirrors><murl>http://a/&amp;b</murl></mirrors></doc>
<metrics title="My &quot;tree&quot;">
  <!-- a comment <metric> -->
  <metric viztype="GHOST" convertible="false" cacheable='false'>
    <disp_name>G</disp_name><uniq_name>g</uniq_name><dtype>DOUBLE</dtype>
    <uom>s</uom><url></url><descr>a &lt; b</descr>
    <metric type="PREDERIVED_INCLUSIVE">
      <disp_name>P</disp_name><uniq_name>p</uniq_name><dtype>INTEGER</dtype>
      <cubepl rowwise=false>metric::g() < 2 &amp;&amp; 1</cubepl>
      <cubeplinit>{ return 0; }</cubeplinit>
      <cubeplaggr cubeplaggrtype=plus>arg1 + arg2</cubeplaggr>
      <cubeplaggr cubeplaggrtype="minus">arg1 - arg2</cubeplaggr>
      <cubeplaggr cubeplaggrtype="aggr">max(arg1, arg2)</cubeplaggr>
    </metric>
  </metric>
  <metric >
    <disp_name>V</disp_name><uniq_name>v</uniq_name><dtype>UINT64</dtype><val>VOID</val>
    <metric><disp_name>W</disp_name><uniq_name>w</uniq_name><dtype>UINT64</dtype></metric>
  </metric>
</metrics>
)";
  const RemapSpec spec = parse_remap_spec(text, "t.spec");
  EXPECT_EQ(spec.mirrors, std::vector<std::string>{"http://a/&b"});
  EXPECT_EQ(spec.metrics_title, "My \"tree\"");
  ASSERT_EQ(spec.metrics.size(), 4u);
  const Metric &g = spec.metrics[0], &p = spec.metrics[1], &v = spec.metrics[2],
               &w = spec.metrics[3];
  EXPECT_TRUE(g.ghost);
  EXPECT_FALSE(g.convertible);
  EXPECT_FALSE(g.cacheable);
  EXPECT_EQ(g.descr, "a < b");
  EXPECT_EQ(g.children, std::vector<Index>{1});
  EXPECT_EQ(p.kind, MetricKind::kPrederivedInclusive);
  EXPECT_EQ(p.parent, 0u);
  EXPECT_FALSE(p.rowwise);
  EXPECT_EQ(p.expression, "metric::g() < 2 && 1");
  EXPECT_EQ(p.init_expression, "{ return 0; }");
  EXPECT_EQ(p.aggr_plus, "arg1 + arg2");
  EXPECT_EQ(p.aggr_minus, "arg1 - arg2");
  EXPECT_EQ(p.aggr_aggr, "max(arg1, arg2)");
  EXPECT_EQ(p.dtype.kind(), TypeKind::kInt64);
  EXPECT_TRUE(v.is_void);
  EXPECT_TRUE(w.is_void);  // inherited
  EXPECT_EQ(w.parent, 2u);
}

struct Bad {
  const char* text;
  const char* message;  // after "bad.spec:<line>:<col>: "
  const char* where;
};

TEST(RemapSpec, MalformedSpecsNameFileLineAndProblem) {
  const std::string head = "<metrics>\n<metric><uniq_name>a</uniq_name><dtype>DOUBLE</dtype>";
  const Bad cases[] = {
      {"<metrics>\n<metric><uniq_name>a</uniq_name><dtype>DOUBLE</dtype>\n</metrics>", "expected",
       "bad.spec:3:1"},
      {"<metrics>\n<metric>\n<uniq_name>a</uniq_name><dtype>DOUBLE</dtype><color>red</color>"
       "</metric></metrics>",
       "unexpected <color> in <metric>", "bad.spec:3:"},
      {"<metrics><metric><uniq_name>a</uniq_name><dtype>DOUBLE</dtype></metric>\n"
       "<metric><uniq_name>a</uniq_name><dtype>DOUBLE</dtype></metric></metrics>",
       "metric 'a' defined twice", "bad.spec:2:1"},
      {"<metrics><metric type=\"SIDEWAYS\"><uniq_name>a</uniq_name><dtype>DOUBLE</dtype>"
       "</metric></metrics>",
       "unknown metric type \"SIDEWAYS\"", "bad.spec:1:10"},
      {"<metrics><metric><uniq_name>a</uniq_name>\n<dtype>QUATERNION</dtype></metric></metrics>",
       "metric 'a'", "bad.spec:2:1"},
      {"<metrics><metric><uniq_name>a</uniq_name></metric></metrics>", "without <dtype>",
       "bad.spec:1:10"},
      {"<metrics><metric type=\"POSTDERIVED\"><uniq_name>a</uniq_name><dtype>DOUBLE</dtype>"
       "</metric></metrics>",
       "without <cubepl>", "bad.spec:1:10"},
      {"<metrics><metric><uniq_name>a</uniq_name><dtype>DOUBLE</dtype><cubepl>1"
       "</metric></metrics>",
       "<cubepl> without </cubepl>", "bad.spec:1:"},
      {"<metrics></metrics>\n<metrics></metrics>", "unexpected <metrics> after </metrics>",
       "bad.spec:2:1"},
      {"<doc></doc>", "no <metrics> element", "bad.spec:1:12"},
      {"<metrics><metric><!-- open", "comment without end", "bad.spec:1:18"},
      {"hello", "expected a tag, found text", "bad.spec:1:1"},
      {"<metrics><metric convertible=\"maybe\"><uniq_name>a</uniq_name><dtype>DOUBLE</dtype>"
       "</metric></metrics>",
       "neither true nor false", "bad.spec:1:10"},
  };
  (void)head;
  for (const Bad& b : cases) {
    try {
      parse_remap_spec(b.text, "bad.spec");
      ADD_FAILURE() << "accepted: " << b.text;
    } catch (const FormatError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(b.where, 0), 0u) << what;
      EXPECT_NE(what.find(b.message), std::string::npos) << what;
    }
  }
}

fs::path temp(const std::string& name) {
  return fs::temp_directory_path() / ("cubekit-remap-" + std::to_string(::getpid()) + "-" + name);
}

TEST(Remap2Tool, BadSpecOrInputIsAnErrorNamingTheFile) {
  CUBEKIT_REQUIRE_SHARED();
  const std::string input = (shared_dir() / "data/real/cubelib/test16/profile.cube").string();
  const fs::path spec = temp("bad.spec");
  std::ofstream(spec) << "<metrics>\n<metric>\n<uniq_name>x</uniq_name>\n</metrics>\n";
  const fs::path out = temp("out");
  RunResult r = run_tool("cube_remap2", {"-r", spec.string(), "-o", out.string(), input});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(spec.string() + ":4:1: expected </metric>"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out.string() + ".cubex"));

  r = run_tool("cube_remap2", {"-r", "/nonexistent.spec", input});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent.spec"), std::string::npos) << r.err;

  // No -r and no remapping.spec inside the report.
  r = run_tool("cube_remap2", {"-o", out.string(), input});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no remapping specification inside the report"), std::string::npos);

  // A spec whose CubePL does not compile.
  std::ofstream(spec) << "<metrics><metric type=\"POSTDERIVED\"><uniq_name>q</uniq_name>"
                         "<dtype>DOUBLE</dtype><cubepl>metric::time(</cubepl></metric></metrics>";
  r = run_tool("cube_remap2", {"-r", spec.string(), "-o", out.string(), input});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("metric 'q'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out.string() + ".cubex"));

  r = run_tool("cube_remap2", {"-h"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("Usage: cube_remap2"), std::string::npos);
  r = run_tool("cube_remap2", {});
  EXPECT_EQ(r.exit_code, 1);
  fs::remove(spec);
}

std::string dump(const fs::path& report, std::vector<std::string> args) {
  args.push_back(report.string());
  const RunResult r = run_tool("cube_dump", args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Remap2Tool, CopyModeKeepsTheMetricTreeAndValues) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path input = shared_dir() / "data/real/cubelib/examples/summary.cubex";
  const fs::path out = temp("copy");
  const RunResult r = run_tool("cube_remap2", {"-c", "-o", out.string(), input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path report = out.string() + ".cubex";
  for (const char* z : {"incl", "excl"})
    EXPECT_EQ(dump(report, {"-m", "all", "-z", z, "-t", "aggr"}),
              dump(input, {"-m", "all", "-z", z, "-t", "aggr"}));
  EXPECT_EQ(dump(report, {"-w", "metrics"}), dump(input, {"-w", "metrics"}));
  fs::remove(report);
}

TEST(Remap2Tool, SpecInsideTheReportIsUsedWithoutR) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = shared_dir() / "oracle/_algebra/F_cubelib_summary";
  const Report input =
      Report::open((shared_dir() / "data/real/cubelib/examples/summary.cubex").string());
  const fs::path with_spec = temp("with_spec.cubex");
  write_evaluated(
      input, std::make_shared<Model>(input.model()), with_spec.string(), {},
      {{"remapping.spec", read_file(shared_dir() / "data/real/cubelib/remap/scorep.spec")}});
  const fs::path out = temp("from_member");
  const RunResult r = run_tool("cube_remap2", {"-o", out.string(), with_spec.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Found remapping specification file inside of cube. Use it.\n"),
            std::string::npos);
  // The same report as the original's remap_scorep step (cube_remap2 -r scorep.spec).
  const fs::path report = out.string() + ".cubex";
  EXPECT_EQ(dump(report, {"-m", "all", "-z", "incl", "-t", "aggr"}),
            read_file(dir / "remap_scorep.cubex.dump_incl_aggr.out"));
  EXPECT_EQ(dump(report, {"-m", "all", "-z", "incl", "-s", "csv2"}),
            read_file(dir / "remap_scorep.cubex.dump_incl_csv2.out"));
  fs::remove(report);
  fs::remove(with_spec);
}

// Issue 25: CubeLib's test2 writes example3.cubex with one region per call path, so MPI_Bcast
// is two alike regions (same name, module and lines). CubeLib's cube_remap2 copies the call
// tree with cnode_merge, whose def_cnode defines a region once per name, module and lines, in
// call-tree pre-order: the original's report has zone_setup_ at id 9 of example3, right after
// env_setup_. The same on a small tree: main → {MPI_Bcast, env_setup → MPI_Bcast, zone_setup}.
TEST(Remap2Tool, AlikeRegionsBecomeOneInCallTreeOrder) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  test::add_call_tree(*model, {"main", "MPI_Bcast", "env_setup", "MPI_Bcast", "zone_setup"},
                      {kNoIndex, 0, 0, 2, 0});
  test::add_one_machine(*model, {1});
  const double time[] = {1, 2, 3, 4, 5};
  const fs::path input = temp("alike.cubex"), out = temp("alike_remap");
  test::write_first_metric(input.string(), model, time);
  const RunResult r = run_tool("cube_remap2", {"-c", "-o", out.string(), input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path report = out.string() + ".cubex";
  {
    const Report w = Report::open(report.string());
    std::vector<std::string> regions;
    for (const Region& region : w.model().regions)
      regions.push_back(std::to_string(region.id) + " " + region.name);
    EXPECT_EQ(regions,
              (std::vector<std::string>{"0 main", "1 MPI_Bcast", "2 env_setup", "3 zone_setup"}));
    ASSERT_EQ(w.model().cnodes.size(), 5u);  // every call path kept, with its value
    EXPECT_EQ(w.model().cnodes[3].region, w.model().cnodes[1].region);
    const Values v = MetricEngine(w).aggregated_values(0, Flavour::kExclusive, Flavour::kExclusive);
    for (Index c = 0; c < 5; ++c) EXPECT_EQ(v.number(c), time[c]) << c;
  }
  fs::remove(report);
  fs::remove(input);
}

}  // namespace
}  // namespace cubekit
