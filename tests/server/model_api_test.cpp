// /api/v1/model: the models of a series folder below the served root, as `cubekit model -s
// json` prints them, with the measured points (median, minimum and maximum of the repetitions,
// checked against the values each report stores); paths leaving the root are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cubekit/perf_model.hpp"
#include "cubekit/report.hpp"
#include "cubekit/server.hpp"
#include "server/running_server.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cubekit {
namespace {

// 3 repetitions with 10 % noise at 5 points: time = 1 + 2·p in main/solve.
void write_noisy_series(const fs::path& folder) {
  SeriesSpec spec;
  spec.points = {2, 4, 8, 16, 32};
  spec.repetitions = 3;
  spec.noise = 0.1;
  spec.laws = {{{"main"}, "time", "5"}, {{"main", "solve"}, "time", "1 + 2 * p"}};
  write_series(folder.string(), spec);
}

// The exclusive time main/solve stores in the reports of folder exp.p<p>.r*.
std::vector<double> stored_solve_times(const fs::path& series, int p) {
  std::vector<double> out;
  for (int r = 1; r <= 3; ++r) {
    const Report report = Report::open(
        (series / ("exp.p" + std::to_string(p) + ".r" + std::to_string(r)) / "profile.cubex")
            .string());
    const Model& model = report.model();
    for (Index c = 0; c < model.cnodes.size(); ++c)
      if (model.regions[model.cnodes[c].region].name == "solve") {
        double v = 0;
        std::memcpy(&v, report.severities(0)->row(c), 8);
        out.push_back(v);
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

cubekit::ServerOptions over(const fs::path& root) {
  cubekit::ServerOptions o;
  o.root = root;
  return o;
}

TEST(ServerModelApi, ModelsWithTheirMeasuredPoints) {
  test::TempDir dir("modelapi");
  write_noisy_series(dir.path() / "series");
  test::RunningServer server(over(dir.path()));
  const auto [status, body] = server.get("/api/v1/model?series=series&metric=time");
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body.at("parameter"), "p");
  EXPECT_EQ(body.at("calltree"), "excl");
  ASSERT_EQ(body.at("models").size(), 2u);  // main and main/solve, exclusive
  // The same objects as `cubekit model -s json` prints, plus the points.
  const test::RunResult tool =
      test::run_tool("cubekit", {"model", "-s", "json", (dir.path() / "series").string()});
  ASSERT_EQ(tool.exit_code, 0) << tool.err;
  const json printed = json::parse(tool.out);
  const json& solve = body.at("models").at(1);
  EXPECT_EQ(solve.at("callpath"), json::array({"main", "solve"}));
  json without_points = solve;
  without_points.erase("points");
  EXPECT_NE(std::find(printed.begin(), printed.end(), without_points), printed.end())
      << solve.dump();
  const json& points = solve.at("points");
  ASSERT_EQ(points.size(), 5u);
  int p = 2;
  for (const json& point : points) {
    const std::vector<double> times = stored_solve_times(dir.path() / "series", p);
    ASSERT_EQ(times.size(), 3u);
    EXPECT_EQ(point.at("parameter_value").get<double>(), p);
    EXPECT_EQ(point.at("coordinates"), json({{"p", p}}));
    EXPECT_EQ(point.at("minimum").get<double>(), times[0]);
    EXPECT_EQ(point.at("median").get<double>(), times[1]);
    EXPECT_EQ(point.at("maximum").get<double>(), times[2]);
    EXPECT_DOUBLE_EQ(point.at("value").get<double>(), (times[0] + times[1] + times[2]) / 3);
    p *= 2;
  }
  // One call path by its id in the series' first report; the inclusive models.
  const auto [one_status, one] =
      server.get("/api/v1/model?series=series&metric=time&calltree=incl&cnode=0");
  ASSERT_EQ(one_status, 200) << one.dump();
  ASSERT_EQ(one.at("models").size(), 1u);
  EXPECT_EQ(one.at("models")[0].at("callpath"), json::array({"main"}));
  EXPECT_EQ(one.at("models")[0].at("flavour"), "incl");
}

// A series of two parameters: every point carries its coordinates in both, the generated grid
// (p = 2…16 × n = 10…40) exactly once, parameter_value the first parameter's, and its value the
// law at that coordinate; the model is `cubekit model`'s. Refitted with exponents 1 and 4, a
// p^4·n law outside Extra-P's hypotheses comes back, as `cubekit model --exponents` fits it.
TEST(ServerModelApi, PointsOfATwoParameterSeriesHaveTheirCoordinates) {
  test::TempDir dir("modelapi");
  SeriesSpec spec;
  spec.points = {2, 4, 8, 16};
  spec.further_parameters = {{"n", {10, 20, 40}}};
  spec.laws = {{{"main"}, "time", "1 + 0.5 * p * n"},
               {{"main", "big"}, "time", "1 + 0.25 * p^4 * n"}};
  write_series((dir.path() / "series").string(), spec);
  test::RunningServer server(over(dir.path()));
  const auto [status, body] = server.get("/api/v1/model?series=series&metric=time");
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(body.at("parameters"), json::array({"p", "n"}));
  EXPECT_EQ(body.at("parameter"), "p");
  ASSERT_EQ(body.at("models").size(), 2u) << body.dump();  // main and main/big, exclusive
  const json& model = body.at("models")[0];
  const test::RunResult tool =
      test::run_tool("cubekit", {"model", "-s", "json", (dir.path() / "series").string()});
  ASSERT_EQ(tool.exit_code, 0) << tool.err;
  json without_points = model;
  without_points.erase("points");
  const json printed = json::parse(tool.out);
  EXPECT_NE(std::find(printed.begin(), printed.end(), without_points), printed.end()) << tool.out;
  std::vector<std::pair<double, double>> seen;
  for (const json& point : model.at("points")) {
    const json& at = point.at("coordinates");
    ASSERT_EQ(at.size(), 2u) << point.dump();
    const double p = at.at("p").get<double>(), n = at.at("n").get<double>();
    seen.emplace_back(p, n);
    EXPECT_EQ(point.at("parameter_value").get<double>(), p);
    EXPECT_DOUBLE_EQ(point.at("value").get<double>(), 1 + 0.5 * p * n) << point.dump();
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::pair<double, double>> grid;
  for (double p : {2, 4, 8, 16})
    for (double n : {10, 20, 40}) grid.emplace_back(p, n);
  EXPECT_EQ(seen, grid);
  EXPECT_EQ(body.at("models")[1].at("model").get<std::string>().find("p^(4)"), std::string::npos);
  const auto [refit_status, refit] =
      server.get("/api/v1/model?series=series&metric=time&exponents=1,4&log_exponents=0");
  ASSERT_EQ(refit_status, 200) << refit.dump();
  json big = refit.at("models").at(1);
  EXPECT_EQ(big.at("callpath"), json::array({"main", "big"}));
  EXPECT_NEAR(big.at("constant").get<double>(), 1, 1e-6);
  ASSERT_EQ(big.at("terms").size(), 1u) << big.dump();
  EXPECT_NEAR(big.at("terms")[0].at("coefficient").get<double>(), 0.25, 1e-9);
  const json factors = json::array({{{"parameter", "p"}, {"exponent", 4}, {"log_exponent", 0}},
                                    {{"parameter", "n"}, {"exponent", 1}, {"log_exponent", 0}}});
  EXPECT_EQ(big.at("terms")[0].at("factors"), factors);
  const test::RunResult refitted_tool =
      test::run_tool("cubekit", {"model", "--exponents", "1,4", "--log-exponents", "0", "-s",
                                 "json", (dir.path() / "series").string()});
  ASSERT_EQ(refitted_tool.exit_code, 0) << refitted_tool.err;
  big.erase("points");
  const json refitted_printed = json::parse(refitted_tool.out);
  EXPECT_NE(std::find(refitted_printed.begin(), refitted_printed.end(), big),
            refitted_printed.end())
      << refitted_tool.out;
}

// The report list names a series folder once, as one item (the viewer opens it whole), with
// the counts of its reports and points and its first report in folder-name order; a folder of
// report folders not named like experiments is no series.
TEST(ServerModelApi, TheReportListNamesASeriesOnce) {
  test::TempDir dir("modelapi");
  write_noisy_series(dir.path() / "runs" / "series");
  fs::create_directories(dir.path() / "plain" / "x");
  fs::copy_file(dir.path() / "runs/series/exp.p2.r1/profile.cubex",
                dir.path() / "plain/x/profile.cubex");
  test::RunningServer server(over(dir.path()));
  const auto [status, body] = server.get("/api/v1/reports");
  ASSERT_EQ(status, 200) << body.dump();
  std::vector<std::string> in_series;
  for (const json& r : body.at("reports"))
    if (r.at("path").get<std::string>().starts_with("runs/series/")) in_series.push_back(r["path"]);
  ASSERT_EQ(in_series.size(), 15u);  // 5 points × 3 repetitions, each listed as a report too
  ASSERT_EQ(body.at("series").size(), 1u) << body.dump();
  const json& series = body.at("series")[0];
  EXPECT_EQ(series.at("path"), "runs/series");
  EXPECT_EQ(series.at("reports"), 15);
  EXPECT_EQ(series.at("points"), 5);
  EXPECT_EQ(series.at("parameters"), json::array({"p"}));
  EXPECT_EQ(series.at("first"), *std::min_element(in_series.begin(), in_series.end()));
}

// The id of call path main/solve in `report`.
std::string solve_id(const fs::path& report) {
  const Report r = Report::open(report.string());
  const Model& model = r.model();
  for (Index c = 0; c < model.cnodes.size(); ++c)
    if (model.regions[model.cnodes[c].region].name == "solve")
      return std::to_string(model.cnodes[c].id);
  ADD_FAILURE() << "no solve in " << report;
  return "";
}

// The model of main/solve that `cubekit model ARGS -s json SERIES` prints.
json printed_solve_model(const fs::path& series, std::vector<std::string> args) {
  args.insert(args.begin(), "model");
  for (const char* a : {"-s", "json"}) args.push_back(a);
  args.push_back(series.string());
  const test::RunResult tool = test::run_tool("cubekit", args);
  EXPECT_EQ(tool.exit_code, 0) << tool.err;
  for (const json& m : json::parse(tool.out))
    if (m.at("callpath") == json::array({"main", "solve"}) && m.at("flavour") == "excl") return m;
  ADD_FAILURE() << "no model of main/solve in " << tool.out;
  return {};
}

// Extra-P's measures of a point (of the 3 repetitions' stored values) and its scalings, as
// `cubekit model --measure/--scaling` fits them; a call path named by its id in any report.
TEST(ServerModelApi, MeasureScalingAndTheReportOfACallPath) {
  test::TempDir dir("modelapi");
  write_noisy_series(dir.path() / "series");
  test::RunningServer server(over(dir.path()));
  const char* first = "series%2Fexp.p2.r1%2Fprofile.cubex";
  const std::string solve = solve_id(dir.path() / "series" / "exp.p2.r1" / "profile.cubex");
  const std::vector<std::pair<std::string, size_t>> measures = {
      {"minimum", 0}, {"median", 1}, {"maximum", 2}};
  for (const auto& [measure, rank] : measures) {
    const auto [status, body] =
        server.get("/api/v1/model?series=series&metric=time&measure=" + measure +
                   "&report=" + first + "&cnode=" + solve);
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(body.at("measure"), measure);
    ASSERT_EQ(body.at("models").size(), 1u);
    json model = body.at("models")[0];
    int p = 2;
    for (const json& point : model.at("points")) {
      EXPECT_EQ(point.at("value").get<double>(), stored_solve_times(dir.path() / "series", p)[rank])
          << measure << " at p=" << p;
      p *= 2;
    }
    model.erase("points");
    EXPECT_EQ(model, printed_solve_model(dir.path() / "series", {"--measure", measure}));
  }
  const auto [strong_status, strong] =
      server.get("/api/v1/model?series=series&metric=time&scaling=strong&cnode=" + solve);
  ASSERT_EQ(strong_status, 200) << strong.dump();
  EXPECT_EQ(strong.at("scaling"), "strong");
  json model = strong.at("models")[0];
  model.erase("points");
  EXPECT_EQ(model, printed_solve_model(dir.path() / "series", {"--scaling", "strong"}));
  auto status = [&](const std::string& query) {
    return server.get("/api/v1/model?series=series&metric=time&" + query).first;
  };
  EXPECT_EQ(status("measure=average"), 400);
  EXPECT_EQ(status("scaling=linear"), 400);
  EXPECT_EQ(status("report=..%2Fx.cubex&cnode=" + solve), 403);
  EXPECT_EQ(status("report=nothing.cubex&cnode=" + solve), 404);
  EXPECT_EQ(status("report=" + std::string(first) + "&cnode=99"), 404);
}

// PerformanceModeling: a call path refitted with another hypothesis space, as `cubekit model
// --exponents --log-exponents` fits it. p^4 is outside Extra-P's default space (exponents up
// to 3), so only the refit finds the law.
TEST(ServerModelApi, RefitWithAnotherHypothesisSpace) {
  test::TempDir dir("modelapi");
  SeriesSpec spec;
  spec.points = {2, 4, 8, 16, 32};
  spec.laws = {{{"main"}, "time", "1 + 0.25 * p^4"}};
  write_series((dir.path() / "series").string(), spec);
  test::RunningServer server(over(dir.path()));
  auto model = [&](const std::string& query) {
    const auto [status, body] = server.get("/api/v1/model?series=series&metric=time" + query);
    EXPECT_EQ(status, 200) << body.dump();
    return body;
  };
  const json fitted = model("").at("models").at(0);
  EXPECT_NE(fitted.at("terms").at(0).at("exponent"), 4) << fitted.dump();
  const json answer = model("&exponents=1,2,4&log_exponents=0,1");
  EXPECT_EQ(answer.at("exponents"), "1,2,4");
  EXPECT_EQ(answer.at("log_exponents"), "0,1");
  const json refitted = answer.at("models").at(0);
  EXPECT_NEAR(refitted.at("constant").get<double>(), 1, 1e-9);
  ASSERT_EQ(refitted.at("terms").size(), 1u) << refitted.dump();
  EXPECT_NEAR(refitted.at("terms")[0].at("coefficient").get<double>(), 0.25, 1e-12);
  EXPECT_EQ(refitted.at("terms")[0].at("exponent"), 4);
  EXPECT_EQ(refitted.at("terms")[0].at("log_exponent"), 0);
  EXPECT_EQ(refitted.at("points"), fitted.at("points"));
  // The same model as `cubekit model --exponents 1,2,4 --log-exponents 0,1` prints.
  const test::RunResult tool =
      test::run_tool("cubekit", {"model", "--exponents", "1,2,4", "--log-exponents", "0,1", "-s",
                                 "json", (dir.path() / "series").string()});
  ASSERT_EQ(tool.exit_code, 0) << tool.err;
  json without_points = refitted;
  without_points.erase("points");
  const json printed = json::parse(tool.out);
  EXPECT_NE(std::find(printed.begin(), printed.end(), without_points), printed.end()) << tool.out;
  const test::RunResult alone =
      test::run_tool("cubekit", {"model", "--exponents", "1,2", (dir.path() / "series").string()});
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_NE(alone.err.find("--exponents and --log-exponents go together"), std::string::npos)
      << alone.err;
  const test::RunResult bad = test::run_tool(
      "cubekit",
      {"model", "--exponents", "1/0", "--log-exponents", "0", (dir.path() / "series").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("exponents '1/0': '0' is not a whole number from 1 to 64"),
            std::string::npos)
      << bad.err;
  // Only exponents without p^4: the best of them, not the law.
  EXPECT_NE(model("&exponents=1,2&log_exponents=0").at("models")[0].at("terms")[0].at("exponent"),
            4);
  auto status = [&](const std::string& query) {
    return server.get("/api/v1/model?series=series&metric=time&" + query).first;
  };
  EXPECT_EQ(status("exponents=1,2"), 400);                   // without log_exponents
  EXPECT_EQ(status("log_exponents=0"), 400);                 // without exponents
  EXPECT_EQ(status("exponents=x&log_exponents=0"), 400);     // not a number
  EXPECT_EQ(status("exponents=1/0&log_exponents=0"), 400);   // no denominator
  EXPECT_EQ(status("exponents=1&log_exponents=9"), 400);     // beyond 8
  EXPECT_EQ(status("exponents=1,,2&log_exponents=0"), 400);  // an empty item
}

// The models are kept between requests, but a series whose reports were rewritten is fitted
// again: a viewer sees the new measurements.
TEST(ServerModelApi, ARewrittenSeriesIsFittedAgain) {
  test::TempDir dir("modelapi");
  SeriesSpec spec;
  spec.points = {2, 4, 8, 16};
  spec.laws = {{{"main"}, "time", "1 + 2 * p"}};
  write_series((dir.path() / "series").string(), spec);
  test::RunningServer server(over(dir.path()));
  auto slope = [&server] {
    const auto answer = server.get("/api/v1/model?series=series&metric=time");
    EXPECT_EQ(answer.first, 200) << answer.second.dump();
    return answer.second.at("models").at(0).at("terms").at(0).at("coefficient").get<double>();
  };
  EXPECT_NEAR(slope(), 2, 1e-9);
  EXPECT_NEAR(slope(), 2, 1e-9);  // from the cache
  spec.laws = {{{"main"}, "time", "1 + 3 * p"}};
  write_series((dir.path() / "series").string(), spec);
  EXPECT_NEAR(slope(), 3, 1e-9);
}

TEST(ServerModelApi, BadRequestsAndPathsOutsideTheRoot) {
  test::TempDir dir("modelapi"), outside("modelapi");
  write_noisy_series(dir.path() / "series");
  write_noisy_series(outside.path() / "series");
  fs::create_symlink(outside.path() / "series", dir.path() / "link");
  fs::create_directories(dir.path() / "escape");
  for (const char* experiment : {"exp.p2.r1", "exp.p4.r1", "exp.p8.r1"})
    fs::create_symlink(outside.path() / "series" / experiment, dir.path() / "escape" / experiment);
  test::RunningServer server(over(dir.path()));
  auto status = [&](const std::string& query) {
    return server.get("/api/v1/model?" + query).first;
  };
  EXPECT_EQ(status("metric=time"), 400);                            // no series
  EXPECT_EQ(status("series=series"), 400);                          // no metric
  EXPECT_EQ(status("series=series&metric=time&calltree=x"), 400);   // bad flavour
  EXPECT_EQ(status("series=series&metric=nothing"), 404);           // no such metric
  EXPECT_EQ(status("series=series&metric=time&cnode=99"), 404);     // no such call path
  EXPECT_EQ(status("series=nothing&metric=time"), 404);             // no such folder
  EXPECT_EQ(status("series=..&metric=time"), 403);                  // leaves the root
  EXPECT_EQ(status("series=%2Ftmp&metric=time"), 403);              // absolute
  EXPECT_EQ(status("series=link&metric=time"), 403);                // a link out of it
  EXPECT_EQ(status("series=escape&metric=time"), 403);              // a report out of it
  EXPECT_EQ(status("series=series%2Fexp.p2.r1&metric=time"), 422);  // not a series: no params
  const auto [code, body] = server.get("/api/v1/model?series=series%2Fexp.p2.r1&metric=time");
  EXPECT_EQ(body.at("error").get<std::string>().find(dir.path().string()), std::string::npos)
      << body.dump();
}

}  // namespace
}  // namespace cubekit
