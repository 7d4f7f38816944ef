// /api/v1/callgraph, /api/v1/flat's `top`, /api/v1/flame, /api/v1/path, /api/v1/diff's `top` and
// `cnodes`, /api/v1/values' `top` and /api/v1/children's `params` on a small report whose
// sums are worked out by hand: the call tree of unit/call_graph_test.cpp (a region defined twice
// under one name, a region calling itself), one location, exclusive time 1, 2, 4, ... per call
// path.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cubekit/pop.hpp"
#include "server/http_error.hpp"
#include "server/report_cache.hpp"
#include "server/running_server.hpp"
#include "test_support.hpp"
#include "unit/small_model.hpp"

namespace cubekit {
namespace {

using nlohmann::json;

// Regions main (id 0), foo (1), bar (2), foo (3), baz (4); call paths in pre-order with their
// exclusive time (inclusive in brackets):
//   0 main 1 (255) → 1 foo#1 2 (158) → 2 bar 4 (156) → 3 foo#3 8 (24) → 4 foo#1 16 (16)
//                                                    → 5 baz 128 (128)
//                  → 6 bar 32 (96) → 7 baz 64 (64)
struct SmallServer {
  SmallServer() : dir("callgraph"), server(options()) {}
  // r.cubex: `time` (DOUBLE); m.cubex: the same values as `max_time` (MAXDOUBLE).
  ServerOptions options() {
    for (const auto& [file, metric, dtype] : {std::tuple{"r.cubex", "time", "DOUBLE"},
                                              std::tuple{"m.cubex", "max_time", "MAXDOUBLE"}}) {
      auto model = std::make_shared<Model>();
      test::add_metric(*model, metric, dtype, MetricKind::kExclusive);
      test::add_two_foo_call_tree(*model);
      test::add_one_machine(*model, {1});
      const double time[] = {1, 2, 4, 8, 16, 128, 32, 64};
      test::write_first_metric((dir.path() / file).string(), model, time);
    }
    ServerOptions o;
    o.root = dir.path();
    return o;
  }
  json get(const std::string& query) const {
    const auto [status, body] = server.get("/api/v1/" + query);
    EXPECT_EQ(status, 200) << query << ": " << body.dump();
    return body;
  }
  test::TempDir dir;
  test::RunningServer server;
};

TEST(CallGraphApi, TheHeaviestRegionsAndTheirCalls) {
  SmallServer s;
  // Regions by inclusive time: main 255, bar 4 + 24 + 128 + 96 = 252, baz 192, foo 158 + 24
  // (not the 16 of foo under foo) = 182. With three regions, foo and its calls are left out.
  const json g = s.get("callgraph?report=r.cubex&metric=time&regions=3");
  EXPECT_EQ(g["metric"], "time");
  EXPECT_EQ(g["region_count"], 4);
  EXPECT_EQ(g["call_count"], 6);  // main→foo, foo→bar, bar→foo, foo→foo, bar→baz, main→bar
  const json regions = {{{"name", "main"}, {"excl", 1.0}, {"incl", 255.0}, {"top", 0}},
                        {{"name", "bar"}, {"excl", 36.0}, {"incl", 252.0}, {"top", 2}},
                        {{"name", "baz"}, {"excl", 192.0}, {"incl", 192.0}, {"top", 5}}};
  EXPECT_EQ(g["regions"], regions);
  const json calls = {{{"from", "bar"}, {"to", "baz"}, {"value", 192.0}, {"call_paths", 2}},
                      {{"from", "main"}, {"to", "bar"}, {"value", 96.0}, {"call_paths", 1}}};
  EXPECT_EQ(g["calls"], calls);
  // All regions, two calls asked for: each region's largest incoming call comes first anyway.
  const json all = s.get("callgraph?report=r.cubex&metric=time&calls=2");
  ASSERT_EQ(all["regions"].size(), 4u);
  EXPECT_EQ(all["regions"][3]["name"], "foo");
  EXPECT_EQ(all["regions"][3]["excl"], 26.0);  // 2 + 8 + 16: both foo are one region
  EXPECT_EQ(all["regions"][3]["top"], 1);
  ASSERT_EQ(all["calls"].size(), 3u);
  EXPECT_EQ(all["calls"][1]["from"], "main");
  EXPECT_EQ(all["calls"][1]["to"], "foo");
  EXPECT_EQ(all["calls"][1]["value"], 158.0);
  EXPECT_EQ(all["calls"][2]["from"], "foo");
  EXPECT_EQ(all["calls"][2]["to"], "bar");
  // Visits of a metric the report lacks, and counts out of range, are refused.
  EXPECT_EQ(s.server.get("/api/v1/callgraph?report=r.cubex&metric=visits").first, 400);
  EXPECT_EQ(s.server.get("/api/v1/callgraph?report=r.cubex&metric=time&regions=0").first, 400);
  EXPECT_EQ(s.server.get("/api/v1/callgraph?report=r.cubex&metric=time&calls=x").first, 400);
}

// The shape is computed when a report opens, before any /callgraph asks for it (the viewer's
// call graph tab then only sums): regions by name in the order of their first call path.
TEST(CallGraphApi, TheShapeIsComputedWhenTheReportOpens) {
  SmallServer s;
  server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  server::ReportCache cache(uint64_t{1} << 30, budget);
  const auto report = cache.get(s.dir.path() / "r.cubex", "r.cubex");
  for (int i = 0; i < 500 && !report->has_call_graph_shape(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(report->has_call_graph_shape());
  const auto shape = report->call_graph_shape();
  EXPECT_EQ(shape->names, (std::vector<std::string>{"main", "foo", "bar", "baz"}));
  EXPECT_EQ(shape->region_of, (std::vector<uint32_t>{0, 1, 2, 1, 1, 3, 2, 3}));
}

// The flat profile's regions of `metric` in `report`, its `top` rows (all without): every
// region of the call tree (5) in region order and no row count without `top`; with it, at most
// `top` of them and the row count, 5, whatever `top` is.
json flat_regions(const SmallServer& s, const std::string& report, const std::string& metric,
                  size_t top = 0) {
  const json flat = s.get("flat?report=" + report + "&metric=" + metric +
                          (top > 0 ? "&top=" + std::to_string(top) : ""));
  if (top > 0) {
    EXPECT_EQ(flat["rows"], 5) << report << " top " << top;
  } else {
    EXPECT_FALSE(flat.contains("rows")) << report;
  }
  EXPECT_EQ(flat["regions"].size(), top > 0 ? std::min<size_t>(top, 5) : 5) << report;
  return flat["regions"];
}

TEST(CallGraphApi, FlatProfileTopRows) {
  SmallServer s;
  // Exclusive time per region: main 1, foo#1 2 + 16, bar 4 + 32, foo#3 8, baz 128 + 64.
  // Subroutines (each call path below the region's own of another region, once): bar 8 + 16
  // + 128 below call path 2 and 64 below 6 = 216; foo#1 4 + 8 + 128 = 140.
  const json regions = {
      {{"id", 4}, {"name", "baz"}, {"excl", 192.0}, {"incl", 192.0}, {"subroutines", 0.0}},
      {{"id", 2}, {"name", "bar"}, {"excl", 36.0}, {"incl", 252.0}, {"subroutines", 216.0}},
      {{"id", 1}, {"name", "foo"}, {"excl", 18.0}, {"incl", 158.0}, {"subroutines", 140.0}}};
  EXPECT_EQ(flat_regions(s, "r.cubex", "time", 3), regions);
  flat_regions(s, "r.cubex", "time", 50);
  const json all = flat_regions(s, "r.cubex", "time");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[3]["excl"], 8.0);
  EXPECT_EQ(s.server.get("/api/v1/flat?report=r.cubex&metric=time&top=0").first, 400);
  EXPECT_EQ(s.server.get("/api/v1/flat?report=r.cubex&metric=time&top=-1").first, 400);
}

// A MAXDOUBLE metric's flat profile: each value the largest of its call paths', "incl" the
// larger of exclusive and subroutines (not their sum), and null where nothing adds (baz calls
// nothing: CubeLib's cube_dump -r prints "0." there; the empty maximum, -DBL_MAX, is no value).
TEST(CallGraphApi, FlatProfileOfAMaximumHasNoValueWhereNothingAdds) {
  SmallServer s;
  const json all = flat_regions(s, "m.cubex", "max_time");
  ASSERT_EQ(all.size(), 5u);
  const auto row = [&](int id) { return all[id]; };
  // main: 1; below it every other call path, the largest 128 (baz under bar).
  EXPECT_EQ(row(0)["excl"], 1.0);
  EXPECT_EQ(row(0)["subroutines"], 128.0);
  EXPECT_EQ(row(0)["incl"], 128.0);
  // foo (1): call paths 1 and 4, max 16; below call path 1 of other regions: 4, 8, 128.
  EXPECT_EQ(row(1)["excl"], 16.0);
  EXPECT_EQ(row(1)["subroutines"], 128.0);
  // bar: call paths 2 and 6, max 32; below them 8, 16, 128 and 64.
  EXPECT_EQ(row(2)["excl"], 32.0);
  EXPECT_EQ(row(2)["incl"], 128.0);
  // foo (3): 8; below it foo (1)'s 16.
  EXPECT_EQ(row(3)["excl"], 8.0);
  EXPECT_EQ(row(3)["subroutines"], 16.0);
  EXPECT_EQ(row(3)["incl"], 16.0);
  // baz: 128 and 64, nothing below.
  EXPECT_EQ(row(4)["excl"], 128.0);
  EXPECT_TRUE(row(4)["subroutines"].is_null()) << row(4);
  EXPECT_EQ(row(4)["incl"], 128.0);
  // `top` orders by exclusive value.
  const json top = flat_regions(s, "m.cubex", "max_time", 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0]["name"], "baz");
  EXPECT_EQ(top[1]["name"], "bar");
}

// The flame graph's boxes: call paths of at least `min_extent` of `extent`, placed as the
// viewer draws them (the extent of a call path is its share of the roots' 255).
TEST(FlameApi, TheBoxesWideEnoughWithTheirPlaces) {
  SmallServer s;
  const json f = s.get("flame?report=r.cubex&metric=time&extent=255&min_extent=20");
  EXPECT_EQ(f["metric"], "time");
  EXPECT_EQ(f["total"], 255.0);
  EXPECT_EQ(f["call_paths"], 8);
  // Call path 4 (16) is narrower than 20 and left out; 5 comes after 3 (24) under bar.
  struct Box {
    int id;
    const char* name;
    int depth;
    double start, extent;
  };
  const std::vector<Box> expected = {
      {0, "main", 0, 0, 255}, {1, "foo", 1, 0, 158},  {2, "bar", 2, 0, 156}, {3, "foo", 3, 0, 24},
      {5, "baz", 3, 24, 128}, {6, "bar", 1, 158, 96}, {7, "baz", 2, 158, 64}};
  const json parents = {nullptr, 0, 1, 2, 3, 2, 0, 6};
  ASSERT_EQ(f["boxes"].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const json& b = f["boxes"][i];
    const Box& e = expected[i];
    EXPECT_EQ(b["id"], e.id);
    EXPECT_EQ(b["parent"], parents[e.id]);
    EXPECT_EQ(b["name"], e.name);
    EXPECT_EQ(b["depth"], e.depth);
    EXPECT_DOUBLE_EQ(b["start"].get<double>(), e.start) << e.id;
    EXPECT_DOUBLE_EQ(b["extent"].get<double>(), e.extent) << e.id;
    EXPECT_EQ(b["incl"], e.extent) << e.id;  // extent 255: the inclusive value itself
  }
  // At 25, call path 3 (24) is left out too, and depth 2 cuts 3 and 5: main, foo, bar, bar, baz.
  const json shallow = s.get("flame?report=r.cubex&metric=time&extent=255&min_extent=25&depth=2");
  std::vector<int> ids;
  for (const json& b : shallow["boxes"]) ids.push_back(b["id"]);
  EXPECT_EQ(ids, (std::vector<int>{0, 1, 2, 6, 7}));
  // Shares of 1 with the default minimum of 0.5: main 1, foo 158/255, bar 156/255 and baz
  // 128/255, whose place is after foo's 24/255.
  const json shares = s.get("flame?report=r.cubex&metric=time&extent=1");
  ASSERT_EQ(shares["boxes"].size(), 4u);
  EXPECT_EQ(shares["boxes"][3]["id"], 5);
  EXPECT_DOUBLE_EQ(shares["boxes"][3]["start"].get<double>(), 24.0 / 255);
  // Bad parameters are refused with 400.
  for (const char* bad : {"", "&extent=0", "&extent=-3", "&extent=x", "&extent=1&min_extent=0",
                          "&extent=1&depth=1001", "&extent=1&depth=-1", "&extent=nan"})
    EXPECT_EQ(s.server.get(std::string("/api/v1/flame?report=r.cubex&metric=time") + bad).first,
              400)
        << bad;
}

TEST(FlameApi, PathOfACallPath) {
  SmallServer s;
  EXPECT_EQ(s.get("path?report=r.cubex&cnode=4")["path"], json::array({0, 1, 2, 3, 4}));
  EXPECT_EQ(s.get("path?report=r.cubex&cnode=0")["path"], json::array({0}));
  EXPECT_EQ(s.server.get("/api/v1/path?report=r.cubex&cnode=99").first, 404);
  EXPECT_EQ(s.server.get("/api/v1/path?report=r.cubex").first, 400);
}

// Report b: main 1 (15) → foo 2 (6) → bar 4 (4), main → qux 8 (8), qux the iteration
// "instance" 3 (a Score-P dynamic region's parameter).
void write_report_b(const std::filesystem::path& file) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  test::add_regions_and_calls(*model, {"main", "foo", "bar", "qux"}, {0, 1, 2, 3},
                              {kNoIndex, 0, 1, 0});
  model->cnodes[3].parameters.push_back({"numeric", "instance", "3"});
  test::add_one_machine(*model, {1});
  const double time[] = {1, 2, 4, 8};
  test::write_first_metric(file.string(), model, time);
}

json diff_row(const char* path, json a_cnode, json b_cnode, double a, double b) {
  return {{"path", path}, {"a_cnode", a_cnode}, {"b_cnode", b_cnode}, {"a", a},
          {"b", b},       {"diff", a - b}};
}

// Inclusive r − b by region path: main 255 − 15, main/foo 158 − 6, main/foo/bar 156 − 4, the rest
// of r against 0 (main/foo/bar/baz 128, main/bar 96, ...), main/qux 0 − 8.
TEST(DiffApi, TheRowsThatDifferMostAndTheRowsAskedFor) {
  SmallServer s;
  write_report_b(s.dir.path() / "b.cubex");
  const std::string q = "diff?a=r.cubex&b=b.cubex&metric=time&calltree=incl";
  EXPECT_EQ(s.get(q)["values"].size(), 9u);  // r's 8 call paths and b's main/qux
  // 152 twice: the earlier row first.
  const json top = {diff_row("main", 0, 0, 255, 15), diff_row("main/foo", 1, 1, 158, 6),
                    diff_row("main/foo/bar", 2, 2, 156, 4),
                    diff_row("main/foo/bar/baz", 5, nullptr, 128, 0)};
  EXPECT_EQ(s.get(q + "&top=4")["values"], top);
  // Only r's call paths of the list, in its order; b's main/qux is none of them.
  const json listed = {diff_row("main/bar", 6, nullptr, 96, 0),
                       diff_row("main/foo/bar/foo", 3, nullptr, 24, 0),
                       diff_row("main/foo/bar", 2, 2, 156, 4)};
  EXPECT_EQ(s.get(q + "&cnodes=6,3,2")["values"], listed);
  // The other way round: differences below 0 count by their size.
  EXPECT_EQ(s.get("diff?a=b.cubex&b=r.cubex&metric=time&calltree=incl&top=2")["values"],
            json({diff_row("main", 0, 0, 15, 255), diff_row("main/foo", 1, 1, 6, 158)}));
  EXPECT_EQ(s.server.get("/api/v1/" + q + "&top=0").first, 400);
  EXPECT_EQ(s.server.get("/api/v1/" + q + "&cnodes=99").first, 404);
}

// How r's call paths match b's by region path, worked out from the trees above: main, main/foo
// and main/foo/bar are in both (ids 0, 1, 2 in each); b's main/qux (3) is in b only. The
// matching is kept: asked again, the same one comes back, and a diff then gives the same rows.
TEST(DiffApi, TheMatchingIsKeptPerPairOfReports) {
  SmallServer s;
  write_report_b(s.dir.path() / "b.cubex");
  server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  server::ReportCache cache(uint64_t{1} << 30, budget);
  const auto r = cache.get(s.dir.path() / "r.cubex", "r.cubex");
  const auto b = cache.get(s.dir.path() / "b.cubex", "b.cubex");
  const auto matching = r->matching(*b);
  EXPECT_EQ(matching->in_other,
            (std::vector<Index>{0, 1, 2, kNoIndex, kNoIndex, kNoIndex, kNoIndex, kNoIndex}));
  EXPECT_EQ(matching->only_in_other, std::vector<Index>{3});
  EXPECT_EQ(r->matching(*b), matching);
  const auto back = b->matching(*r);  // each direction its own
  EXPECT_EQ(back->in_other, (std::vector<Index>{0, 1, 2, kNoIndex}));
  EXPECT_EQ(back->only_in_other, (std::vector<Index>{3, 4, 5, 6, 7}));
  const std::string q = "diff?a=r.cubex&b=b.cubex&metric=time&calltree=incl&top=2";
  const json first = s.get(q)["values"];
  EXPECT_EQ(first, json({diff_row("main", 0, 0, 255, 15), diff_row("main/foo", 1, 1, 158, 6)}));
  EXPECT_EQ(s.get(q)["values"], first);
}

// A chain `depth` call paths deep (main → f → f → …), time 1 each.
void write_chain(const std::filesystem::path& file, size_t depth) {
  auto model = std::make_shared<Model>();
  test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
  std::vector<Index> region_of(depth, 1), parent_of(depth);
  region_of[0] = 0;
  for (size_t c = 0; c < depth; ++c) parent_of[c] = c == 0 ? kNoIndex : static_cast<Index>(c - 1);
  test::add_regions_and_calls(*model, {"main", "f"}, region_of, parent_of);
  test::add_one_machine(*model, {1});
  const std::vector<double> time(depth, 1.0);
  test::write_first_metric(file.string(), model, time.data());
}

// Recursions thousands of calls deep match level by level (their paths are not held: they
// grow as the square of the depth), and a row's path is spelled out when asked for.
TEST(DiffApi, DeepChainsMatchLevelByLevel) {
  test::TempDir dir("deep-diff");
  constexpr size_t kDepth = 20000;
  write_chain(dir.path() / "a.cubex", kDepth);
  write_chain(dir.path() / "b.cubex", kDepth - 1);
  server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  server::ReportCache cache(uint64_t{1} << 30, budget);
  const auto a = cache.get(dir.path() / "a.cubex", "a.cubex");
  const auto b = cache.get(dir.path() / "b.cubex", "b.cubex");
  const auto matching = a->matching(*b);
  std::vector<Index> expected(kDepth);
  for (size_t c = 0; c < kDepth; ++c) expected[c] = c + 1 < kDepth ? Index(c) : kNoIndex;
  EXPECT_EQ(matching->in_other, expected);
  EXPECT_TRUE(matching->only_in_other.empty());
  std::string deepest = "main";
  for (size_t c = 1; c < kDepth; ++c) deepest += "/f";
  EXPECT_EQ(a->region_paths()->path(a->model(), kDepth - 1), deepest);
  // Through the API: every row differs by 1 (b lacks the deepest call path), so the earliest
  // comes first; the rows asked for by id spell out their paths.
  SmallServer s;
  std::filesystem::copy_file(dir.path() / "a.cubex", s.dir.path() / "a.cubex");
  std::filesystem::copy_file(dir.path() / "b.cubex", s.dir.path() / "b.cubex");
  const std::string q = "diff?a=a.cubex&b=b.cubex&metric=time&calltree=incl";
  EXPECT_EQ(s.get(q + "&top=1")["values"],
            json::array({diff_row("main", 0, 0, double{kDepth}, double{kDepth - 1})}));
  EXPECT_EQ(s.get(q + "&cnodes=" + std::to_string(kDepth - 1))["values"],
            json::array({diff_row(deepest.c_str(), kDepth - 1, nullptr, 1, 0)}));
}

// What the viewer asks when a report opens (/diff's `prepare=1`): the likely partner opened,
// both reports' values decoded and kept, the matching made, before any /diff asks for rows;
// the kept matching is the one worked out above.
TEST(DiffApi, ThePartnerIsPreparedInAdvance) {
  SmallServer s;
  write_report_b(s.dir.path() / "b.cubex");
  server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  server::ReportCache cache(uint64_t{1} << 30, budget);
  const auto r = cache.get(s.dir.path() / "r.cubex", "r.cubex");
  const server::MetricQuery time{"time"};
  EXPECT_FALSE(cache.holds(s.dir.path() / "b.cubex"));
  ASSERT_TRUE(cache.prepare_diff(r, s.dir.path() / "b.cubex", "b.cubex", time));
  cache.wait_for_preparation();
  ASSERT_TRUE(cache.holds(s.dir.path() / "b.cubex"));
  const auto b = cache.get(s.dir.path() / "b.cubex", "b.cubex", /*start_background=*/false);
  // Only what /diff needs: the background work of an opened report waits until one opens it.
  EXPECT_FALSE(b->has_call_graph_shape());
  EXPECT_TRUE(r->has_aggregated(time));
  EXPECT_TRUE(b->has_aggregated(time));
  ASSERT_TRUE(r->has_matching(*b));
  EXPECT_EQ(r->matching(*b)->only_in_other, std::vector<Index>{3});
  EXPECT_EQ((*b->aggregated(time))[0], 15.0);  // b's main inclusive, as the diff rows above
  // Over HTTP: answered at once, and the rows come as without it.
  const json prepared = s.get("diff?a=r.cubex&b=b.cubex&metric=time&calltree=incl&prepare=1");
  EXPECT_EQ(prepared.size(), 1u);
  EXPECT_TRUE(prepared["preparing"].is_boolean());
  EXPECT_EQ(s.get("diff?a=r.cubex&b=b.cubex&metric=time&calltree=incl&top=1")["values"],
            json::array({diff_row("main", 0, 0, 255, 15)}));
}

// Preparing stays within bounds: a partner that does not fit the cache beside the open report
// is not opened (the open one is not closed for it), and values the budget has no room for are
// not decoded, without an error and without asking the caches to give memory back.
TEST(DiffApi, APreparationNeverEvictsNorClaimsWhatIsNotFree) {
  SmallServer s;
  s.get("reports");  // the server runs before it is stopped (stopped before, its run waits on)
  write_report_b(s.dir.path() / "b.cubex");
  const auto r_file = s.dir.path() / "r.cubex", b_file = s.dir.path() / "b.cubex";
  const server::MetricQuery time{"time"};
  {
    server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
    server::ReportCache small(
        std::filesystem::file_size(r_file) + std::filesystem::file_size(b_file) - 1, budget);
    const auto r = small.get(r_file, "r.cubex");
    ASSERT_TRUE(small.prepare_diff(r, b_file, "b.cubex", time));
    small.wait_for_preparation();
    EXPECT_FALSE(small.holds(b_file));
    EXPECT_TRUE(small.holds(r_file));
  }
  server::DecodeBudget none(uint64_t{1} << 30, 1);  // one byte: every decode refused
  int reclaimed = 0;
  none.set_reclaimer([&] { ++reclaimed; });
  server::ReportCache cache(uint64_t{1} << 30, none);
  const auto r = cache.get(r_file, "r.cubex");
  ASSERT_TRUE(cache.prepare_diff(r, b_file, "b.cubex", time));
  cache.wait_for_preparation();
  ASSERT_TRUE(cache.holds(b_file));  // opening is outside the decode budget
  const auto b = cache.get(b_file, "b.cubex");
  EXPECT_FALSE(r->has_aggregated(time));
  EXPECT_FALSE(b->has_aggregated(time));
  EXPECT_TRUE(r->has_matching(*b));  // the region paths are outside it too
  EXPECT_EQ(reclaimed, 0);
  EXPECT_EQ(none.in_use(), 0u);
  EXPECT_THROW(r->aggregated(time), server::HttpError);  // a request is refused: 503
  EXPECT_EQ(reclaimed, 1);
}

// POP metrics of the first root are computed when a report opens, before the viewer's POP tab
// asks (the MPI model, focus the root's id 0), and kept: the same numbers as pop_metrics on
// the file opened anew, which keeps nothing. One location that only computes: every
// efficiency 1 (100 %).
TEST(PopApi, TheFirstRootsAnswerIsComputedWhenTheReportOpens) {
  SmallServer s;
  server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  server::ReportCache cache(uint64_t{1} << 30, budget);
  const auto report = cache.get(s.dir.path() / "r.cubex", "r.cubex");
  const PopOptions question = server::first_root_pop_question(report->model());
  EXPECT_EQ(question.focus, std::vector<std::string>{"0"});
  EXPECT_EQ(question.model, PopModel::kMpi);
  for (int i = 0; i < 500 && !report->has_pop(question); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(report->has_pop(question));
  const auto kept = report->pop(question);
  EXPECT_EQ(report->pop(question), kept);
  const Report fresh = Report::open((s.dir.path() / "r.cubex").string());
  const std::vector<PopResult> direct = pop_metrics({&fresh}, question);
  ASSERT_EQ(kept->size(), 1u);
  ASSERT_EQ(direct.size(), 1u);
  EXPECT_EQ((*kept)[0].focus, "main");
  EXPECT_EQ((*kept)[0].call_paths, std::vector<uint32_t>{0});
  ASSERT_EQ((*kept)[0].values.size(), direct[0].values.size());
  for (size_t i = 0; i < direct[0].values.size(); ++i) {
    const PopValue &k = (*kept)[0].values[i], &d = direct[0].values[i];
    EXPECT_EQ(k.key, d.key);
    EXPECT_EQ(k.value, d.value) << k.key;
    EXPECT_EQ(k.missing, d.missing) << k.key;
  }
  const PopValue* parallel = (*kept)[0].find("parallel_efficiency");
  ASSERT_NE(parallel, nullptr);
  ASSERT_TRUE(parallel->value.has_value());
  EXPECT_DOUBLE_EQ(*parallel->value, 1.0);
  // Over HTTP the viewer's question gets the kept numbers; another model is computed then.
  const json pop = s.get("pop?report=r.cubex&focus=0");
  EXPECT_EQ(pop["results"][0]["focus"], "main");
  for (const json& v : pop["results"][0]["values"])
    EXPECT_TRUE(v["key"] != "parallel_efficiency" || v["value"] == 1.0) << v.dump();
  EXPECT_EQ(s.get("pop?report=r.cubex&focus=0&model=bsc")["results"].size(), 1u);
}

// Requests asking at once for a report not yet open: it is opened once, and all get it.
TEST(ReportCacheTest, AReportAskedForByManyAtOnceIsOpenedOnce) {
  SmallServer s;
  s.get("reports");  // the server runs before it is stopped (stopped before, its run waits on)
  server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  server::ReportCache cache(uint64_t{1} << 30, budget);
  std::vector<std::shared_ptr<server::OpenReport>> got(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = cache.get(s.dir.path() / "r.cubex", "r.cubex"); });
  for (std::thread& t : threads) t.join();
  for (const auto& r : got) EXPECT_EQ(r, got[0]);
  EXPECT_EQ(got[0]->model().cnodes.size(), 8u);
  // A file that is no report: every one of them gets the error (422), none a report.
  std::ofstream(s.dir.path() / "bad.cubex") << "not a report";
  for (int i = 0; i < 2; ++i)
    EXPECT_THROW(cache.get(s.dir.path() / "bad.cubex", "bad.cubex"), server::HttpError);
}

TEST(ValuesApi, TheLargestWithTheirNames) {
  SmallServer s;
  const json excl = s.get("values?report=r.cubex&metric=time&calltree=excl&top=3");
  EXPECT_EQ(excl["values"], json({{5, 128.0}, {7, 64.0}, {6, 32.0}}));
  EXPECT_EQ(excl["names"], json({"baz", "baz", "bar"}));
  const json incl = s.get("values?report=r.cubex&metric=time&calltree=incl&top=2");
  EXPECT_EQ(incl["values"], json({{0, 255.0}, {1, 158.0}}));
  EXPECT_EQ(incl["names"], json({"main", "foo"}));
  EXPECT_EQ(s.get("values?report=r.cubex&metric=time&top=100")["values"].size(), 8u);
  EXPECT_EQ(s.server.get("/api/v1/values?report=r.cubex&metric=time&top=0").first, 400);
}

TEST(ChildrenApi, ParametersOfTheCallPathsThatHaveThem) {
  SmallServer s;
  write_report_b(s.dir.path() / "b.cubex");
  const json kids = s.get("children?report=b.cubex&cnode=0")["cnodes"];
  ASSERT_EQ(kids.size(), 2u);
  EXPECT_EQ(kids[0]["name"], "foo");
  EXPECT_FALSE(kids[0].contains("params"));
  EXPECT_EQ(kids[1]["name"], "qux");
  EXPECT_EQ(kids[1]["params"], json::array({json::array({"instance", "3"})}));
}

}  // namespace
}  // namespace cubekit
