// Performance models (cubekit/perf_model.hpp): laws planted into noise-free series come back
// as the chosen model with their exponents and coefficients; bad series are refused clearly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/perf_model.hpp"
#include "model/series_names.hpp"
#include "small_model.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

using Law = std::function<double(double)>;

std::vector<MeasuredPoint> sample(const Law& law, const std::vector<double>& at) {
  std::vector<MeasuredPoint> points;
  for (double p : at) points.push_back({p, law(p)});
  return points;
}

// The model has one term c · p^(num/den) · log2(p)^log and the constant c0 (both to 1e-6
// relative; a planted 0 to 1e-9 of the largest value).
void expect_one_term(const PerformanceModel& m, double c0, double c, int num, int den, int log,
                     double largest) {
  ASSERT_EQ(m.terms.size(), 1u) << m.formula();
  const ModelTerm& t = m.terms[0];
  EXPECT_EQ(t.exponent_numerator * den, num * t.exponent_denominator) << m.formula();
  EXPECT_EQ(t.log_exponent, log) << m.formula();
  EXPECT_NEAR(t.coefficient, c, 1e-6 * std::abs(c)) << m.formula();
  EXPECT_NEAR(m.constant, c0, c0 == 0 ? 1e-9 * largest : 1e-6 * std::abs(c0)) << m.formula();
}

const std::vector<double> kPoints = {2, 4, 8, 16, 32, 64};

TEST(PerfModel, PlantedPowerTimesLogComesBack) {
  const Law law = [](double p) { return 0.5 * std::pow(p, 1.5) * std::log2(p); };
  const PerformanceModel m = fit_single_parameter(sample(law, kPoints), "p");
  expect_one_term(m, 0, 0.5, 3, 2, 1, law(64));
  EXPECT_EQ(m.formula().find("p^(3/2) * log2(p)^(1)") != std::string::npos, true) << m.formula();
}

TEST(PerfModel, PlantedLinearLawWithConstantComesBack) {
  const Law law = [](double p) { return 7 + 3 * p; };
  const PerformanceModel m = fit_single_parameter(sample(law, kPoints), "p");
  expect_one_term(m, 7, 3, 1, 1, 0, law(64));
  EXPECT_NEAR(m.evaluate(1024), 7 + 3 * 1024, 1e-6 * 3079);
}

TEST(PerfModel, PlantedPureLogAndRootComeBack) {
  const PerformanceModel log2 = fit_single_parameter(
      sample([](double p) { return 4 * std::log2(p) * std::log2(p); }, {2, 4, 8, 16, 32}), "x");
  expect_one_term(log2, 0, 4, 0, 1, 2, 100);
  const PerformanceModel root = fit_single_parameter(
      sample([](double p) { return 1 + 2 * std::cbrt(p); }, {1, 10, 100, 1000, 10000}), "x");
  expect_one_term(root, 1, 2, 1, 3, 0, 50);
}

TEST(PerfModel, ConstantDataGiveAConstantModel) {
  const PerformanceModel m = fit_single_parameter(sample([](double) { return 42; }, kPoints), "p");
  EXPECT_TRUE(m.terms.empty());
  EXPECT_EQ(m.constant, 42);
  EXPECT_EQ(m.rss, 0);
  EXPECT_EQ(m.smape, 0);
  EXPECT_EQ(m.adjusted_r2, 1);
  EXPECT_EQ(m.formula(), "42");
}

TEST(PerfModel, ParameterValuesBelowOneGetNoLogTerms) {
  // log2(p)^2 data, but p = 0.5 is among the points: log terms are not tried (Extra-P's rule).
  const PerformanceModel m =
      fit_single_parameter(sample([](double p) { return 3 * p * p; }, {0.5, 2, 4, 8, 16}), "p");
  expect_one_term(m, 0, 3, 2, 1, 0, 768);
}

TEST(PerfModel, TooFewPointsAndNonFiniteValuesAreErrors) {
  const std::vector<MeasuredPoint> two = {{1, 1}, {2, 2}};
  EXPECT_THROW(fit_single_parameter(two, "p"), Error);
  const std::vector<MeasuredPoint> nan = {{1, 1}, {2, NAN}, {3, 3}};
  EXPECT_THROW(fit_single_parameter(nan, "p"), Error);
}

// A series on disk: folder/mm.p<P>.r<R>/profile.cubex with call paths main -> solve, metrics
// time (DOUBLE) and visits (UINT64), on two locations. Exclusive values per location:
// solve = law(p) · factor, main = 2 · factor (time), visits: solve 3p, main 1.
void write_series(const std::filesystem::path& folder, const Law& law,
                  const std::vector<double>& points, const std::vector<double>& repetitions) {
  for (double p : points)
    for (size_t r = 0; r < repetitions.size(); ++r) {
      const std::filesystem::path dir =
          folder / ("mm.p" + std::to_string(int(p)) + ".r" + std::to_string(r + 1));
      std::filesystem::create_directories(dir);
      auto model = std::make_shared<Model>();
      test::add_one_machine(*model, {2});
      test::add_call_tree(*model, {"main", "solve"}, {kNoIndex, 0});
      test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
      test::add_metric(*model, "visits", "UINT64", MetricKind::kExclusive);
      const std::string path = (dir / "profile.cubex").string();
      model->finalize(path);
      ReportWriter writer(path, model);
      const double f = repetitions[r];
      writer.begin_metric(0);
      const double main_time[2] = {2 * f, 2 * f}, solve_time[2] = {law(p) * f, law(p) * f};
      writer.write_row(0, reinterpret_cast<const std::byte*>(main_time));
      writer.write_row(1, reinterpret_cast<const std::byte*>(solve_time));
      writer.end_metric();
      writer.begin_metric(1);
      const uint64_t main_visits[2] = {1, 1}, solve_visits[2] = {uint64_t(3 * p), uint64_t(3 * p)};
      writer.write_row(0, reinterpret_cast<const std::byte*>(main_visits));
      writer.write_row(1, reinterpret_cast<const std::byte*>(solve_visits));
      writer.end_metric();
      writer.finish();
    }
}

using ModelsByKey = std::map<std::string, CallPathModel>;
ModelsByKey by_key(const std::vector<CallPathModel>& models) {
  ModelsByKey out;
  for (const CallPathModel& m : models) {
    std::string key;
    for (const std::string& n : m.callpath) key += n + "/";
    key += m.metric + (m.flavour == Flavour::kInclusive ? " incl" : " excl");
    out[key] = m;
  }
  return out;
}

const Law kTimeLaw = [](double p) { return 0.5 * std::pow(p, 1.5) * std::log2(p); };
const std::vector<double> kSeriesPoints = {2, 4, 8, 16, 32};

TEST(PerfModel, SeriesFolderGivesEveryCallPathMetricAndFlavour) {
  test::TempDir dir("model");
  write_series(dir.path(), kTimeLaw, kSeriesPoints, {1});
  const Series series = read_series_folder(dir.path().string());
  ASSERT_EQ(series.parameters, std::vector<std::string>{"p"});
  ASSERT_EQ(series.reports.size(), 5u);
  const ModelsByKey models = by_key(model_series(series).models);
  ASSERT_EQ(models.size(), 8u);
  const double largest = kTimeLaw(32) + 2;
  // Weak scaling (the default): each location is a sample, so the mean of equal locations.
  expect_one_term(models.at("main/solve/time excl").model, 0, 0.5, 3, 2, 1, largest);
  expect_one_term(models.at("main/solve/time incl").model, 0, 0.5, 3, 2, 1, largest);
  expect_one_term(models.at("main/time incl").model, 2, 0.5, 3, 2, 1, largest);
  const PerformanceModel& main_excl = models.at("main/time excl").model;
  EXPECT_TRUE(main_excl.terms.empty());
  EXPECT_EQ(main_excl.constant, 2);
  expect_one_term(models.at("main/solve/visits excl").model, 0, 3, 1, 1, 0, 96);
  expect_one_term(models.at("main/visits incl").model, 1, 3, 1, 1, 0, 97);
  EXPECT_EQ(models.at("main/visits excl").model.formula(), "1");
}

TEST(PerfModel, StrongScalingSumsLocationsAndMeasuresPickAmongRepetitions) {
  test::TempDir dir("model");
  write_series(dir.path(), kTimeLaw, kSeriesPoints, {1, 10, 2});
  const Series series = read_series_folder(dir.path().string());
  ASSERT_EQ(series.reports.size(), 15u);
  const double largest = 20 * kTimeLaw(32);
  const std::vector<std::pair<Measure, double>> factors = {{Measure::kMean, 13.0 / 3},
                                                           {Measure::kMedian, 2},
                                                           {Measure::kMinimum, 1},
                                                           {Measure::kMaximum, 10}};
  for (const auto& [measure, factor] : factors) {
    SeriesOptions options;
    options.scaling = Scaling::kStrong;
    options.measure = measure;
    const ModelsByKey models = by_key(model_series(series, options).models);
    // Two locations summed: twice the per-location law, scaled by the chosen repetition.
    expect_one_term(models.at("main/solve/time excl").model, 0, 2 * 0.5 * factor, 3, 2, 1, largest);
    EXPECT_EQ(models.at("main/time excl").model.constant, 2 * 2 * factor);
  }
}

// min_time (MINDOUBLE) of solve is law(p) on location 0 and DBL_MAX (the identity: never ran
// there) on location 1; at p = 2 only, main also calls "setup".
void write_min_time_series(const std::filesystem::path& folder) {
  for (double p : kSeriesPoints) {
    const std::filesystem::path dir = folder / ("run.p" + std::to_string(int(p)));
    std::filesystem::create_directories(dir);
    auto model = std::make_shared<Model>();
    test::add_one_machine(*model, {2});
    if (p == 2)
      test::add_call_tree(*model, {"main", "solve", "setup"}, {kNoIndex, 0, 0});
    else
      test::add_call_tree(*model, {"main", "solve"}, {kNoIndex, 0});
    test::add_metric(*model, "min_time", "MINDOUBLE", MetricKind::kExclusive);
    std::vector<double> rows(model->cnodes.size() * 2, 1.0);
    rows[2] = kTimeLaw(p);
    rows[3] = DBL_MAX;
    const std::string path = (dir / "profile.cubex").string();
    model->finalize(path);
    ReportWriter writer(path, model);
    writer.begin_metric(0);
    for (Index c : storage_order(*model, MetricKind::kExclusive))
      writer.write_row(c, reinterpret_cast<const std::byte*>(&rows[2 * c]));
    writer.end_metric();
    writer.finish();
  }
}

TEST(PerfModel, LocationsWithoutAMinimumAndCallPathsMissingSomewhereAreNoSamples) {
  test::TempDir dir("model");
  write_min_time_series(dir.path());
  const Series series = read_series_folder(dir.path().string());
  for (Scaling scaling : {Scaling::kWeak, Scaling::kStrong}) {
    SeriesOptions options;
    options.scaling = scaling;
    const SeriesModels result = model_series(series, options);
    const ModelsByKey models = by_key(result.models);
    expect_one_term(models.at("main/solve/min_time excl").model, 0, 0.5, 3, 2, 1, kTimeLaw(32));
    // Inclusive: the minimum over the subtree, main's own 1 (solve's values are larger).
    EXPECT_EQ(models.at("main/min_time incl").model.formula(), "1");
    ASSERT_EQ(result.incomplete.size(), 2u);  // setup, both flavours
    EXPECT_EQ(result.incomplete[0].callpath, (std::vector<std::string>{"main", "setup"}));
    EXPECT_EQ(result.incomplete[0].points.size(), 1u);
  }
}

// Folder names read as Extra-P reads them (abstract_directory_reader.py): the text between the
// first '.' (the start without one) and the first ".r", split into names and numbers. Where
// that ".r" is the first '.', nothing: the repetition is no parameter ("mm.r1" gave a parameter
// "" = 1, and "x4y1z1.r1" that alone, not x, y and z; found by fuzz_series_names), and the
// name names none.
TEST(PerfModel, FolderNamesReadAsExtrapReadsThem) {
  using model_detail::parse_folder_name;
  const auto mm = parse_folder_name("mm.x10y1,5z2.r3");
  EXPECT_EQ(mm.names, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(mm.values, (std::vector<double>{10, 1.5, 2}));
  const auto dotted = parse_folder_name("a.x1.y2.r10");  // "x1.y2": 1 (trailing '.' dropped), 2
  EXPECT_EQ(dotted.names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(dotted.values, (std::vector<double>{1, 2}));
  const auto plain = parse_folder_name("p8q16");
  EXPECT_EQ(plain.names, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(plain.values, (std::vector<double>{8, 16}));
  for (const char* none : {"mm.r1", ".r5x4", "x4y1z1.r1"}) {
    try {
      parse_folder_name(none);
      ADD_FAILURE() << none << ": read as a point";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("names no parameter"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_folder_name("mm.x1.2.3.r1"), Error);  // "1.2.3" is no number
  for (const auto& [folder, why] :
       {std::pair{"mm.8.r1", "the value '8' has no parameter name"},
        std::pair{"mm.x1y2x3.r1", "the parameter 'x' is named twice"}}) {
    try {
      parse_folder_name(folder);
      ADD_FAILURE() << folder << ": read as a point";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(folder) + ": " + why), std::string::npos)
          << e.what();
    }
  }
}

TEST(PerfModel, BadSeriesFoldersAreRefusedNamingTheProblem) {
  test::TempDir dir("model");
  EXPECT_THROW(read_series_folder((dir.path() / "absent").string()), Error);
  std::filesystem::create_directories(dir.path() / "empty" / "mm.x1.r1");
  try {
    read_series_folder((dir.path() / "empty").string());
    ADD_FAILURE() << "no error for a folder without reports";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no experiment folder holds a .cubex"), std::string::npos)
        << e.what();
  }
  write_series(dir.path() / "two", kTimeLaw, {2, 4}, {1});
  const Series two = read_series_folder((dir.path() / "two").string());
  try {
    model_series(two);
    ADD_FAILURE() << "no error for two points";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 measurement points"), std::string::npos) << e.what();
  }
  test::TempDir named("model");
  std::filesystem::create_directories(named.path() / "profile");
  test::TempDir source("model");
  write_series(source.path(), kTimeLaw, {2}, {1});
  std::filesystem::copy_file(source.path() / "mm.p2.r1" / "profile.cubex",
                             named.path() / "profile" / "profile.cubex");
  EXPECT_THROW(read_series_folder(named.path().string()), Error);
}

TEST(PerfModel, ToolPrintsJsonWithPredictionsAndFailsClearly) {
  test::TempDir dir("model");
  write_series(dir.path(), kTimeLaw, kSeriesPoints, {1});
  const test::RunResult r = test::run_tool(
      "cubekit", {"model", "-s", "json", "--predict", "p=1024", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string solve =
      "\"callpath\": [\"main\", \"solve\"], \"metric\": \"visits\", "
      "\"flavour\": \"excl\"";
  const size_t at = r.out.find(solve);
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string object = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(object.find("\"exponent\": 1, \"log_exponent\": 0"), std::string::npos) << object;
  const std::string point = "\"predictions\": [{\"point\": {\"p\": 1024}, \"value\": ";
  const size_t value = object.find(point);
  ASSERT_NE(value, std::string::npos) << object;
  EXPECT_NEAR(std::stod(object.substr(value + point.size())), 3 * 1024, 1e-9 * 3072) << object;
  const test::RunResult table =
      test::run_tool("cubekit", {"model", "--predict", "p=10", dir.path().string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("call path ", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("p=10\n"), std::string::npos) << table.out;  // the prediction column
  EXPECT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), 9);   // header and 8 models
  const test::RunResult bad = test::run_tool("cubekit", {"model", (dir.path() / "x").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("not a folder"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace cubekit

namespace cubekit {
namespace {

TEST(SeriesGenerator, LawsEvaluateWithPrecedenceAndFunctions) {
  EXPECT_DOUBLE_EQ(evaluate_law("1 + 2 * p^2", "p", 3), 19);
  EXPECT_DOUBLE_EQ(evaluate_law("-p^2", "p", 3), -9);
  EXPECT_DOUBLE_EQ(evaluate_law("2^3^2", "x", 0), 512);
  EXPECT_DOUBLE_EQ(evaluate_law("(1 + x) / 4 - 0.5", "x", 3), 0.5);
  EXPECT_DOUBLE_EQ(evaluate_law("log2(x) * sqrt(x) + log(exp(2))", "x", 16), 18);
  for (const char* bad : {"1 +", "p^(2", "q", "log2 p", "2 * * p", "1)"})
    EXPECT_THROW(evaluate_law(bad, "p", 2), Error) << bad;
}

TEST(SeriesGenerator, NoiseFreeSeriesGiveTheirLawsBack) {
  test::TempDir dir("model");
  SeriesSpec spec;
  spec.parameter = "n";
  spec.points = {1, 2, 4, 8, 16, 32};
  spec.repetitions = 2;
  spec.laws = {{{"main"}, "time", "4"},
               {{"main", "kernel"}, "time", "0.5 * n^1.5 * log2(n)"},
               {{"main", "kernel"}, "visits", "3 * n"}};
  write_series(dir.path().string(), spec);
  const Series series = read_series_folder(dir.path().string());
  ASSERT_EQ(series.parameters, std::vector<std::string>{"n"});
  EXPECT_EQ(series.reports.size(), 12u);
  const auto models = by_key(model_series(series).models);
  expect_one_term(models.at("main/kernel/time excl").model, 0, 0.5, 3, 2, 1, 2000);
  expect_one_term(models.at("main/time incl").model, 4, 0.5, 3, 2, 1, 2000);
  expect_one_term(models.at("main/kernel/visits excl").model, 0, 3, 1, 1, 0, 96);
  EXPECT_EQ(models.at("main/time excl").model.formula(), "4");
}

TEST(SeriesGenerator, NoiseStaysWithinItsBoundsAndRepeatsWithTheSeed) {
  test::TempDir a("model"), b("model");
  SeriesSpec spec;
  spec.points = {2, 4, 8};
  spec.repetitions = 4;
  spec.noise = 0.02;
  spec.laws = {{{"main"}, "time", "100 * p"}};
  write_series(a.path().string(), spec);
  write_series(b.path().string(), spec);
  SeriesOptions minimum, maximum;
  minimum.measure = Measure::kMinimum;
  maximum.measure = Measure::kMaximum;
  for (const SeriesOptions& options : {minimum, maximum}) {
    const auto models = model_series(read_series_folder(a.path().string()), options).models;
    const auto again = model_series(read_series_folder(b.path().string()), options).models;
    for (size_t i = 0; i < models[0].points.size(); ++i) {
      const MeasuredPoint& m = models[0].points[i];
      EXPECT_LE(std::abs(m.value - 100 * m.parameter_value), 0.02 * 100 * m.parameter_value);
      EXPECT_NE(m.value, 100 * m.parameter_value);  // the noise is there
      EXPECT_EQ(m.value, again[0].points[i].value);
    }
  }
}

TEST(SeriesGenerator, BadSpecsAreRefused) {
  test::TempDir dir("model");
  SeriesSpec spec;
  EXPECT_THROW(write_series(dir.path().string(), spec), Error);  // no law
  spec.laws = {{{"main"}, "time", "p"}};
  EXPECT_THROW(write_series(dir.path().string(), spec), Error);  // no point
  spec.points = {0, 1, 2};
  spec.laws = {{{"main"}, "time", "log2(p)"}};  // -inf at 0
  EXPECT_THROW(write_series(dir.path().string(), spec), Error);
  spec.laws = {{{"main"}, "time", "p"}};
  spec.parameter = "r";  // Extra-P would read ".r" as the repetition
  EXPECT_THROW(write_series(dir.path().string(), spec), Error);
  spec.parameter = "p";
  spec.noise = 1.5;
  EXPECT_THROW(write_series(dir.path().string(), spec), Error);
}

TEST(SeriesGenerator, ToolWritesASeriesTheModelToolReads) {
  test::TempDir dir("model");
  const std::string series = (dir.path() / "s").string();
  const test::RunResult r =
      test::run_tool("cubekit", {"generate", "--series", series, "--law", "main/solve:time=2*p",
                                 "--points", "p=1,2,4,8", "--repetitions", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const test::RunResult m = test::run_tool("cubekit", {"model", "-s", "csv", series});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const size_t line = m.out.find("main->solve,time,excl,");
  ASSERT_NE(line, std::string::npos) << m.out;
  EXPECT_NE(m.out.substr(line, m.out.find('\n', line) - line).find(" + 2 * p^(1),"),
            std::string::npos)
      << m.out;
  const test::RunResult bad = test::run_tool(
      "cubekit", {"generate", "--series", series, "--law", "time=2*", "--points", "p=1,2"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("law '2*'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace cubekit
