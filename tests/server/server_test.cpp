// `cubekit serve`'s JSON API against a server on 127.0.0.1 (ephemeral port): values equal what
// CubeLib 4.6's cube_dump printed (../shared/oracle) and what another reader computed per
// location (incl.csv / excl.csv beside the real profiles); requests leaving the root are refused;
// limits answer 413 / 503; 50 concurrent clients get every answer, and the same ones.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "cube_dump_text.hpp"
#include "cubekit/error.hpp"
#include "cubekit/pop.hpp"
#include "cubekit/report.hpp"
#include "cubekit/server.hpp"
#include "server/running_server.hpp"
#include "server/source_files.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::parse_dump;
using cubekit::test::read_file;
using cubekit::test::shared_dir;
using cubekit::test::TempDir;
using nlohmann::json;

namespace {

// Without ../shared the comparisons skip, except in CI where the data must be there.
#define REQUIRE_SHARED()                                                               \
  do {                                                                                 \
    if (shared_dir().empty()) {                                                        \
      const char* ci = std::getenv("CI");                                              \
      if (ci && std::string(ci) == "true") FAIL() << "../shared missing under CI";     \
      GTEST_SKIP() << "../shared not found beside the clone: API comparisons skipped"; \
    }                                                                                  \
  } while (0)

using cubekit::test::RunningServer;

std::string enc(const std::string& s) {
  return cubekit::test::encode_param(s);
}

cubekit::ServerOptions over(const fs::path& root) {
  cubekit::ServerOptions o;
  o.root = root;
  return o;
}

// A printed number (6 significant digits, or an integer) and an exact one agree.
bool agrees_printed(const std::string& printed, double exact) {
  char* end = nullptr;
  const double p = std::strtod(printed.c_str(), &end);
  if (*end != '\0') return true;  // not a single number (histograms, tuples): checked elsewhere
  return std::fabs(p - exact) <= 5.01e-6 * std::fabs(exact) + 1e-300 ||
         (std::isnan(p) && std::isnan(exact));
}

// The report behind an oracle folder, relative to data/real (oracle/README.md, "Layout").
std::string report_of(const std::string& folder) {
  std::string s = folder;
  for (const char* prefix : {"pycubexr__", "cubelib__test__", "extrap__"})
    if (s.rfind(prefix, 0) == 0) {
      if (std::string(prefix) == "cubelib__test__") s = "cubelib__" + s.substr(15);
      break;
    }
  if (folder == "cubelib__examples__cube__summary.cubex") return "cubelib/examples/summary.cubex";
  if (folder == "cubelib__test__test33_CubeProxy__proxy.cubex") return "cubelib/test33/proxy.cubex";
  if (folder.rfind("extrap__single_parameter__", 0) == 0) {
    std::string d = folder.substr(26);
    return "extrap/single_parameter/" + d.substr(0, d.find("__profile.cubex")) + ".cubex";
  }
  if (folder.rfind("extrap__simple_threaded__", 0) == 0)
    return "extrap/simple_threaded/" + folder.substr(folder.rfind("__") + 2);
  for (size_t p; (p = s.find("__")) != std::string::npos;) s.replace(p, 2, "/");
  return s;
}

// Every real profile, every metric, both call-tree flavours: /values equals the original dump.
// stop() before run() (or while run() is starting): run() returns at once instead of serving
// forever (cpp-httplib's own stop() does nothing until its loop runs). Servers started and
// stopped at once, many times, as a test's server is when the test ends early.
TEST(ServerApi, StopBeforeOrWhileRunStartsEndsRun) {
  TempDir dir("stop-early");
  cubekit::ServerOptions o;
  o.root = dir.path();
  o.port = 0;
  for (int i = 0; i < 100; ++i) {
    cubekit::Server server(o);
    server.listen();
    if (i % 2 == 0) server.stop();  // before run(): run() must not start serving
    std::promise<void> ran;
    std::future<void> done = ran.get_future();
    std::thread runner([&] {
      server.run();
      ran.set_value();
    });
    if (i % 2 == 1) server.stop();  // while run() starts
    const bool ended = done.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    EXPECT_TRUE(ended) << "run() still serving after stop(), round " << i;
    if (!ended) server.stop();  // now that it runs, so that the thread can be joined
    runner.join();
    if (!ended) break;
  }
}

TEST(ServerApi, ValuesEqualTheOriginalDumps) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  size_t compared = 0, reports = 0;
  for (const auto& dir : fs::directory_iterator(shared_dir() / "oracle")) {
    const std::string folder = dir.path().filename();
    if (!dir.is_directory() || folder[0] == '_') continue;
    const std::string report = report_of(folder);
    if (!fs::exists(shared_dir() / "data" / "real" / report)) continue;
    for (const auto& [step, calltree] :
         {std::pair{"dump_all_incl_aggr", "incl"}, std::pair{"dump_all_excl_aggr", "excl"}}) {
      const fs::path out = dir.path() / (std::string(step) + ".out");
      if (!fs::exists(out) || read_file(dir.path() / (std::string(step) + ".rc")) != "0\n")
        continue;
      ++reports;
      for (const auto& [metric, rows] : parse_dump(read_file(out))) {
        const auto [status, body] = server.get("/api/v1/values?report=" + enc(report) +
                                               "&metric=" + enc(metric) + "&calltree=" + calltree);
        ASSERT_EQ(status, 200) << report << " " << metric << ": " << body.dump();
        std::map<uint32_t, double> got;
        for (const auto& pair : body["values"])
          got[pair[0].get<uint32_t>()] = pair[1].is_null() ? NAN : pair[1].get<double>();
        for (const auto& [cnode, text] : rows) {
          ASSERT_TRUE(got.count(cnode)) << report << " " << metric << " cnode " << cnode;
          EXPECT_TRUE(agrees_printed(text, got[cnode]))
              << report << " " << step << " " << metric << " cnode " << cnode << ": original "
              << text << ", API " << got[cnode];
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(reports, 30u);
  EXPECT_GT(compared, 10000u);
}

// Per location, against another reader's values (incl.csv / excl.csv, 4 processes).
TEST(ServerApi, PerLocationValuesEqualAnotherReader) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const std::string report = "pycubexr/time.p4.n2000.x1.r0/profile.cubex";
  size_t compared = 0;
  for (const char* flavour : {"incl", "excl"}) {
    std::istringstream csv(read_file(shared_dir() / "data" / "real" / "pycubexr" /
                                     "time.p4.n2000.x1.r0" / (std::string(flavour) + ".csv")));
    std::string line;
    std::getline(csv, line);  // header: Cnode ID, Thread ID, visits, time, ...
    std::map<std::string, json> fetched;
    while (std::getline(csv, line)) {
      std::vector<std::string> f;
      std::stringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      ASSERT_GE(f.size(), 4u);
      if (!fetched.count(f[0]))
        fetched[f[0]] = server
                            .get("/api/v1/values?report=" + enc(report) +
                                 "&metric=time&calltree=" + flavour + "&cnode=" + f[0])
                            .second;
      const json& values = fetched[f[0]]["values"];
      const size_t location = std::stoul(f[1]);
      ASSERT_LT(location, values.size());
      EXPECT_EQ(values[location][0].get<size_t>(), location);
      EXPECT_TRUE(agrees_printed(f[3], values[location][1].get<double>()))
          << flavour << " cnode " << f[0] << " location " << f[1] << ": " << f[3] << " vs "
          << values[location][1];
      ++compared;
    }
  }
  EXPECT_EQ(compared, 368u);
}

// Flat profile against `cube_dump -m time,visits -r -t aggr`.
TEST(ServerApi, FlatProfileEqualsTheOriginal) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const fs::path oracle = shared_dir() / "oracle" /
                          "pycubexr__call_tree_test__call_tree_test.cubex" / "dump_r_2m_aggr.out";
  std::istringstream in(read_file(oracle));
  static const std::regex kRegion(R"(^(.*)\(id=(\d+)\)\s+(\S+)$)"),
      kSub(R"(^   Subroutines\s+(\S+)$)");
  std::string metric;
  json regions;
  uint32_t region = 0;
  size_t compared = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.rfind("Print out the data of the metric ", 0) == 0) {
      metric = line.substr(33);
      regions =
          server
              .get("/api/v1/flat?report=pycubexr/call_tree_test/call_tree_test.cubex&metric=" +
                   metric)
              .second["regions"];
    } else if (std::regex_match(line, m, kRegion)) {
      region = static_cast<uint32_t>(std::stoul(m[2]));
      const auto r = std::find_if(regions.begin(), regions.end(),
                                  [&](const json& x) { return x["id"] == region; });
      ASSERT_NE(r, regions.end());
      EXPECT_TRUE(agrees_printed(m[3], (*r)["excl"].get<double>()))
          << metric << " region " << region;
      ++compared;
    } else if (std::regex_match(line, m, kSub)) {
      const auto r = std::find_if(regions.begin(), regions.end(),
                                  [&](const json& x) { return x["id"] == region; });
      EXPECT_TRUE(agrees_printed(m[1], (*r)["subroutines"].get<double>()))
          << metric << " region " << region;
      ++compared;
    }
  }
  EXPECT_GT(compared, 20u);
}

TEST(ServerApi, ExpressionsAndStatistics) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const std::string r = "report=pycubexr/call_tree_test/call_tree_test.cubex";
  const json visits = server.get("/api/v1/values?" + r + "&metric=visits&calltree=incl").second;
  const auto [status, twice] = server.get(
      "/api/v1/values?" + r + "&metric=" + enc("metric::visits() * 2") + "&calltree=incl");
  ASSERT_EQ(status, 200) << twice.dump();
  ASSERT_EQ(twice["values"].size(), visits["values"].size());
  for (size_t i = 0; i < visits["values"].size(); ++i)
    EXPECT_EQ(twice["values"][i][1].get<double>(), 2 * visits["values"][i][1].get<double>());
  EXPECT_EQ(server.get("/api/v1/values?" + r + "&metric=" + enc("metric::nosuch(")).first, 400);
  EXPECT_EQ(server.get("/api/v1/values?" + r + "&metric=visits&calltree=sideways").first, 400);
  EXPECT_EQ(server.get("/api/v1/values?" + r + "&metric=visits&cnode=99999").first, 404);

  // Four processes: the statistics of main's inclusive time over them, from incl.csv's rows.
  const std::string p4 = "report=pycubexr/time.p4.n2000.x1.r0/profile.cubex";
  const json s =
      server.get("/api/v1/statistics?" + p4 + "&metric=time&calltree=incl&cnode=0").second;
  ASSERT_EQ(s["count"], 4);
  std::vector<double> v;
  for (const auto& x : s["per_location"]) v.push_back(x[1].get<double>());
  std::sort(v.begin(), v.end());
  EXPECT_EQ(s["min"].get<double>(), v.front());
  EXPECT_EQ(s["max"].get<double>(), v.back());
  EXPECT_NEAR(s["mean"].get<double>(), (v[0] + v[1] + v[2] + v[3]) / 4, 1e-12);
  EXPECT_NEAR(s["median"].get<double>(), (v[1] + v[2]) / 2, 1e-12);
  EXPECT_TRUE(agrees_printed("0.853407", v[0]) || agrees_printed("0.853407", v[1]) ||
              agrees_printed("0.853407", v[2]) ||
              agrees_printed("0.853407", v[3]));  // incl.csv, cnode 0, thread 0
}

// per_location=1 with a list of call paths: each row is what cnode=ID gives for that one.
TEST(ServerApi, PerLocationRowsOfSeveralCallPaths) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const std::string q =
      "report=pycubexr/time.p4.n2000.x1.r0/profile.cubex&metric=time&calltree=incl";
  const auto [status, rows] = server.get("/api/v1/values?" + q + "&cnodes=2,0,1&per_location=1");
  ASSERT_EQ(status, 200) << rows.dump();
  ASSERT_EQ(rows["rows"].size(), 3u);
  for (const auto& row : rows["rows"]) {
    const json one =
        server.get("/api/v1/values?" + q + "&cnode=" + std::to_string(row[0].get<int>())).second;
    ASSERT_EQ(row[1].size(), one["values"].size());
    for (size_t l = 0; l < row[1].size(); ++l)
      EXPECT_EQ(row[1][l].get<double>(), one["values"][l][1].get<double>());
  }
  EXPECT_EQ(server.get("/api/v1/values?" + q + "&per_location=1").first, 400);
  EXPECT_EQ(server.get("/api/v1/values?" + q + "&cnodes=99999&per_location=1").first, 404);
}

// /api/v1/derived-report: the report with the viewer's derived metrics added (the second
// naming the first), as a file; a second server over the saved file gives 2 · visits + 1.
// TMPDIR set to a folder of one test while it runs (this process's tests run one after the
// other): what the server leaves in its temporary folder is then this test's alone, not that of
// the other test processes sharing the run's TMPDIR.
class OwnTemporaryFolder {
 public:
  explicit OwnTemporaryFolder(const fs::path& folder) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", folder.c_str(), 1);
  }
  ~OwnTemporaryFolder() {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  OwnTemporaryFolder(const OwnTemporaryFolder&) = delete;
  OwnTemporaryFolder& operator=(const OwnTemporaryFolder&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(ServerApi, DerivedReportDownload) {
  REQUIRE_SHARED();
  TempDir scratch("derived-scratch");
  const OwnTemporaryFolder own(scratch.path());
  RunningServer server(over(shared_dir() / "data" / "real"));
  const std::string r = "report=pycubexr/call_tree_test/call_tree_test.cubex";
  auto client = server.client();
  const auto res = client.Get("/api/v1/derived-report?" + r +
                              "&name=twice&expression=" + enc("metric::visits() * 2") +
                              "&name=plus_one&expression=" + enc("metric::twice() + 1"));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Disposition"),
            "attachment; filename=\"call_tree_test-derived.cubex\"");
  TempDir saved("derived");
  { std::ofstream(saved.path() / "saved.cubex", std::ios::binary) << res->body; }
  {
    RunningServer second(over(saved.path()));
    const json tree = second.get("/api/v1/tree?report=saved.cubex&parts=metrics").second;
    std::map<std::string, std::string> kinds;
    for (const auto& m : tree["metrics"]) kinds[m["uniq_name"]] = m["kind"];
    EXPECT_EQ(kinds["plus_one"], "POSTDERIVED");
    EXPECT_EQ(kinds["twice"], "POSTDERIVED");
    const json visits = server.get("/api/v1/values?" + r + "&metric=visits&calltree=incl").second;
    const json derived =
        second.get("/api/v1/values?report=saved.cubex&metric=plus_one&calltree=incl").second;
    ASSERT_EQ(derived["values"].size(), visits["values"].size()) << derived.dump();
    for (size_t i = 0; i < visits["values"].size(); ++i)
      EXPECT_EQ(derived["values"][i][1].get<double>(),
                2 * visits["values"][i][1].get<double>() + 1);
  }
  // Errors name the served report, never the scratch file; nothing of it stays behind.
  const auto taken = server.get("/api/v1/derived-report?" + r + "&name=visits&expression=1");
  EXPECT_EQ(taken.first, 422);
  EXPECT_EQ(taken.second["error"],
            "pycubexr/call_tree_test/call_tree_test.cubex: metric 'visits': a metric named "
            "'visits' exists already");
  EXPECT_EQ(server.get("/api/v1/derived-report?" + r + "&name=a").first, 400);
  EXPECT_EQ(server.get("/api/v1/derived-report?" + r + "&expression=1").first, 400);
  EXPECT_EQ(server.get("/api/v1/derived-report?" + r + "&name=a&expression=" + enc("1 +")).first,
            422);
  ASSERT_EQ(fs::temp_directory_path(), scratch.path());
  for (const auto& entry : fs::directory_iterator(scratch.path()))  // the test's own: "saved"
    EXPECT_NE(entry.path().filename().string().rfind("cubekit-derive-", 0), 0u) << entry.path();
}

// /api/v1/pop gives the library's POP metrics: the same numbers as pop_metrics on the file,
// the hierarchy's identities (GE = PE × CompE, PE = LB × CommE, CommE = SerE × TE on test16's
// trace analysis, which has Scalasca's wait states), a scaling series of reports, and 400s.
TEST(ServerApi, PopMetrics) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const auto [status, pop] = server.get("/api/v1/pop?report=cubelib/test16/trace.cube");
  ASSERT_EQ(status, 200) << pop.dump();
  ASSERT_EQ(pop["results"].size(), 1u);
  std::map<std::string, json> v;
  for (const json& item : pop["results"][0]["values"]) v[item["key"]] = item;
  auto number = [&](const char* key) { return v.at(key)["value"].get<double>(); };
  EXPECT_NEAR(number("global_efficiency"),
              number("parallel_efficiency") * number("computation_efficiency"), 1e-12);
  EXPECT_NEAR(number("parallel_efficiency"),
              number("load_balance_efficiency") * number("communication_efficiency"), 1e-12);
  EXPECT_NEAR(number("communication_efficiency"),
              number("serialisation_efficiency") * number("transfer_efficiency"), 1e-12);
  const cubekit::Report report =
      cubekit::Report::open((shared_dir() / "data/real/cubelib/test16/trace.cube").string());
  const auto direct = cubekit::pop_metrics({&report}, {});
  for (const cubekit::PopValue& d : direct[0].values) {
    ASSERT_TRUE(v.count(d.key)) << d.key;
    if (d.value)
      EXPECT_EQ(v[d.key]["value"].get<double>(), *d.value) << d.key;
    else
      EXPECT_TRUE(v[d.key]["value"].is_null() && v[d.key]["missing"] == d.missing) << d.key;
  }

  const std::string series =
      "/api/v1/pop?model=hybrid-add&report=extrap/single_parameter/mm.x1y1z1.r1.cubex"
      "&report=extrap/single_parameter/mm.x10y1z1.r1.cubex";
  const auto [series_status, two] = server.get(series);
  ASSERT_EQ(series_status, 200) << two.dump();
  ASSERT_EQ(two["results"].size(), 2u);
  EXPECT_EQ(two["model"], "hybrid-add");
  EXPECT_EQ(two["results"][1]["report"], "extrap/single_parameter/mm.x10y1z1.r1.cubex");
  const std::string r = "report=cubelib/examples/summary.cubex";
  EXPECT_EQ(server.get("/api/v1/pop?" + r + "&model=posix").first, 400);
  EXPECT_EQ(server.get("/api/v1/pop?" + r + "&focus=no_such_region").first, 400);
  EXPECT_EQ(server.get("/api/v1/pop?report=nope.cubex").first, 404);
}

TEST(ServerApi, TreesAndDiff) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const auto [status, tree] =
      server.get("/api/v1/tree?report=pycubexr/call_tree_test/call_tree_test.cubex");
  ASSERT_EQ(status, 200);
  // dump_w of the original: 18 call paths, test.x → main → ..., one location.
  EXPECT_EQ(tree["calls"].size(), 18u);
  EXPECT_EQ(tree["calls"][1]["name"], "main");
  EXPECT_EQ(tree["calls"][1]["parent"], 0);
  EXPECT_EQ(tree["system"]["locations"].size(), 1u);
  EXPECT_EQ(tree["metrics"][1]["uniq_name"], "time");
  EXPECT_EQ(tree["metrics"][1]["uom"], "sec");
  const json kids = server
                        .get(
                            "/api/v1/children?report=pycubexr/call_tree_test/"
                            "call_tree_test.cubex&cnode=1&metric=time")
                        .second;
  ASSERT_EQ(kids["cnodes"].size(), 4u);
  EXPECT_EQ(kids["cnodes"][0]["name"], "signed char");
  EXPECT_TRUE(
      agrees_printed("60.001", kids["cnodes"][0]["incl"].get<double>()));  // dump_all_incl_aggr

  // x1 minus x10 of one Extra-P series: same call tree, values differ.
  const std::string a = "extrap/single_parameter/mm.x1y1z1.r1.cubex",
                    b = "extrap/single_parameter/mm.x10y1z1.r1.cubex";
  const json d =
      server.get("/api/v1/diff?a=" + enc(a) + "&b=" + enc(b) + "&metric=time&calltree=incl").second;
  const json va =
      server.get("/api/v1/values?report=" + enc(a) + "&metric=time&calltree=incl").second;
  const json vb =
      server.get("/api/v1/values?report=" + enc(b) + "&metric=time&calltree=incl").second;
  ASSERT_EQ(d["values"].size(), va["values"].size());
  for (size_t i = 0; i < va["values"].size(); ++i) {
    ASSERT_EQ(d["values"][i]["b_cnode"], vb["values"][i][0]) << d["values"][i]["path"];
    EXPECT_EQ(d["values"][i]["diff"].get<double>(),
              va["values"][i][1].get<double>() - vb["values"][i][1].get<double>());
  }
}

// Answers on a kept-alive connection come as soon as they are written. cpp-httplib writes an
// answer's headers and body separately; with Nagle's algorithm the body waited for the
// client's delayed ACK of the headers, 40 ms on Linux, at each answer after the first few.
TEST(ServerApi, KeptConnectionsDoNotWaitForDelayedAcks) {
  TempDir root("nodelay");
  RunningServer server(over(root.path()));
  httplib::Client c = server.client();
  c.set_keep_alive(true);
  ASSERT_TRUE(c.Get("/core/panes.js"));  // the first answers are acknowledged at once anyway
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    const auto res = c.Get("/core/panes.js");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  EXPECT_LT(ms, 200) << "10 answers on one connection took " << ms << " ms";
}

TEST(ServerApi, NothingOutsideTheRootIsServed) {
  REQUIRE_SHARED();
  TempDir outer("server");
  const fs::path root = outer.path() / "root";
  fs::create_directories(root / "sub");
  const fs::path real =
      shared_dir() / "data" / "real" / "pycubexr" / "call_tree_test" / "call_tree_test.cubex";
  fs::copy_file(real, outer.path() / "secret.cubex");
  fs::copy_file(real, root / "sub" / "inside.cubex");
  fs::create_symlink(outer.path() / "secret.cubex", root / "link_out.cubex");
  fs::create_symlink(outer.path(), root / "dir_out");
  fs::create_symlink(root / "sub" / "inside.cubex", root / "link_in.cubex");
  RunningServer server(over(root));
  auto values = [&](const std::string& encoded) {
    return server.get("/api/v1/values?metric=time&report=" + encoded).first;
  };
  EXPECT_EQ(values("sub/inside.cubex"), 200);
  EXPECT_EQ(values("link_in.cubex"), 200);
  for (const std::string& bad : std::vector<std::string>{
           "../secret.cubex", "sub/../../secret.cubex", "%2e%2e/secret.cubex",
           "%2E%2E%2Fsecret.cubex", enc(outer.path().string() + "/secret.cubex"), "link_out.cubex",
           "dir_out/secret.cubex", "sub%5C..%5C..%5Csecret.cubex", "sub/inside.cubex%00.txt",
           "%252e%252e/secret.cubex", "./sub/inside.cubex", "sub//../sub/inside.cubex",
           enc("/etc/passwd")}) {
    const int status = values(bad);
    EXPECT_TRUE(status == 403 || status == 404) << bad << " answered " << status;
  }
  EXPECT_EQ(values("sub/nosuch.cubex"), 404);
  const json list = server.get("/api/v1/reports").second;
  std::vector<std::string> paths;
  for (const auto& r : list["reports"]) paths.push_back(r["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{"link_in.cubex", "sub/inside.cubex"}));
  // Static files come from the binary only.
  auto c = server.client();
  for (const char* path : {"/../../etc/passwd", "/..%2f..%2fetc%2fpasswd",
                           "/%2e%2e/%2e%2e/etc/passwd", "/CMakeLists.txt", "/sub/inside.cubex"}) {
    const auto res = c.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_TRUE(res->status == 400 || res->status == 404) << path << ": " << res->status;
    EXPECT_EQ(res->body.find("root:"), std::string::npos);
  }
  const auto index = c.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("viewer.js"), std::string::npos);
}

// --plugins DIR: the .js files directly in DIR are listed and served as modules; nothing else
// of the folder, below it or outside it. The viewer's own modules (web/ and its folders) come
// from the binary.
TEST(ServerApi, PluginFolderIsConfined) {
  TempDir outer("plugins");
  const fs::path dir = outer.path() / "plugins";
  fs::create_directories(dir / "sub");
  const std::string hello =
      "export default { name: 'Hello', mount(e) { e.textContent = 'hi'; } };\n";
  outer.write("plugins/hello.js", hello);
  outer.write("plugins/notes.txt", "not a plugin");
  outer.write("plugins/.hidden.js", "export default {};");
  outer.write("plugins/sub/inner.js", "export default {};");
  outer.write("secret.js", "top secret content");
  fs::create_symlink(outer.path() / "secret.js", dir / "link_out.js");
  fs::create_symlink(dir / "hello.js", dir / "link_in.js");
  cubekit::ServerOptions o = over(outer.path());
  o.plugins = dir;
  RunningServer server(o);
  const json list = server.get("/api/v1/plugins").second;
  std::vector<std::string> names, urls;
  for (const auto& p : list["plugins"]) names.push_back(p["name"]), urls.push_back(p["url"]);
  EXPECT_EQ(names, (std::vector<std::string>{"hello.js", "link_in.js"}));
  EXPECT_EQ(urls, (std::vector<std::string>{"/user-plugins/hello.js", "/user-plugins/link_in.js"}));
  auto c = server.client();
  for (const char* path : {"/user-plugins/hello.js", "/user-plugins/link_in.js"}) {
    const auto res = c.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->body, hello) << path;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/javascript; charset=utf-8");
  }
  for (const char* path :
       {"/user-plugins/notes.txt", "/user-plugins/.hidden.js", "/user-plugins/sub%2Finner.js",
        "/user-plugins/sub/inner.js", "/user-plugins/..%2Fsecret.js", "/user-plugins/../secret.js",
        "/user-plugins/%2e%2e%2fsecret.js", "/user-plugins/link_out.js", "/user-plugins/nosuch.js",
        "/user-plugins/hello.js%00.txt"}) {
    const auto res = c.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_TRUE(res->status == 400 || res->status == 403 || res->status == 404)
        << path << ": " << res->status;
    EXPECT_EQ(res->body.find("top secret content"), std::string::npos) << path;
  }
  EXPECT_EQ(c.Get("/user-plugins/link_out.js")->status, 403);
  // The viewer's modules below web/ are compiled in and served as JavaScript.
  const auto core = c.Get("/core/plugins.js");
  ASSERT_TRUE(core);
  EXPECT_EQ(core->status, 200);
  EXPECT_EQ(core->get_header_value("Content-Type"), "application/javascript; charset=utf-8");
  // Without --plugins: an empty list; a folder that does not exist is refused at the start.
  RunningServer plain(over(outer.path()));
  EXPECT_EQ(plain.get("/api/v1/plugins").second["plugins"].size(), 0u);
  EXPECT_EQ(plain.client().Get("/user-plugins/hello.js")->status, 404);
  cubekit::ServerOptions missing = over(outer.path());
  missing.plugins = outer.path() / "nosuch";
  EXPECT_THROW(cubekit::Server{missing}, cubekit::IoError);
}

// The source view: a region's file is found by the tails of the path the report names, below
// the served root or --source-root, and its lines are sent; nothing outside those folders.
TEST(ServerApi, SourceOfARegion) {
  REQUIRE_SHARED();
  TempDir outer("source");
  const fs::path root = outer.path() / "root", sources = outer.path() / "src";
  fs::create_directories(root);
  fs::create_directories(sources / "bench" / "mm");
  fs::copy_file(
      shared_dir() / "data" / "real" / "extrap" / "single_parameter" / "mm.x10y1z1.r1.cubex",
      root / "mm.cubex");
  std::string text;
  for (int i = 1; i <= 80; ++i) text += "line " + std::to_string(i) + "\n";
  outer.write("src/bench/mm/mm.c", text);
  outer.write("root/mm.c", "a shorter tail of the same path: not the one found\n");
  // init_mat's region: mod=/home/ss39mozo/bench/mm/mm.c, begin 35, end -1 (cube_dump -w).
  const auto report = cubekit::Report::open((root / "mm.cubex").string());
  const cubekit::Model& model = report.model();
  uint32_t init_mat = 0;
  for (const auto& c : model.cnodes)
    if (model.regions[c.region].name == "init_mat") init_mat = c.id;
  cubekit::ServerOptions o = over(root);
  o.source_root = sources;
  RunningServer server(o);
  const auto [status, body] =
      server.get("/api/v1/source?report=mm.cubex&cnode=" + std::to_string(init_mat));
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body["region"], "init_mat");
  EXPECT_EQ(body["mod"], "/home/ss39mozo/bench/mm/mm.c");
  EXPECT_EQ(body["begin"], 35);
  EXPECT_EQ(body["end"], -1);
  EXPECT_EQ(body["file"], "bench/mm/mm.c");
  ASSERT_EQ(body["lines"].size(), 80u);
  EXPECT_EQ(body["lines"][34], "line 35");
  // Without --source-root only the root is searched: its shorter tail "mm.c" is found.
  RunningServer plain(over(root));
  const json shorter =
      plain.get("/api/v1/source?report=mm.cubex&cnode=" + std::to_string(init_mat)).second;
  EXPECT_EQ(shorter["file"], "mm.c");
  // A region whose file is nowhere below the folders: no text, the reason.
  fs::remove(root / "mm.c");
  const json missing =
      plain.get("/api/v1/source?report=mm.cubex&cnode=" + std::to_string(init_mat)).second;
  EXPECT_TRUE(missing["file"].is_null());
  EXPECT_FALSE(missing.contains("lines"));
  EXPECT_NE(missing["reason"].get<std::string>().find("not found"), std::string::npos);
  EXPECT_EQ(plain.get("/api/v1/source?report=mm.cubex&cnode=999999").first, 404);
}

TEST(SourceFiles, NothingOutsideItsFolders) {
  TempDir outer("sources");
  const fs::path dir = outer.path() / "src";
  fs::create_directories(dir);
  outer.write("secret.c", "secret");
  fs::create_symlink(outer.path() / "secret.c", dir / "leak.c");
  outer.write("src/ok.c", "int main() {}");
  const cubekit::server::SourceFiles files({dir});
  EXPECT_FALSE(files.find("/a/leak.c"));
  EXPECT_FALSE(files.find("../secret.c"));
  EXPECT_FALSE(files.find("/x/../../secret.c"));
  EXPECT_FALSE(files.find(""));
  ASSERT_TRUE(files.find("/home/u/ok.c"));
  EXPECT_EQ(files.find("/home/u/ok.c")->shown, "ok.c");
  EXPECT_THROW(cubekit::server::SourceFiles({outer.path() / "nosuch"}), cubekit::IoError);
}

TEST(ServerApi, BrokenReportsAndLimits) {
  REQUIRE_SHARED();
  TempDir dir("server");
  std::ofstream(dir.path() / "broken.cubex") << "not a tar archive, just text that is long enough";
  fs::copy_file(
      shared_dir() / "data" / "real" / "pycubexr" / "call_tree_test" / "call_tree_test.cubex",
      dir.path() / "ok.cubex");
  {
    RunningServer server(over(dir.path()));
    const auto [status, body] = server.get("/api/v1/tree?report=broken.cubex");
    EXPECT_EQ(status, 422);
    EXPECT_EQ(body["error"].get<std::string>().rfind("broken.cubex: ", 0), 0u) << body.dump();
    EXPECT_NE(body["error"].get<std::string>().find("not a .cubex archive"), std::string::npos);
  }
  cubekit::ServerOptions tiny = over(dir.path());
  tiny.decode_limit_bytes = 16;  // 18 call paths × 1 location × 8 bytes do not fit
  {
    RunningServer server(tiny);
    EXPECT_EQ(server.get("/api/v1/values?report=ok.cubex&metric=time").first, 413);
    EXPECT_EQ(server.get("/api/v1/tree?report=ok.cubex").first, 200);
  }
  tiny.decode_limit_bytes = 1 << 20;
  tiny.decode_budget_bytes = 16;  // under the per-request limit, over what all may hold
  RunningServer server(tiny);
  EXPECT_EQ(server.get("/api/v1/values?report=ok.cubex&metric=time").first, 503);
}

// 50 clients × 200 requests at once: every request answered, each answer the same.
TEST(ServerApi, FiftyConcurrentClients) {
  REQUIRE_SHARED();
  RunningServer server(over(shared_dir() / "data" / "real"));
  const std::vector<std::string> paths = {
      "/api/v1/values?report=pycubexr/call_tree_test/"
      "call_tree_test.cubex&metric=time&calltree=incl",
      "/api/v1/values?report=pycubexr/time.p4.n2000.x1.r0/profile.cubex&metric=visits&cnode=3",
      "/api/v1/children?report=cubelib/examples/summary.cubex&metric=time",
      "/api/v1/tree?report=extrap/simple_threaded/cube-example1.cubex&parts=metrics"};
  std::vector<std::string> expected;
  for (const std::string& p : paths) {
    auto c = server.client();
    const auto res = c.Get(p);
    ASSERT_TRUE(res && res->status == 200) << p;
    expected.push_back(res->body);
  }
  std::atomic<int> answered{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 50; ++t)
    clients.emplace_back([&, t] {
      auto c = server.client();
      for (int i = 0; i < 200; ++i) {
        const size_t k = static_cast<size_t>(t + i) % paths.size();
        const auto res = c.Get(paths[k]);
        if (res && res->status == 200) ++answered;
        if (!res || res->body != expected[k]) ++wrong;
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(answered.load(), 50 * 200);
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
