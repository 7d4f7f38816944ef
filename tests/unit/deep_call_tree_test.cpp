// A recursive program's call tree can be as deep as it has call paths. Every tool walks it
// without recursing on the thread's stack, and computes inclusive rows without streaming a
// metric once per call path (quadratic in a chain). The tools run here with their stack cut to
// 256 KiB, which 4,000 levels of any recursive walk overflow; the expected values are worked
// out by hand from the chain's own rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

using test::AnchorSpec;
using test::TarBuilder;

constexpr int kDepth = 4000;  // call paths, each the only callee of the one before
constexpr int kLocations = 2;

// main → bar → foo → bar → foo … (regions 0, 2, 1, 2, …): time 0.5 and one visit per call path and
// location, both stored exclusive.
std::string chain_report(int depth = kDepth) {
  std::string tree;
  for (int i = 0; i < depth; ++i)
    tree += "<cnode id=\"" + std::to_string(i) + "\" calleeId=\"" +
            std::to_string(i == 0 ? 0 : 1 + i % 2) + "\">\n";
  for (int i = 0; i < depth; ++i) tree += "</cnode>\n";
  AnchorSpec spec;
  spec.cnodes = tree;
  TarBuilder t;
  t.add("0.data",
        test::plain_data(test::encode_values(std::vector<double>(depth * kLocations, 0.5))))
      .add("0.index", test::dense_index())
      .add("1.data",
           test::plain_data(test::encode_values(std::vector<uint64_t>(depth * kLocations, 1))))
      .add("1.index", test::dense_index())
      .add("anchor.xml", test::anchor_xml(spec));
  return t.finish();
}

class DeepCallTree : public ::testing::Test {
 protected:
  void SetUp() override {
    chain_ = dir_.write("chain.cubex", chain_report());
    limits_.stack_bytes = 256u << 10;
  }
  test::RunResult run(const std::string& tool, const std::vector<std::string>& args) {
    return test::run_tool(tool, args, limits_);
  }
  std::string out(const std::string& name) const { return (dir_.path() / name).string(); }
  // `cube_dump -m metric -z incl -t aggr -s csv2` of `path`.
  std::string inclusive_csv(const std::string& metric, const std::string& path) {
    const auto r = run("cube_dump", {"-m", metric, "-z", "incl", "-t", "aggr", "-s", "csv2", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  // The CSV cube_dump prints for a chain whose call path i has value `per_level(i)`.
  template <class PerLevel>
  static std::string chain_csv(const std::string& metric, PerLevel per_level) {
    std::string csv = "Cnode ID," + metric + "\n";
    for (int i = 0; i < kDepth; ++i) csv += std::to_string(i) + "," + per_level(i) + "\n";
    return csv;
  }

  test::TempDir dir_{"deep-tree"};
  std::string chain_;
  test::RunLimits limits_;
};

// Inclusive visits of call path i: one per location at it and at each of the kDepth - i - 1
// call paths below it.
std::string inclusive_visits(int i) {
  return std::to_string(kLocations * (kDepth - i));
}

TEST_F(DeepCallTree, InclusifyStoresEachSubtreeSum) {
  const auto r = run("cube_inclusify", {"-o", out("incl"), chain_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(inclusive_csv("visits", out("incl_incl.cubex")), chain_csv("visits", inclusive_visits));
  // Stored inclusive now: its rows are the sums themselves.
  const Report report = Report::open(out("incl_incl.cubex"));
  EXPECT_EQ(stored_values(report, 1, 0).uint64(0), uint64_t{kDepth});
  EXPECT_EQ(stored_values(report, 1, kDepth - 1).uint64(1), 1u);
}

TEST_F(DeepCallTree, AlgebraUnifiesTheChain) {
  ASSERT_EQ(run("cube_diff", {"-o", out("diff.cubex"), chain_, chain_}).exit_code, 0);
  EXPECT_EQ(run("cube_is_empty", {out("diff.cubex")}).exit_code, 0);  // every value 0
  // The mean keeps every call path (its values are another matter: it drops process groups
  // that hang from a machine without a node, as the chain's do).
  ASSERT_EQ(run("cube_mean", {"-o", out("mean.cubex"), chain_, chain_}).exit_code, 0);
  const std::string mean = inclusive_csv("time", out("mean.cubex"));
  EXPECT_EQ(std::count(mean.begin(), mean.end(), '\n'), kDepth + 1);
  EXPECT_NE(mean.find("\n" + std::to_string(kDepth - 1) + ","), std::string::npos);
  ASSERT_EQ(run("cube_merge", {"-o", out("merge.cubex"), chain_, chain_}).exit_code, 0);
  EXPECT_EQ(inclusive_csv("visits", out("merge.cubex")), chain_csv("visits", inclusive_visits));
  for (const char* tool : {"cube_clean", "cube_exclusify"}) {
    const auto r = run(tool, {"-o", out(tool), chain_});
    EXPECT_EQ(r.exit_code, 0) << tool << ": " << r.err;
  }
}

// Pruning bar (main's callee) inlines everything below main into it: one call path holding
// all values.
TEST_F(DeepCallTree, CutPrunesTheWholeChain) {
  const auto r = run("cube_cut", {"-p", "bar", "-o", out("cut"), chain_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(inclusive_csv("visits", out("cut.cubex")),
            "Cnode ID,visits\n0," + std::to_string(kLocations * kDepth) + "\n");
}

TEST_F(DeepCallTree, SanityChecksEveryCallPath) {
  const auto r = run("cube_sanity", {chain_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string tests = std::to_string(2 * kDepth * kLocations);  // two metrics
  EXPECT_NE(r.out.find("No negative inclusive metrics ... " + tests + " / " + tests + " OK"),
            std::string::npos)
      << r.out;
}

// cube_info indents each level by " | ", as CubeLib does, however deep.
TEST_F(DeepCallTree, InfoPrintsEveryLevel) {
  const auto r = run("cube_info", {chain_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string deepest;
  for (int d = 0; d < kDepth - 1; ++d) deepest += " | ";
  const char* const regions[] = {"main", "foo", "bar"};
  deepest += std::string(" * ") + regions[1 + (kDepth - 1) % 2] + "\n";
  ASSERT_GE(r.out.size(), deepest.size());
  EXPECT_EQ(r.out.substr(r.out.size() - deepest.size()), deepest);
}

// cube_calltree pads every name to the longest (the text grows as the depth squared, so a
// shorter chain here) and with -c ends each line with the path, made when printed.
TEST_F(DeepCallTree, CalltreePrintsEachPath) {
  constexpr int kLevels = 500;
  const std::string chain = dir_.write("short.cubex", chain_report(kLevels));
  const auto r = run("cube_calltree", {"-c", chain});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string path = "/main";
  for (int i = 1; i < kLevels; ++i) path += i % 2 == 1 ? "/bar" : "/foo";
  const size_t width = 4 * (kLevels - 1) + 3;  // the deepest name: its bars, "  + ", "bar"
  std::string last;
  for (int d = 1; d < kLevels - 1; ++d) last += "  | ";
  last += "  + bar" + std::string(width + 4 - (last.size() + 7), ' ') + path + "\n";
  ASSERT_GE(r.out.size(), last.size());
  EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), kLevels);
}

// PERI-XML indents call paths two spaces a level down to level 64, then no further: the
// document stays linear in the call paths.
TEST_F(DeepCallTree, PeriXmlIndentationStopsAtLevel64) {
  const auto r = run("cube_export_peri", {"-o", out("chain.xml"), chain_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string xml = test::read_file(out("chain.xml"));
  const std::string pad(2 * 64, ' ');
  EXPECT_NE(xml.find("\n" + pad + "<cnode id=\"c" + std::to_string(kDepth - 1) + "\" ref=\"r"),
            std::string::npos);
  EXPECT_NE(xml.find("\n  <cnode id=\"c0\" ref=\"r0\">"), std::string::npos);
  EXPECT_NE(xml.find("\n" + std::string(2 * 63, ' ') + "<cnode id=\"c62\""), std::string::npos);
}

// Inclusive rows of a whole tree at once take the steps the engine takes for one call path:
// its own row, then its subtree's in pre-order. Values of very different magnitudes make any
// other order round differently.
TEST(InclusiveRows, SameBitsAsTheEngineCallPathByCallPath) {
  test::TempDir dir("inclusive-rows");
  constexpr int kCallPaths = 300;
  std::mt19937_64 rng(7);
  std::vector<int> parent(kCallPaths, -1);
  for (int c = 1; c < kCallPaths; ++c) parent[c] = static_cast<int>(rng() % c);
  // The forest as nested XML: children in id order, written depth first.
  std::vector<std::vector<int>> children(kCallPaths);
  for (int c = 1; c < kCallPaths; ++c) children[parent[c]].push_back(c);
  // Ids are positions in the pre-order, as the unified report numbers its call paths.
  std::string tree;
  std::vector<std::pair<int, bool>> pending{{0, false}};
  int next_id = 0;
  while (!pending.empty()) {
    const auto [c, close] = pending.back();
    pending.pop_back();
    if (close) {
      tree += "</cnode>\n";
      continue;
    }
    tree += "<cnode id=\"" + std::to_string(next_id++) + "\" calleeId=\"" + std::to_string(c % 3) +
            "\">\n";
    pending.push_back({c, true});
    for (auto it = children[c].rbegin(); it != children[c].rend(); ++it)
      pending.push_back({*it, false});
  }
  std::vector<double> time(kCallPaths * kLocations);
  for (double& v : time)
    v = std::ldexp(static_cast<double>(rng() % 1000 + 1), static_cast<int>(rng() % 80) - 40);
  AnchorSpec spec;
  spec.cnodes = tree;
  TarBuilder t;
  t.add("0.data", test::plain_data(test::encode_values(time)))
      .add("0.index", test::dense_index())
      .add("1.data",
           test::plain_data(test::encode_values(std::vector<uint64_t>(kCallPaths * kLocations, 1))))
      .add("1.index", test::dense_index())
      .add("anchor.xml", test::anchor_xml(spec));
  const std::string in = dir.write("tree.cubex", t.finish());
  const auto r = test::run_tool("cube_inclusify", {"-o", (dir.path() / "tree").string(), in});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Report original = Report::open(in);
  const Report inclusified = Report::open((dir.path() / "tree_incl.cubex").string());
  MetricEngine engine(original);
  for (Index c = 0; c < kCallPaths; ++c) {
    const Values expected = engine.location_values(0, c, Flavour::kInclusive, Flavour::kInclusive);
    const Values stored = stored_values(inclusified, 0, c);
    for (int l = 0; l < kLocations; ++l) {
      const double want = expected.number(l), got = stored.number(l);
      EXPECT_EQ(std::memcmp(&want, &got, sizeof want), 0)
          << "call path " << c << ", location " << l << ": " << got << " instead of " << want;
    }
  }
}

}  // namespace
}  // namespace cubekit
