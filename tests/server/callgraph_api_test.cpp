// /api/v1/callgraph and /api/v1/flat's `top` on a small report whose sums are worked out by
// hand: the call tree of unit/call_graph_test.cpp (a region defined twice under one name, a
// region calling itself), one location, exclusive time 1, 2, 4, ... per call path.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

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
  ServerOptions options() {
    auto model = std::make_shared<Model>();
    test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
    test::add_regions_and_calls(*model, {"main", "foo", "bar", "foo", "baz"},
                                {0, 1, 2, 3, 1, 4, 2, 4}, {kNoIndex, 0, 1, 2, 3, 2, 0, 6});
    test::add_one_machine(*model, {1});
    const double time[] = {1, 2, 4, 8, 16, 128, 32, 64};
    test::write_first_metric((dir.path() / "r.cubex").string(), model, time);
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

TEST(CallGraphApi, FlatProfileTopRows) {
  SmallServer s;
  // Exclusive time per region: main 1, foo#1 2 + 16, bar 4 + 32, foo#3 8, baz 128 + 64.
  // Subroutines (each call path below the region's own of another region, once): bar 8 + 16
  // + 128 below call path 2 and 64 below 6 = 216; foo#1 4 + 8 + 128 = 140.
  const json top = s.get("flat?report=r.cubex&metric=time&top=3");
  EXPECT_EQ(top["rows"], 5);
  const json regions = {
      {{"id", 4}, {"name", "baz"}, {"excl", 192.0}, {"incl", 192.0}, {"subroutines", 0.0}},
      {{"id", 2}, {"name", "bar"}, {"excl", 36.0}, {"incl", 252.0}, {"subroutines", 216.0}},
      {{"id", 1}, {"name", "foo"}, {"excl", 18.0}, {"incl", 158.0}, {"subroutines", 140.0}}};
  EXPECT_EQ(top["regions"], regions);
  EXPECT_EQ(s.get("flat?report=r.cubex&metric=time&top=50")["regions"].size(), 5u);
  // Without `top`: every region in region order, and no row count.
  const json all = s.get("flat?report=r.cubex&metric=time");
  ASSERT_EQ(all["regions"].size(), 5u);
  EXPECT_EQ(all["regions"][3]["excl"], 8.0);
  EXPECT_FALSE(all.contains("rows"));
  EXPECT_EQ(s.server.get("/api/v1/flat?report=r.cubex&metric=time&top=0").first, 400);
  EXPECT_EQ(s.server.get("/api/v1/flat?report=r.cubex&metric=time&top=-1").first, 400);
}

}  // namespace
}  // namespace cubekit
