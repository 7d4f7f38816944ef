// Requests that differ, at once: distinct CubePL expressions (each needs its own engine),
// every endpoint, report switches past the cache, clients that hang up or read slowly, and
// malformed requests. Every answer is checked against cube_dump's values of the same report
// (or is a clear 4xx / 503); the server stays up, its memory within the configured bounds, and
// nothing stays open afterwards. The size grows with CUBEKIT_SOAK_SCALE (bench/soak.sh).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cubekit/derived.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/report.hpp"
#include "server/known_reports.hpp"
#include "server/report_cache.hpp"
#include "server/running_server.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::agrees;
using cubekit::test::encode_param;
using cubekit::test::KnownReport;
using cubekit::test::make_known_report;
using cubekit::test::run_tool;
using cubekit::test::RunningServer;
using cubekit::test::soak_scale;
using cubekit::test::TempDir;
using nlohmann::json;

namespace {

std::string expression(int k) {
  return "metric::time(i)*" + std::to_string(k) + "+metric::visits(e)";
}

// Checks a /values answer of the whole call tree; "" when right.
std::string check_values(const json& body, const KnownReport& r, int k) {
  if (!body.contains("values")) return "no values: " + body.dump().substr(0, 200);
  size_t seen = 0;
  for (const json& pair : body["values"]) {
    const uint32_t cnode = pair[0].get<uint32_t>();
    const double got = pair[1].get<double>();
    const double want = k == 0 ? r.time_incl.at(cnode) : r.expression(cnode, k);
    if (!agrees(want, got))
      return r.name + " k=" + std::to_string(k) + " cnode " + std::to_string(cnode) + ": " +
             std::to_string(got) + " where cube_dump gives " + std::to_string(want);
    ++seen;
  }
  return seen == r.time_incl.size() ? "" : "wrong number of values";
}

// 400 requests with distinct expressions, 32 at a time, against one 6 MB report: each needs an
// engine of its own, and the server keeps at most 16 of them. It used to free an engine while
// another request was still evaluating with it.
TEST(ServerConcurrency, FourHundredDistinctExpressionsThirtyTwoAtATime) {
  TempDir dir("storm");
  const KnownReport r = make_known_report(dir.path(), "storm.cubex", 7, 2500, 10);
  ASSERT_GT(fs::file_size(dir.path() / r.name), 5u << 20);
  cubekit::ServerOptions o;
  o.root = dir.path();
  o.threads = 32;
  RunningServer server(o);
  const int requests = 400 * soak_scale();
  std::atomic<int> next{1}, right{0};
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  for (int t = 0; t < 32; ++t)
    clients.emplace_back([&] {
      auto client = server.client();
      for (int k; (k = next++) <= requests;) {
        const std::string endpoint = k % 4 == 0 ? "children" : "values";
        const auto res = client.Get("/api/v1/" + endpoint + "?report=" + r.name +
                                    "&metric=" + encode_param(expression(k)) + "&calltree=incl");
        std::string problem;
        if (!res) {
          problem = "no answer";
        } else if (res->status != 200) {
          problem = "status " + std::to_string(res->status) + ": " + res->body;
        } else if (endpoint == "values") {
          problem = check_values(json::parse(res->body), r, k);
        } else {
          const json body = json::parse(res->body);  // outlives the loop over its member
          for (const json& c : body["cnodes"])
            if (!agrees(r.expression(c["id"].get<uint32_t>(), k), c["incl"].get<double>()))
              problem = "children: cnode " + c["id"].dump() + " incl " + c["incl"].dump();
        }
        if (problem.empty()) {
          ++right;
        } else {
          std::lock_guard lock(failures_mutex);
          failures.push_back(problem);
        }
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(right.load(), requests) << (failures.empty() ? "" : failures.front());
  EXPECT_EQ(server.get("/api/v1/reports").first, 200);  // still up
}

// The same storm without HTTP, on OpenReport itself: engines in use survive their eviction,
// the list stays bounded, the budget holds what the caches keep and gets it all back.
TEST(ServerConcurrency, EnginesInUseOutliveTheirEvictionAndCachesReturnTheBudget) {
  TempDir dir("engines");
  const KnownReport r = make_known_report(dir.path(), "r.cubex", 3, 500, 2);
  cubekit::server::DecodeBudget budget(uint64_t{1} << 30, uint64_t{1} << 30);
  cubekit::server::OpenReport report(cubekit::Report::open((dir.path() / r.name).string()), r.name,
                                     budget);
  std::atomic<int> next{1}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int k; (k = next++) <= 200;) {
        const auto values = report.aggregated(
            {expression(k), cubekit::Flavour::kInclusive, cubekit::Flavour::kInclusive});
        const auto& cnodes = report.model().cnodes;
        for (size_t c = 0; c < cnodes.size(); ++c)
          if (!agrees(r.expression(cnodes[c].id, k), (*values)[c])) ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(report.cached_expression_engines(), cubekit::server::OpenReport::kMaxExpressionEngines);
  EXPECT_GT(budget.in_use(), 0u);  // cached answers and engines' rows hold their claims
  report.drop_caches();
  EXPECT_EQ(budget.in_use(), 0u);
}

// Eight requests for one answer at once, on a budget of one decode: one decodes, the others
// wait for its answer (a viewer's click asks for one metric in several requests at once).
// Decoding beside it, each would claim the budget again and be refused (503).
TEST(ServerConcurrency, RequestsForOneAnswerAtOnceDecodeItOnce) {
  TempDir dir("one-answer");
  cubekit::GeneratorOptions o;
  o.call_paths = 20000;
  o.threads_per_process = 8;
  const fs::path path = dir.path() / "r.cubex";
  cubekit::generate_report(path.string(), o);
  cubekit::Report opened = cubekit::Report::open(path.string());
  const uint64_t one = uint64_t{opened.model().cnodes.size()} * opened.model().locations.size() * 8;
  cubekit::server::DecodeBudget budget(one, one + one / 2);
  cubekit::server::OpenReport report(std::move(opened), "r.cubex", budget);
  const cubekit::server::MetricQuery time{"time", cubekit::Flavour::kInclusive,
                                          cubekit::Flavour::kInclusive};
  std::atomic<int> ready{0}, refused{0};
  std::vector<std::shared_ptr<const std::vector<double>>> answers(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (++ready; ready < 8;) std::this_thread::yield();
      try {
        answers[t] = report.aggregated(time);
      } catch (const std::exception&) {
        ++refused;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(refused.load(), 0);
  // The same numbers as a report opened afresh gives alone.
  cubekit::server::DecodeBudget alone_budget(one, one);
  cubekit::server::OpenReport alone(cubekit::Report::open(path.string()), "r.cubex", alone_budget);
  const auto expected = alone.aggregated(time);
  for (const auto& a : answers) {
    if (a) {
      EXPECT_EQ(*a, *expected);
    }
  }
}

// A budget that holds one request's values: what the caches kept is given back when the next
// request needs it, so requests are not refused because of caches.
TEST(ServerConcurrency, ARequestReclaimsTheBudgetCachesHold) {
  TempDir dir("reclaim");
  const KnownReport r = make_known_report(dir.path(), "r.cubex", 5, 300, 2);
  const cubekit::Report opened = cubekit::Report::open((dir.path() / r.name).string());
  const uint64_t cells = opened.model().cnodes.size() * opened.model().locations.size();
  cubekit::server::DecodeBudget budget(cells * 16, cells * 16);
  cubekit::server::OpenReport report(opened, r.name, budget);
  budget.set_reclaimer([&] { report.drop_caches(); });
  for (int k = 1; k <= 20; ++k) {
    const auto values = report.aggregated(
        {expression(k), cubekit::Flavour::kInclusive, cubekit::Flavour::kInclusive});
    EXPECT_TRUE(agrees(r.expression(opened.model().cnodes[0].id, k), (*values)[0])) << k;
    EXPECT_LE(budget.in_use(), cells * 16);
  }
}

// The viewer's newer endpoints under many clients at once: /model with every measure and
// scaling (8 option sets, the cache keeps 4, so entries are evicted while requests hold them)
// on a series whose law is known (noise 0: every measure gives 1 + 2·p), and /derived-report
// with a distinct metric per request, some of the downloaded reports opened and their values
// checked against cube_dump's of the served report.
TEST(ServerConcurrency, ModelAndDerivedReportStorm) {
  TempDir dir("storm");
  cubekit::SeriesSpec spec;
  spec.points = {2, 4, 8, 16};
  spec.repetitions = 2;
  spec.laws = {{{"main"}, "time", "5"}, {{"main", "solve"}, "time", "1 + 2 * p"}};
  cubekit::write_series((dir.path() / "series").string(), spec);
  const KnownReport r = make_known_report(dir.path(), "derive.cubex", 3, 300, 2);
  cubekit::ServerOptions o;
  o.root = dir.path();
  o.threads = 16;
  RunningServer server(o);
  const int requests = 64 * soak_scale();
  const char* measures[] = {"mean", "median", "minimum", "maximum"};
  std::atomic<int> next{0}, right{0};
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto model_problem = [&](int k, httplib::Client& client) -> std::string {
    const auto res =
        client.Get(std::string("/api/v1/model?series=series&metric=time&measure=") +
                   measures[k / 2 % 4] + "&scaling=" + (k / 8 % 2 ? "strong" : "weak"));
    if (!res || res->status != 200) return "model: " + (res ? res->body : "no answer");
    const json body = json::parse(res->body);  // outlives the loop over its member
    for (const json& m : body["models"]) {
      if (m["callpath"] != json::array({"main", "solve"})) continue;
      const json& t = m["terms"];
      const bool law = t.size() == 1 && std::abs(m["constant"].get<double>() - 1) < 1e-9 &&
                       std::abs(t[0]["coefficient"].get<double>() - 2) < 1e-9 &&
                       t[0]["exponent"] == 1 && t[0]["log_exponent"] == 0;
      return law ? "" : "model of main/solve: " + m.dump();
    }
    return "no model of main/solve";
  };
  auto derived_problem = [&](int k, httplib::Client& client) -> std::string {
    const std::string name = "d" + std::to_string(k);
    const auto res = client.Get("/api/v1/derived-report?report=" + r.name + "&name=" + name +
                                "&expression=" + encode_param(expression(k)));
    if (!res || res->status != 200) return "derived-report: " + (res ? res->body : "no answer");
    if (k % 8 != 1) return "";
    const cubekit::Report saved = cubekit::Report::open(dir.write(name + ".cubex", res->body));
    cubekit::MetricEngine engine(saved);
    const cubekit::Model& model = saved.model();
    const cubekit::Index metric = model.find_metric(name);
    for (cubekit::Index c = 0; c < model.cnodes.size(); ++c) {
      const double got =
          engine.value(metric, c, cubekit::Flavour::kInclusive, cubekit::Flavour::kInclusive);
      if (!agrees(r.expression(model.cnodes[c].id, k), got))
        return name + " at cnode " + std::to_string(model.cnodes[c].id) + ": " +
               std::to_string(got);
    }
    return "";
  };
  std::vector<std::thread> clients;
  for (int t = 0; t < 16; ++t)
    clients.emplace_back([&] {
      auto client = server.client();
      for (int k; (k = next++) < requests;) {
        std::string problem;
        try {
          problem = k % 2 ? derived_problem(k, client) : model_problem(k, client);
        } catch (const std::exception& e) {
          problem = e.what();
        }
        if (problem.empty()) {
          ++right;
        } else {
          std::lock_guard lock(failures_mutex);
          failures.push_back(problem);
        }
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(right.load(), requests) << (failures.empty() ? "" : failures.front());
  EXPECT_EQ(server.get("/api/v1/reports").first, 200);  // still up
}

}  // namespace
