// Multi-parameter models (fit_multi_parameter, model_series on a grid, per-location models):
// laws of two and three parameters planted into noise-free data come back as the model, with
// the terms, exponents and coefficients of the law; the least squares below them are exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/perf_model.hpp"
#include "model/least_squares.hpp"
#include "small_model.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

using Law2 = std::function<double(double, double)>;

std::vector<MeasuredPoint> grid(const Law2& law, const std::vector<double>& xs,
                                const std::vector<double>& ys) {
  std::vector<MeasuredPoint> points;
  for (double x : xs)
    for (double y : ys) points.push_back({x, law(x, y), {x, y}});
  return points;
}

// A planted term: coefficient and, per parameter, (numerator, denominator, log exponent).
struct PlantedFactor {
  std::string parameter;
  int numerator, denominator, log;
};
struct PlantedTerm {
  double coefficient;
  std::vector<PlantedFactor> factors;
};

// The model is c0 + the planted terms (in any order), coefficients to 1e-6 relative (a planted
// constant 0 to 1e-9 of `largest`).
void expect_law(const PerformanceModel& m, double c0, const std::vector<PlantedTerm>& planted,
                double largest) {
  ASSERT_EQ(m.terms.size(), planted.size()) << m.formula();
  EXPECT_NEAR(m.constant, c0, c0 == 0 ? 1e-9 * largest : 1e-6 * std::abs(c0)) << m.formula();
  for (const PlantedTerm& p : planted) {
    const auto same = [&p](const ModelTerm& t) {
      const std::vector<TermFactor> f = t.factors();
      if (f.size() != p.factors.size()) return false;
      for (size_t i = 0; i < f.size(); ++i)
        if (f[i].parameter != p.factors[i].parameter ||
            f[i].exponent_numerator * p.factors[i].denominator !=
                p.factors[i].numerator * f[i].exponent_denominator ||
            f[i].log_exponent != p.factors[i].log)
          return false;
      return true;
    };
    const auto it = std::find_if(m.terms.begin(), m.terms.end(), same);
    ASSERT_NE(it, m.terms.end()) << "no term with the planted factors in " << m.formula();
    EXPECT_NEAR(it->coefficient, p.coefficient, 1e-6 * std::abs(p.coefficient)) << m.formula();
  }
}

const std::vector<double> kX = {2, 4, 8, 16, 32};
const std::vector<double> kY = {10, 20, 40, 80, 160};
const std::vector<std::string> kXY = {"x", "y"};

TEST(MultiParameterModel, PlantedSumComesBack) {
  const Law2 law = [](double x, double y) { return 3 + 2 * x + 0.5 * y * y; };
  const PerformanceModel m = fit_multi_parameter(grid(law, kX, kY), kXY);
  expect_law(m, 3, {{2, {{"x", 1, 1, 0}}}, {0.5, {{"y", 2, 1, 0}}}}, law(32, 160));
  EXPECT_NEAR(m.smape, 0, 1e-9);
  const double at[] = {1024, 7};
  EXPECT_NEAR(m.evaluate(kXY, at), law(1024, 7), 1e-9 * law(1024, 7));
}

TEST(MultiParameterModel, PlantedProductWithLogarithmComesBack) {
  const Law2 law = [](double x, double y) { return 1 + 0.25 * std::pow(x, 1.5) * std::log2(y); };
  const PerformanceModel m = fit_multi_parameter(grid(law, kX, kY), kXY);
  expect_law(m, 1, {{0.25, {{"x", 3, 2, 0}, {"y", 0, 1, 1}}}}, law(32, 160));
  EXPECT_NE(m.formula().find(" * x^(3/2) * log2(y)^(1)"), std::string::npos) << m.formula();
}

TEST(MultiParameterModel, PlantedProductPlusOneParameterComesBack) {
  // x·y + x: Extra-P's hypothesis "a*b+a".
  const Law2 law = [](double x, double y) { return 5 * x * std::sqrt(y) + 7 * x; };
  const PerformanceModel m = fit_multi_parameter(grid(law, kX, kY), kXY);
  expect_law(m, 0, {{5, {{"x", 1, 1, 0}, {"y", 1, 2, 0}}}, {7, {{"x", 1, 1, 0}}}}, law(32, 160));
}

TEST(MultiParameterModel, OfEquallyGoodHypothesesTheFirstStays) {
  // Points along two lines only (x at y = 10, y at x = 2): the sum c0 + c1·x + c2·y² and the
  // sums of products c0 + c1·x·y² + c2·x (or + c2·y²) all pass through every point, so their
  // SMAPEs differ by rounding alone; the sum, tried first of them, is the model.
  const Law2 law = [](double x, double y) { return 3 + 2 * x + 5 * y * y; };
  std::vector<MeasuredPoint> points;
  for (double x : kX) points.push_back({x, law(x, 10), {x, 10}});
  for (double y : kY)
    if (y != 10) points.push_back({2, law(2, y), {2, y}});
  const PerformanceModel m = fit_multi_parameter(points, kXY);
  expect_law(m, 3, {{2, {{"x", 1, 1, 0}}}, {5, {{"y", 2, 1, 0}}}}, law(32, 160));
}

TEST(MultiParameterModel, ParametersWithoutEffectAreLeftOut) {
  const Law2 law = [](double, double y) { return 4 + 3 * std::sqrt(y); };
  const PerformanceModel m = fit_multi_parameter(grid(law, kX, kY), kXY);
  expect_law(m, 4, {{3, {{"y", 1, 2, 0}}}}, law(0, 160));
  const PerformanceModel constant =
      fit_multi_parameter(grid([](double, double) { return 42; }, kX, kY), kXY);
  EXPECT_EQ(constant.formula(), "42");
  EXPECT_EQ(constant.rss, 0);
  EXPECT_EQ(constant.adjusted_r2, 1);
}

// Another hypothesis space (the viewer's refit): x^4 lies outside Extra-P's exponents (up to
// 3), so the default model misses it; with the exponents 1 and 4 each parameter's model is
// fitted over them and the planted product comes back.
TEST(MultiParameterModel, AnotherHypothesisSpaceAppliesToEveryParameter) {
  const Law2 law = [](double x, double y) { return 1 + 0.25 * std::pow(x, 4) * y; };
  const std::vector<MeasuredPoint> points = grid(law, kX, kY);
  const PerformanceModel extrap = fit_multi_parameter(points, kXY);
  EXPECT_EQ(extrap.formula().find("x^(4)"), std::string::npos) << extrap.formula();
  const PerformanceModel m = fit_multi_parameter(points, kXY, parse_hypothesis_space("1,4", "0"));
  expect_law(m, 1, {{0.25, {{"x", 4, 1, 0}, {"y", 1, 1, 0}}}}, law(32, 160));
}

TEST(MultiParameterModel, AdjustedR2WithoutDegreesOfFreedomIsUndefined) {
  // Three points, two parameters with a term each: n − k − 1 = 0, where Extra-P divides by 0.
  const std::vector<MeasuredPoint> points = {{1, 3, {1, 1}}, {2, 4, {2, 1}}, {1, 6, {1, 2}}};
  const PerformanceModel m = fit_multi_parameter(points, kXY);
  ASSERT_FALSE(m.terms.empty()) << m.formula();
  size_t factors = 0;
  for (const ModelTerm& t : m.terms) factors += t.factors().size();
  EXPECT_EQ(factors, 2u) << m.formula();
  EXPECT_TRUE(std::isnan(m.adjusted_r2)) << m.adjusted_r2;
  EXPECT_TRUE(std::isfinite(m.constant)) << m.formula();
}

TEST(MultiParameterModel, PlantedThreeParameterLawComesBack) {
  // x·y + z: one of the mixed hypotheses Extra-P tries for three parameters.
  std::vector<MeasuredPoint> points;
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0})
    for (double y : {1.0, 2.0, 4.0, 8.0, 16.0})
      for (double z : {10.0, 100.0, 1000.0, 10000.0})
        points.push_back({x, 2 + 0.5 * x * x * y + 3 * std::cbrt(z), {x, y, z}});
  const PerformanceModel m = fit_multi_parameter(points, {"x", "y", "z"});
  expect_law(m, 2, {{0.5, {{"x", 2, 1, 0}, {"y", 1, 1, 0}}}, {3, {{"z", 1, 3, 0}}}}, 250);
}

TEST(MultiParameterModel, BadPointsAreRefused) {
  std::vector<MeasuredPoint> points = grid([](double x, double y) { return x + y; }, kX, kY);
  points[3].coordinate.pop_back();
  EXPECT_THROW(fit_multi_parameter(points, kXY), Error);
  points = grid([](double x, double y) { return x + y; }, kX, kY);
  points[3].value = NAN;
  EXPECT_THROW(fit_multi_parameter(points, kXY), Error);
  points = grid([](double x, double y) { return x + y; }, kX, kY);
  points[3].coordinate = points[4].coordinate;
  EXPECT_THROW(fit_multi_parameter(points, kXY), Error);
}

TEST(LeastSquares, ExactForBadlyScaledColumnsAndOfLeastNormWhenRankDeficient) {
  // y = 1 + 1e-9 · p³ at p up to 10⁴: the columns differ by 12 orders of magnitude, and the
  // normal equations (condition 1e24) would lose every digit of the constant.
  model_detail::Columns a(2);
  std::vector<double> b;
  for (double p : {1.0, 10.0, 100.0, 1000.0, 10000.0}) {
    a[0].push_back(1);
    a[1].push_back(p * p * p);
    b.push_back(1 + 1e-9 * a[1].back());
  }
  const std::vector<double> x = model_detail::least_squares(a, b);
  EXPECT_NEAR(x[0], 1, 1e-9);
  EXPECT_NEAR(x[1], 1e-9, 1e-18);
  // Two equal columns: every split of 2 fits; the least-norm one is (1, 1).
  const std::vector<double> split = model_detail::least_squares({{1, 1, 1}, {1, 1, 1}}, {2, 2, 2});
  EXPECT_NEAR(split[0], 1, 1e-12);
  EXPECT_NEAR(split[1], 1, 1e-12);
  // A column below eps · rows · σ_max beside a huge one counts as zero, as in NumPy's lstsq:
  // then the least-norm solution puts nothing on it.
  const std::vector<double> cut = model_detail::least_squares({{1, 1}, {1e20, 0}}, {1e20, 1});
  EXPECT_NEAR(cut[0], 0, 1e-12);
  EXPECT_NEAR(cut[1], 1, 1e-12);
}

TEST(MultiParameterSeries, GeneratedGridGivesItsLawsBack) {
  test::TempDir dir("model");
  SeriesSpec spec;
  spec.parameter = "x";
  spec.points = {2, 4, 8, 16, 32};
  spec.further_parameters = {{"y", {1, 10, 100, 1000}}};
  spec.repetitions = 2;
  spec.laws = {{{"main"}, "time", "7"},
               {{"main", "solve"}, "time", "2 * x * log2(x) * y^(1/2)"},
               {{"main", "io"}, "time", "1 + 0.5 * x^2 + 4 * y"}};
  write_series(dir.path().string(), spec);
  const Series series = read_series_folder(dir.path().string());
  ASSERT_EQ(series.parameters, kXY);
  EXPECT_EQ(series.reports.size(), 40u);
  std::map<std::string, PerformanceModel> models;
  for (const CallPathModel& m : model_series(series).models)
    if (m.flavour == Flavour::kExclusive && m.metric == "time") models[m.callpath.back()] = m.model;
  expect_law(models.at("solve"), 0, {{2, {{"x", 1, 1, 1}, {"y", 1, 2, 0}}}}, 10200);
  expect_law(models.at("io"), 1, {{0.5, {{"x", 2, 1, 0}}}, {4, {{"y", 1, 1, 0}}}}, 4513);
  EXPECT_EQ(models.at("main").formula(), "7");
}

// A series of one call path "main" on three locations: location l has the exclusive time
// (l + 1) · p^2 at p = 2, 4, 8, 16 (one report per point).
void write_three_locations(const std::filesystem::path& folder) {
  for (double p : {2.0, 4.0, 8.0, 16.0}) {
    const std::filesystem::path dir = folder / ("run.p" + std::to_string(int(p)) + ".r1");
    std::filesystem::create_directories(dir);
    auto model = std::make_shared<Model>();
    test::add_one_machine(*model, {3});
    test::add_call_tree(*model, {"main"}, {kNoIndex});
    test::add_metric(*model, "time", "DOUBLE", MetricKind::kExclusive);
    const std::string path = (dir / "profile.cubex").string();
    model->finalize(path);
    ReportWriter writer(path, model);
    writer.begin_metric(0);
    const double row[3] = {p * p, 2 * p * p, 3 * p * p};
    writer.write_row(0, reinterpret_cast<const std::byte*>(row));
    writer.end_metric();
    writer.finish();
  }
}

TEST(PerLocationModels, EachLocationGetsItsOwnLaw) {
  test::TempDir dir("model");
  write_three_locations(dir.path());
  const Series series = read_series_folder(dir.path().string());
  SeriesOptions options;
  options.per_location = true;
  const SeriesModels result = model_series(series, options);
  ASSERT_EQ(result.models.size(), 6u);  // 3 locations × 2 flavours
  for (const CallPathModel& m : result.models) {
    ASSERT_TRUE(m.location.has_value());
    expect_law(m.model, 0, {{double(*m.location + 1), {{"p", 2, 1, 0}}}}, 768);
  }
  // Pooled (weak scaling), the mean of the three: 2 · p^2.
  const SeriesModels pooled = model_series(series);
  ASSERT_EQ(pooled.models.size(), 2u);
  EXPECT_FALSE(pooled.models[0].location.has_value());
  expect_law(pooled.models[0].model, 0, {{2, {{"p", 2, 1, 0}}}}, 512);
}

TEST(PerLocationModels, ToolPrintsTheLocationAndRefusesStrongScaling) {
  test::TempDir dir("model");
  write_three_locations(dir.path());
  const test::RunResult r =
      test::run_tool("cubekit", {"model", "--per-location", "-s", "json", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int l = 0; l < 3; ++l)
    EXPECT_NE(
        r.out.find("\"flavour\": \"excl\", \"location\": " + std::to_string(l) + ", \"model\": "),
        std::string::npos)
        << r.out;
  const test::RunResult csv =
      test::run_tool("cubekit", {"model", "--per-location", "-s", "csv", dir.path().string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("callpath,metric,flavour,location,model,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("\nmain,time,excl,2,"), std::string::npos) << csv.out;
  const test::RunResult strong = test::run_tool(
      "cubekit", {"model", "--per-location", "--scaling", "strong", dir.path().string()});
  EXPECT_EQ(strong.exit_code, 1);
  EXPECT_NE(strong.err.find("--per-location"), std::string::npos) << strong.err;
}

TEST(MultiParameterSeries, ToolTakesPointsAndPredictionsOfSeveralParameters) {
  test::TempDir dir("model");
  const std::string series = (dir.path() / "s").string();
  const test::RunResult g =
      test::run_tool("cubekit", {"generate", "--series", series, "--law", "main:time=3*x*y",
                                 "--points", "x=1,2,4,8", "--points", "y=2,4,8,16"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_NE(g.out.find("16 points"), std::string::npos) << g.out;
  const test::RunResult r =
      test::run_tool("cubekit", {"model", "-s", "json", "--predict", "y=10,x=100", series});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string point = "\"predictions\": [{\"point\": {\"x\": 100, \"y\": 10}, \"value\": ";
  const size_t at = r.out.find(point);
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(at + point.size())), 3000, 1e-9 * 3000) << r.out;
  EXPECT_NE(r.out.find("\"factors\": [{\"parameter\": \"x\", \"exponent\": 1, \"log_exponent\": "
                       "0}, {\"parameter\": \"y\", \"exponent\": 1, \"log_exponent\": 0}]"),
            std::string::npos)
      << r.out;
  // The same series as explicit points, x=..,y=.. each.
  std::vector<std::string> args = {"model", "-s", "csv"};
  for (double x : {1, 2, 4, 8})
    for (double y : {2, 4, 8, 16}) {
      char name[64];
      std::snprintf(name, sizeof name, "exp.x%gy%g.r1", x, y);
      args.insert(args.end(),
                  {"--point", "x=" + std::to_string(int(x)) + ",y=" + std::to_string(int(y)),
                   series + "/" + name + "/profile.cubex"});
    }
  const test::RunResult explicit_points = test::run_tool("cubekit", args);
  ASSERT_EQ(explicit_points.exit_code, 0) << explicit_points.err;
  EXPECT_NE(explicit_points.out.find("* x^(1) * y^(1),"), std::string::npos) << explicit_points.out;
  const test::RunResult bad = test::run_tool("cubekit", {"model", "--predict", "x=100", series});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("the series' parameters are x,y"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace cubekit
