// Input written to hurt (issue 9, "Crashes found"): every reader bounds the depth it recurses
// over, over-deep CubePL is an error naming its position, ids out of range are refused, zlib
// gets its input in pieces it can count, and the tools end with a message and exit status 1.
// Each test builds its input by hand and knows the whole expected answer.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_guarded.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "cubekit/report.hpp"
#include "format/compression.hpp"
#include "test_support.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

using test::AnchorSpec;
using test::TarBuilder;

constexpr Flavour kInclusiveFlavour = Flavour::kInclusive;
constexpr Flavour kExclusiveFlavour = Flavour::kExclusive;

// The default anchor's data (tar_builder.hpp): time rows of cnodes 0..2 for two locations,
// visits rows of cnodes 0 and 2.
std::string archive(const std::string& anchor) {
  TarBuilder t;
  t.add("0.data",
        test::plain_data(test::encode_values(std::vector<double>{1.5, 2.5, 3.0, 4.0, 0.25, 0.75})))
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(test::encode_values(std::vector<uint64_t>{1, 2, 7, 9})))
      .add("1.index", test::sparse_index({0, 2}))
      .add("anchor.xml", anchor);
  return t.finish();
}

// `anchor` with `text` inserted before the </metric> of metric `name`.
std::string inside_metric(std::string anchor, const std::string& name, const std::string& text) {
  const size_t at = anchor.find("</metric>", anchor.find("<uniq_name>" + name + "</uniq_name>"));
  return anchor.insert(at, text);
}

std::string metric_xml(int id, const std::string& inner) {
  const std::string n = "n" + std::to_string(id);
  return "<metric id=\"" + std::to_string(id) + "\" type=\"EXCLUSIVE\"><disp_name>" + n +
         "</disp_name><uniq_name>" + n + "</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom>" +
         "<url></url><descr></descr>" + inner + "</metric>";
}

// The default anchor with `depth` more metrics below visits, each inside the one before.
std::string nested_metrics(int depth) {
  std::string inner;
  for (int i = depth + 1; i >= 2; --i) inner = metric_xml(i, inner);
  return inside_metric(test::anchor_xml(), "visits", inner);
}

// The default anchor with its one system tree node inside `depth` more (ids in document
// order: the outer ones 0..depth-1, the original one last).
std::string nested_system(int depth) {
  std::string anchor = test::anchor_xml();
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    open += "<systemtreenode Id=\"" + std::to_string(i) + "\"><name>s</name><class>c</class>\n";
    close += "</systemtreenode>\n";
  }
  const std::string original = "<systemtreenode Id=\"0\">";
  const size_t b = anchor.find(original);
  anchor.insert(anchor.find("<topologies>"), close);
  anchor.replace(b, original.size(),
                 open + "<systemtreenode Id=\"" + std::to_string(depth) + "\">");
  return anchor;
}

class HostileInput : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    return dir_.write(name, bytes);
  }
  // Report::open must throw a FormatError whose message is exactly `message`.
  void expect_open_error(const std::string& path, const std::string& message) {
    try {
      Report::open(path);
      ADD_FAILURE() << "opened; expected: " << message;
    } catch (const FormatError& e) {
      EXPECT_EQ(e.what(), message);
    }
  }
  test::TempDir dir_{"hostile"};
};

// ---------------------------------------------------------------------------------------
// Trees: metric and system trees recurse up to kMaxTreeNesting, call trees never recurse.

TEST_F(HostileInput, MetricTreesNestAtMostTheBound) {
  const std::string deep = write("deep.cubex", archive(nested_metrics(kMaxTreeNesting + 1)));
  expect_open_error(deep, deep + ":anchor.xml: metrics nested deeper than 1000");
  // At the bound the report reads, and cube_dump prints the tree (it recurses over it).
  const std::string ok = write("ok.cubex", archive(nested_metrics(kMaxTreeNesting)));
  EXPECT_EQ(Report::open(ok).model().metrics.size(), 2u + kMaxTreeNesting);
  const auto r = test::run_tool("cube_dump", {"-w", "metrics", ok});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("|-n1001  ( id=1001, n1001, sec, DOUBLE"), std::string::npos);
}

TEST_F(HostileInput, SystemTreesNestAtMostTheBound) {
  const std::string deep = write("deep.cubex", archive(nested_system(kMaxTreeNesting + 1)));
  EXPECT_THROW(
      {
        try {
          Report::open(deep);
        } catch (const FormatError& e) {
          EXPECT_NE(std::string(e.what()).find("system tree nested deeper than 1000"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      FormatError);
  const std::string ok = write("ok.cubex", archive(nested_system(kMaxTreeNesting)));
  EXPECT_EQ(Report::open(ok).model().system_nodes.size(), kMaxTreeNesting + 1u);
  const auto r = test::run_tool("cube_dump", {"-w", "systemtree", ok});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(HostileInput, SpecMetricsNestAtMostTheBound) {
  std::string spec = "<metrics>";
  for (int i = 0; i < 30000; ++i) spec += "\n<metric>";
  try {
    parse_remap_spec(spec, "deep.spec");
    ADD_FAILURE() << "a spec with 30,000 nested metrics was accepted";
  } catch (const FormatError& e) {
    // The 1002nd <metric> is on line 1003, column 1.
    EXPECT_EQ(std::string(e.what()), "deep.spec:1003:1: metrics nested deeper than 1000");
  }
}

// A deep call tree is printed without recursion: with the tool's stack cut to 256 KiB, 3,000
// levels would overflow a recursive walk.
TEST_F(HostileInput, DeepCallTreeIsPrinted) {
  constexpr int kDepth = 3000;
  std::string tree;
  for (int i = 0; i < kDepth; ++i)
    tree += "<cnode id=\"" + std::to_string(i) + "\" calleeId=\"" + std::to_string(i % 3) + "\">";
  for (int i = 0; i < kDepth; ++i) tree += "</cnode>";
  AnchorSpec spec;
  spec.cnodes = tree;
  TarBuilder t;
  t.add("anchor.xml", test::anchor_xml(spec));
  const std::string path = write("deep.cubex", t.finish());
  test::RunLimits limits;
  limits.stack_bytes = 256u << 10;
  const auto r = test::run_tool("cube_dump", {"-w", "calltree", path}, limits);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The last call path: bars "|" never appear (one child each), two spaces per level.
  const std::string last = std::string(2 * (kDepth - 1), ' ') + "|-bar  [ ( id=2999,";  // 2999 % 3
  EXPECT_NE(r.out.find("\n" + last), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Ids

TEST_F(HostileInput, RegionIdsOutOfRangeAreRefused) {
  for (const std::string id : {"-1", "4294967296"}) {
    std::string anchor = test::anchor_xml();
    anchor.replace(anchor.find("<region id=\"0\""), 14, "<region id=\"" + id + "\"");
    const std::string path = write("region.cubex", archive(anchor));
    try {
      Report::open(path);
      ADD_FAILURE() << "region id " << id << " accepted";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("region id " + id + " out of range"), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(HostileInput, CalleeIdsOutOfRangeAreRefused) {
  for (const std::string id : {"-1", "4294967296"}) {
    AnchorSpec spec;
    spec.cnodes =
        "<cnode id=\"0\" calleeId=\"0\">\n<cnode id=\"1\" calleeId=\"1\">\n</cnode>\n"
        "<cnode id=\"2\" calleeId=\"" +
        id + "\">\n</cnode>\n</cnode>\n";
    const std::string path = write("callee.cubex", archive(test::anchor_xml(spec)));
    expect_open_error(path,
                      path + ":anchor.xml: cnode 2 calls region " + id + ", which is not declared");
  }
}

// ---------------------------------------------------------------------------------------
// Derived metrics stored in a report

// A report whose third metric is POSTDERIVED with `expression`.
std::string derived_report(const std::string& expression) {
  AnchorSpec spec;
  spec.metrics.push_back({2, "hostile", "DOUBLE", "POSTDERIVED"});
  return archive(
      inside_metric(test::anchor_xml(spec), "hostile", "<cubepl>" + expression + "</cubepl>"));
}

// A sum of 30,000 terms is one flat node (issue 24), evaluated like CubeLib does, by the engine
// and by cube_dump. Time per call path, exclusive: 1.5 + 2.5, 3 + 4, 0.25 + 0.75.
TEST_F(HostileInput, LongExpressionInAReportEvaluates) {
  std::string sum = "metric::time()";
  for (int i = 1; i <= 30000; ++i) sum += " + " + std::to_string(i);
  sum += " - 450015000";  // 1 + … + 30000, so the value is time itself
  const std::string path = write("sum.cubex", derived_report(sum));
  const Report report = Report::open(path);
  MetricEngine engine(report);
  const Index hostile = 2;
  EXPECT_EQ(engine.aggregated_values(hostile, kInclusiveFlavour, kExclusiveFlavour).scalar(0), 4.0);
  const auto r = test::run_tool("cube_dump",
                                {"-m", "hostile", "-z", "excl", "-t", "aggr", "-s", "csv2", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Cnode ID,hostile\n0,4\n1,7\n2,1\n");
}

// Real nesting is still bounded: 100,000 parentheses in a report are an error, not a crash.
TEST_F(HostileInput, DeeplyNestedExpressionInAReportIsAnError) {
  const std::string nested = std::string(100000, '(') + "1" + std::string(100000, ')');
  const std::string path = write("nested.cubex", derived_report(nested));
  const Report report = Report::open(path);
  try {
    MetricEngine engine(report);
    ADD_FAILURE() << "compiled";
  } catch (const CubePLError& e) {
    // The 600th '(' opens the 601st level (the whole text is the first).
    EXPECT_EQ(std::string(e.what()),
              "metric 'hostile', expression: 1:601: expression nested too deeply");
  }
  const auto r = test::run_tool("cube_dump", {"-m", "time", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "cube_dump: metric 'hostile', expression: 1:601: expression nested too deeply\n");
}

// Evaluating a metric recurses into the metrics it references: the heights add up along a
// chain, and a chain too deep is refused like one deep expression.
TEST_F(HostileInput, DerivedMetricChainsAreBounded) {
  AnchorSpec spec;
  constexpr int kChain = 200;  // each link costs 1 (its expression) + 10 (the reference)
  for (int i = 0; i < kChain; ++i)
    spec.metrics.push_back(
        {static_cast<uint32_t>(2 + i), "d" + std::to_string(i), "DOUBLE", "POSTDERIVED"});
  std::string anchor = test::anchor_xml(spec);
  for (int i = 0; i < kChain; ++i)
    anchor = inside_metric(anchor, "d" + std::to_string(i),
                           i == 0 ? "<cubepl>metric::time()</cubepl>"
                                  : "<cubepl>metric::d" + std::to_string(i - 1) + "()</cubepl>");
  const Report report = Report::open(write("chain.cubex", archive(anchor)));
  try {
    MetricEngine engine(report);
    ADD_FAILURE() << "a chain of " << kChain << " derived metrics was accepted";
  } catch (const CubePLError& e) {
    // d0 costs 1, each further link 11: d91 is the first above 1000 (1 + 91 * 11 = 1002).
    EXPECT_EQ(std::string(e.what()),
              "derived metric 'd91': its expression and those of the metrics it references "
              "nest 1002 operations deep, more than 1000");
  }
}

// The tallest chain accepted evaluates (on the test's default stack, under ASan too).
TEST_F(HostileInput, DerivedMetricChainAtTheBoundEvaluates) {
  AnchorSpec spec;
  constexpr int kChain = 91;  // 1 + 90 * 11 = 991
  for (int i = 0; i < kChain; ++i)
    spec.metrics.push_back(
        {static_cast<uint32_t>(2 + i), "d" + std::to_string(i), "DOUBLE", "POSTDERIVED"});
  std::string anchor = test::anchor_xml(spec);
  for (int i = 0; i < kChain; ++i)
    anchor = inside_metric(anchor, "d" + std::to_string(i),
                           i == 0 ? "<cubepl>metric::time()</cubepl>"
                                  : "<cubepl>metric::d" + std::to_string(i - 1) + "()</cubepl>");
  const Report report = Report::open(write("chain.cubex", archive(anchor)));
  MetricEngine engine(report);
  const Index last = *report.model().metric_by_uniq_name("d90");
  // time inclusive over both locations: 1.5 + 2.5 + 3 + 4 + 0.25 + 0.75 = 12.
  const Values v = engine.aggregated_values(last, kInclusiveFlavour, kInclusiveFlavour);
  EXPECT_EQ(v.scalar(0), 12.0);
}

// env() in a report's own expressions reads nothing unless the user allows it.
TEST_F(HostileInput, EnvInAReportNeedsTheUsersConsent) {
  ::setenv("CUBEKIT_TEST_SECRET", "42", 1);
  // CubePL strings are no numbers: compare (cubepl.md §4.1).
  const std::string path = write(
      "env.cubex",
      derived_report("{ ${r} = 0; if (env(\"CUBEKIT_TEST_SECRET\") eq \"42\") { ${r} = 42; }; "
                     "return ${r}; }"));
  const Report report = Report::open(path);
  const Index hostile = 2;
  MetricEngineOptions refused;
  refused.report_env = false;
  MetricEngine closed(report, {}, refused);
  EXPECT_EQ(closed.aggregated_values(hostile, kInclusiveFlavour, kInclusiveFlavour).scalar(0), 0.0);
  ASSERT_EQ(closed.warnings().size(), 1u);
  EXPECT_EQ(closed.warnings()[0],
            "1:17: env() gives \"\" here: expressions stored in a report do not read the "
            "environment unless CUBEKIT_CUBEPL_ENV=1");
  MetricEngineOptions allowed;
  allowed.report_env = true;
  MetricEngine open(report, {}, allowed);
  EXPECT_EQ(open.aggregated_values(hostile, kInclusiveFlavour, kInclusiveFlavour).scalar(0), 42.0);
  // The user's own expression (cube_dump -m) reads it whatever the report's setting.
  MetricEngine own(
      report,
      {{"mine",
        "{ ${r} = 0; if (env(\"CUBEKIT_TEST_SECRET\") eq \"42\") { ${r} = 43; }; return ${r}; }"}},
      refused);
  EXPECT_EQ(own.aggregated_values(3, kInclusiveFlavour, kInclusiveFlavour).scalar(0), 43.0);
  // The tools: off by default, on with CUBEKIT_CUBEPL_ENV=1.
  const std::vector<std::string> args = {"-m", "hostile", "-t", "aggr", "-s", "csv2", path};
  EXPECT_EQ(test::run_tool("cube_dump", args).out, "Cnode ID,hostile\n0,0\n1,0\n2,0\n");
  test::RunLimits consent;
  consent.env = {{"CUBEKIT_CUBEPL_ENV", "1"}};
  EXPECT_EQ(test::run_tool("cube_dump", args, consent).out, "Cnode ID,hostile\n0,42\n1,42\n2,42\n");
  ::unsetenv("CUBEKIT_TEST_SECRET");
}

// cube_remap2 -d computes a spec's derived metrics and stores them: env() reads the
// environment when the user named the spec with -r, and gives "" when the spec came inside the
// report (remapping.spec member).
TEST_F(HostileInput, EnvInARemapSpecNeedsTheUsersFile) {
  const std::string spec =
      "<metrics>\n<metric type=\"POSTDERIVED\"><disp_name>secret</disp_name>"
      "<uniq_name>secret</uniq_name><dtype>DOUBLE</dtype><uom></uom><url></url><descr></descr>"
      "<cubepl>{ ${r} = 0; if (env(\"CUBEKIT_TEST_SECRET\") eq \"42\") { ${r} = 42; }; "
      "return ${r}; }</cubepl></metric>\n</metrics>\n";
  TarBuilder t;
  t.add("0.data",
        test::plain_data(test::encode_values(std::vector<double>{1.5, 2.5, 3.0, 4.0, 0.25, 0.75})))
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(test::encode_values(std::vector<uint64_t>{1, 2, 7, 9})))
      .add("1.index", test::sparse_index({0, 2}))
      .add("remapping.spec", spec)
      .add("anchor.xml", test::anchor_xml());
  const std::string input = write("in.cubex", t.finish());
  const std::string spec_file = write("user.spec", spec);
  test::RunLimits secret;
  secret.env = {{"CUBEKIT_TEST_SECRET", "42"}};
  const std::string from_user = (dir_.path() / "user").string();
  const std::string from_report = (dir_.path() / "embedded").string();
  auto r = test::run_tool("cube_remap2", {"-d", "-r", spec_file, "-o", from_user, input}, secret);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_tool("cube_remap2", {"-d", "-o", from_report, input}, secret);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> args = {"-m", "secret", "-z", "incl", "-t", "aggr", "-s", "csv2"};
  auto dump = [&](const std::string& report) {
    std::vector<std::string> a = args;
    a.push_back(report + ".cubex");
    return test::run_tool("cube_dump", a, secret).out;
  };
  // Stored by -d: the constant at every call path and location, 2 locations: 84 inclusive.
  EXPECT_EQ(dump(from_user), "Cnode ID,secret\n0,84\n1,84\n2,84\n");
  EXPECT_EQ(dump(from_report), "Cnode ID,secret\n0,0\n1,0\n2,0\n");
}

// ---------------------------------------------------------------------------------------
// Sub-metrics of another type

// time (DOUBLE) gets visits as its sub-metric, of dtype `child_dtype`.
std::string typed_child_report(const std::string& child_dtype, const std::string& child_data) {
  AnchorSpec spec;
  spec.metrics[1].dtype = child_dtype;
  std::string anchor = test::anchor_xml(spec);
  // Move the visits element into time's.
  const size_t time_end = anchor.find("</metric>");
  anchor.erase(time_end, 9);
  anchor.insert(anchor.find("</metrics>"), "</metric>\n");
  TarBuilder t;
  t.add("0.data",
        test::plain_data(test::encode_values(std::vector<double>{1.5, 2.5, 3.0, 4.0, 0.25, 0.75})))
      .add("0.index", test::dense_index())
      .add("1.data", test::plain_data(child_data))
      .add("1.index", test::sparse_index({0, 2}))
      .add("anchor.xml", anchor);
  return t.finish();
}

TEST_F(HostileInput, SubMetricOfAnotherNumberTypeIsConverted) {
  const std::string path =
      write("int.cubex",
            typed_child_report("UINT64", test::encode_values(std::vector<uint64_t>{1, 2, 7, 9})));
  const Report report = Report::open(path);
  MetricEngine engine(report);
  // main, location 0 and 1, call-exclusive: time 1.5, 2.5 minus visits 1, 2.
  const Values v = engine.location_values(0, 0, kExclusiveFlavour, kExclusiveFlavour);
  EXPECT_EQ(v.scalar(0), 0.5);
  EXPECT_EQ(v.scalar(1), 0.5);
  // Aggregated, call-inclusive: time [12, 7, 1] minus visits [19, 0, 16].
  const Values a = engine.aggregated_values(0, kExclusiveFlavour, kInclusiveFlavour);
  EXPECT_EQ(a.scalar(0), -7.0);
  EXPECT_EQ(a.scalar(1), 7.0);
  EXPECT_EQ(a.scalar(2), -15.0);
}

TEST_F(HostileInput, SubMetricOfAnotherKindIsRefused) {
  const std::string path =
      write("min.cubex",
            typed_child_report("MINDOUBLE", test::encode_values(std::vector<double>{1, 2, 7, 9})));
  const Report report = Report::open(path);
  const std::string message = path +
                              ": metric 'time' (dtype DOUBLE) has the sub-metric 'visits' of "
                              "dtype MINDOUBLE: its exclusive values would subtract values of "
                              "another kind";
  MetricEngine engine(report);
  try {
    engine.location_values(0, 0, kExclusiveFlavour, kExclusiveFlavour);
    ADD_FAILURE() << "subtracted";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
  // Metric-inclusive values do not subtract: they stay available.
  EXPECT_EQ(engine.location_values(0, 0, kInclusiveFlavour, kExclusiveFlavour).scalar(0), 1.5);
  const auto r = test::run_tool("cube_dump", {"-m", "time", "-x", "excl", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "cube_dump: " + message + "\n");
}

// ---------------------------------------------------------------------------------------
// gzip input is handed to zlib in pieces (its counters are 32 bits wide)

std::string gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(GzipPieces, EveryPieceSizeGivesTheSameText) {
  std::string text;
  for (int i = 0; i < 40000; ++i) text += std::to_string(i * 7919 % 10007) + ",";
  const std::string packed = gzip(text);
  const auto bytes = std::as_bytes(std::span(packed.data(), packed.size()));
  for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, packed.size() - 1, packed.size()})
    EXPECT_EQ(format::gunzip(bytes, "t.gz", piece), text) << "pieces of " << piece;
  EXPECT_EQ(format::gunzip(bytes, "t.gz"), text);
  // A truncated stream is still noticed when it arrives in pieces.
  for (size_t piece : {size_t{3}, packed.size()}) {
    try {
      format::gunzip(bytes.first(packed.size() / 2), "t.gz", piece);
      ADD_FAILURE() << "truncated stream accepted";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("t.gz: gzip stream truncated after"), std::string::npos)
          << e.what();
    }
  }
}

// ---------------------------------------------------------------------------------------
// Any exception ends a tool with a message and exit status 1

// The entry point of every tool (src/cli/main.cpp) runs it through run_guarded.
TEST(RunGuarded, AnyExceptionEndsWithOneLineAndStatusOne) {
  auto run = [](auto&& main) {
    ::testing::internal::CaptureStderr();
    const int rc = cli::run_guarded("cube_x", main);
    return std::make_pair(rc, ::testing::internal::GetCapturedStderr());
  };
  using Result = std::pair<int, std::string>;
  EXPECT_EQ(run([] { return 0; }), (Result{0, ""}));
  EXPECT_EQ(run([]() -> int { throw std::bad_alloc(); }), (Result{1, "cube_x: out of memory\n"}));
  EXPECT_EQ(run([]() -> int { throw std::length_error("vector::reserve"); }),
            (Result{1, "cube_x: vector::reserve\n"}));
  EXPECT_EQ(run([]() -> int { throw 7; }),
            (Result{1, "cube_x: unexpected error (not a std::exception)\n"}));
}

}  // namespace
}  // namespace cubekit
