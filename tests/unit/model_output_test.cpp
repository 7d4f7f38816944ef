// Where models go (cubekit/model_output.hpp): a Cube report of SCALE_FUNC values decoded here
// from the bytes as cube-format.md §7.3 lays them out and printed by cube_dump as CubeLib prints
// them (its Term::getString: coefficient at precision 2, exponents with showpoint, dominant
// terms first), and Extra-P's JSON input and experiment file checked against the values stored
// in the series and the planted laws.
#include <gtest/gtest.h>
#include <unzip.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cube_dump_text.hpp"
#include "cubekit/error.hpp"
#include "cubekit/model_output.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/report.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

struct Term {
  double a;
  int32_t b;
  uint32_t c;
  int32_t d;
};

// The terms of an 848-byte SCALE_FUNC slot: u32 count, u32 measurements, packed 20-byte terms.
std::vector<Term> decode_slot(const std::byte* slot) {
  uint32_t n = 0, measurements = 0;
  std::memcpy(&n, slot, 4);
  std::memcpy(&measurements, slot + 4, 4);
  EXPECT_EQ(measurements, 0u);
  std::vector<Term> terms(n);
  for (uint32_t i = 0; i < n; ++i) {
    const std::byte* p = slot + 8 + 20 * i;
    std::memcpy(&terms[i].a, p, 8);
    std::memcpy(&terms[i].b, p + 8, 4);
    std::memcpy(&terms[i].c, p + 12, 4);
    std::memcpy(&terms[i].d, p + 16, 4);
  }
  return terms;
}

// A noise-free series: time = 2 + 3·p^(3/2) in main, 1 + 4·p² in main/solve; visits = 7 +
// 5·p·log2(p) in main/solve and 0 in main (a constant 0: a model without terms, no row). Every
// law has a constant: a fitted constant of 0 can come out as a rounding residue like 4e-16.
SeriesSpec planted_spec() {
  SeriesSpec spec;
  spec.points = {2, 4, 8, 16, 32};
  spec.laws = {{{"main"}, "time", "2 + 3 * p^1.5"},
               {{"main", "solve"}, "time", "1 + 4 * p^2"},
               {{"main", "solve"}, "visits", "7 + 5 * p * log2(p)"}};
  return spec;
}

const CallPathModel& find_model(const std::vector<CallPathModel>& models,
                                const std::vector<std::string>& callpath, const std::string& metric,
                                Flavour flavour) {
  for (const CallPathModel& m : models)
    if (m.callpath == callpath && m.metric == metric && m.flavour == flavour) return m;
  throw Error("no model of " + metric);
}

std::string cnode_names(const Model& model, Index c) {
  std::string names;
  for (; c != kNoIndex; c = model.cnodes[c].parent)
    names = model.regions[model.cnodes[c].region].name + (names.empty() ? "" : "/") + names;
  return names;
}

TEST(ModelReport, HoldsTheFittedExclusiveModelsAsScaleFunctions) {
  test::TempDir dir("modelout");
  write_series((dir.path() / "s").string(), planted_spec());
  const SeriesModels fitted = model_series(read_series_folder((dir.path() / "s").string()));
  const std::string path = (dir.path() / "models.cubex").string();
  write_model_report(path, fitted.models, {"p"});

  const Report report = Report::open(path);
  const Model& model = report.model();
  ASSERT_EQ(model.metrics.size(), 2u);
  ASSERT_EQ(model.cnodes.size(), 2u);
  ASSERT_EQ(model.locations.size(), 1u);
  ASSERT_NE(model.attr("ScaleFuncPresent"), nullptr);
  EXPECT_EQ(*model.attr("ScaleFuncPresent"), "1");
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const Metric& metric = model.metrics[m];
    EXPECT_EQ(metric.dtype_text, "SCALE_FUNC");
    EXPECT_EQ(metric.kind, MetricKind::kExclusive);
    const auto rows = report.severities(m);
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      const std::vector<std::string> callpath =
          c == 0 ? std::vector<std::string>{"main"} : std::vector<std::string>{"main", "solve"};
      ASSERT_EQ(cnode_names(model, c), c == 0 ? "main" : "main/solve");
      if (metric.uniq_name == "visits" && c == 0) {
        EXPECT_FALSE(rows->has_row(c));  // main has no visits: no terms
        continue;
      }
      ASSERT_TRUE(rows->has_row(c)) << metric.uniq_name << " " << c;
      const PerformanceModel& fit =
          find_model(fitted.models, callpath, metric.uniq_name, Flavour::kExclusive).model;
      const std::vector<Term> terms = decode_slot(rows->row(c));
      // The fitted model, bit for bit: its constant (when not 0) first, then its terms.
      std::vector<Term> expected;
      if (fit.constant != 0) expected.push_back({fit.constant, 0, 1, 0});
      for (const ModelTerm& t : fit.terms)
        expected.push_back({t.coefficient, t.exponent_numerator, uint32_t(t.exponent_denominator),
                            t.log_exponent});
      ASSERT_EQ(terms.size(), expected.size()) << fit.formula();
      for (size_t i = 0; i < terms.size(); ++i) {
        EXPECT_EQ(terms[i].a, expected[i].a) << fit.formula();
        EXPECT_EQ(terms[i].b, expected[i].b) << fit.formula();
        EXPECT_EQ(terms[i].c, expected[i].c) << fit.formula();
        EXPECT_EQ(terms[i].d, expected[i].d) << fit.formula();
      }
    }
  }
  // And the planted laws are what was fitted (to rounding): 3·p^(3/2) + 2 at main.
  const std::vector<Term> main_time = decode_slot(report.severities(0)->row(0));
  ASSERT_EQ(main_time.size(), 2u);
  EXPECT_NEAR(main_time[0].a, 2, 1e-9);
  EXPECT_NEAR(main_time[1].a, 3, 1e-9);
  EXPECT_EQ(main_time[1].b * 2, int32_t(main_time[1].c) * 3);
}

// `cube_dump -m all -z <flavour> -t aggr`: metric → cnode id → printed value.
std::map<std::string, std::map<uint32_t, std::string>> dumped(const std::string& path,
                                                              const std::string& flavour) {
  const test::RunResult r =
      test::run_tool("cube_dump", {"-m", "all", "-z", flavour, "-t", "aggr", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return test::parse_dump(r.out);
}

TEST(ModelReport, CubeDumpPrintsTheModelsAsCubeLibDoes) {
  test::TempDir dir("modelout");
  write_series((dir.path() / "s").string(), planted_spec());
  const std::string path = (dir.path() / "models.cubex").string();
  const test::RunResult r =
      test::run_tool("cubekit", {"model", "-o", path, (dir.path() / "s").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Written by hand from the laws in CubeLib's notation (cube-values_example's oracle dump
  // prints e.g. "5*x**(5.0/6.0)*log(x)**(7.0)"): x^2 is b/c = 2/1, x·log2(x) is "x*log(x)".
  const auto excl = dumped(path, "excl");
  EXPECT_EQ(excl.at("time").at(0), "3*x**(3.0/2.0) + 2");
  EXPECT_EQ(excl.at("time").at(1), "4*x**(2.0/1.0) + 1");
  EXPECT_EQ(excl.at("visits").at(1), "5*x*log(x) + 7");
  // Inclusive: Cube adds the subtree's models, like terms merged, the most dominant first.
  const auto incl = dumped(path, "incl");
  EXPECT_EQ(incl.at("time").at(0), "4*x**(2.0/1.0) + 3*x**(3.0/2.0) + 3");
  EXPECT_EQ(incl.at("visits").at(0), "5*x*log(x) + 7");
  EXPECT_EQ(excl.at("visits").at(0), "0");  // no terms: CubeLib prints 0
}

TEST(ModelReport, BadOutputsFailClearlyAndLeaveNothing) {
  test::TempDir dir("modelout");
  EXPECT_THROW(write_model_report((dir.path() / "a.cubex").string(), {}, {"p"}), Error);
  write_series((dir.path() / "s").string(), planted_spec());
  const std::string into = (dir.path() / "missing" / "m.cubex").string();
  const test::RunResult r =
      test::run_tool("cubekit", {"model", "-o", into, (dir.path() / "s").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(into), std::string::npos) << r.err;
  const test::RunResult e = test::run_tool(
      "cubekit", {"model", "--experiment", into + ".json", (dir.path() / "s").string()});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_NE(e.err.find(into + ".json"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(dir.path() / "missing"));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);  // the series only
}

// The exclusive DOUBLE value each report of the series stores at each call path (one
// location): names from the root joined with "->" → metric → point → the repetitions' values.
using Stored = std::map<std::string, std::map<std::string, std::map<double, std::vector<double>>>>;

Stored stored_values(const Series& series) {
  Stored out;
  for (const SeriesReport& r : series.reports) {
    const Report report = Report::open(r.path);
    const Model& model = report.model();
    for (Index m = 0; m < model.metrics.size(); ++m) {
      const auto rows = report.severities(m);
      for (Index c = 0; c < model.cnodes.size(); ++c) {
        double v = 0;
        if (rows->has_row(c)) std::memcpy(&v, rows->row(c), 8);
        std::string names = cnode_names(model, c);
        for (size_t at; (at = names.find('/')) != std::string::npos;) names.replace(at, 1, "->");
        out[names][model.metrics[m].uniq_name][r.coordinate[0]].push_back(v);
      }
    }
  }
  return out;
}

// Extra-P itself opens such a file (checked by hand, outside CI: it needs Extra-P's Python
// packages): PYTHONPATH=<extrap checkout>:<pycubexr> python3 -m extrap.extrap.extrapcmd --json
// FILE --print functions prints the models `cubekit model` prints (docs/models.md).
TEST(ExtrapExperiment, HoldsEverySampleOfTheSeries) {
  test::TempDir dir("modelout");
  SeriesSpec spec = planted_spec();
  spec.repetitions = 3;
  spec.noise = 0.05;
  write_series((dir.path() / "s").string(), spec);
  const Series series = read_series_folder((dir.path() / "s").string());
  const std::string path = (dir.path() / "experiment.json").string();
  const test::RunResult r = test::run_tool(
      "cubekit", {"model", "-s", "csv", "--experiment", path, (dir.path() / "s").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json experiment = nlohmann::json::parse(test::read_file(path));
  EXPECT_EQ(experiment.at("parameters"), nlohmann::json::array({"p"}));
  const Stored stored = stored_values(series);
  const nlohmann::json& measurements = experiment.at("measurements");
  EXPECT_EQ(measurements.size(), 2u);
  for (const auto& [callpath, metrics] : stored)
    for (const auto& [metric, points] : metrics) {
      const nlohmann::json& written = measurements.at(callpath).at(metric);
      ASSERT_EQ(written.size(), points.size()) << callpath << " " << metric;
      size_t i = 0;
      for (const auto& [p, values] : points) {  // increasing p, as written
        EXPECT_EQ(written[i].at("point"), nlohmann::json::array({p}));
        std::vector<double> got = written[i].at("values").get<std::vector<double>>();
        std::vector<double> want = values;
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        EXPECT_EQ(got, want) << callpath << " " << metric << " p=" << p;
        ++i;
      }
    }
  // Inclusive time of main: main's own plus solve's, repetition by repetition.
  const nlohmann::json& main_incl = measurements.at("main").at("time (inclusive)");
  ASSERT_EQ(main_incl.size(), 5u);
  const auto& own = stored.at("main").at("time").at(2.0);
  const auto& solve = stored.at("main->solve").at("time").at(2.0);
  std::vector<double> want;
  for (size_t k = 0; k < own.size(); ++k) want.push_back(own[k] + solve[k]);
  std::vector<double> got = main_incl[0].at("values").get<std::vector<double>>();
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST(ExtrapExperiment, NeedsTheSamples) {
  test::TempDir dir("modelout");
  write_series((dir.path() / "s").string(), planted_spec());
  const SeriesModels fitted = model_series(read_series_folder((dir.path() / "s").string()));
  const fs::path path = dir.path() / "e.json";
  EXPECT_THROW(write_extrap_experiment(path.string(), fitted.models, {"p"}), Error);
  EXPECT_FALSE(fs::exists(path));
}

// The one member of a zip file, read with minizip's reader.
std::string zip_member(const std::string& zip, const std::string& member) {
  unzFile in = unzOpen64(zip.c_str());
  if (!in) throw Error(zip + ": not a zip file");
  std::string text;
  if (unzLocateFile(in, member.c_str(), 1) == UNZ_OK && unzOpenCurrentFile(in) == UNZ_OK) {
    char buffer[4096];
    for (int n; (n = unzReadCurrentFile(in, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    unzCloseCurrentFile(in);
  }
  unzClose(in);
  return text;
}

// Extra-P opens the file and prints the models `cubekit model` prints (checked by hand,
// outside CI, with Extra-P 4.2.5: `extrapcmd --experiment FILE --print functions`,
// docs/models.md). Here: its measurements are the statistics of the stored values, computed
// by the test (numpy's population standard deviation; repetitions counts reports).
TEST(ExtrapExperimentFile, HoldsThePointsOfTheSeries) {
  test::TempDir dir("modelout");
  SeriesSpec spec = planted_spec();
  spec.repetitions = 3;
  spec.noise = 0.05;
  write_series((dir.path() / "s").string(), spec);
  const Series series = read_series_folder((dir.path() / "s").string());
  const std::string path = (dir.path() / "series.extra-p").string();
  const test::RunResult r = test::run_tool(
      "cubekit", {"model", "-s", "csv", "--experiment", path, (dir.path() / "s").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json experiment = nlohmann::json::parse(zip_member(path, "experiment.json"));
  EXPECT_EQ(experiment.at("parameters"), nlohmann::json::array({"p"}));
  EXPECT_EQ(experiment.at("scaling"), "weak");
  const nlohmann::json& measurements = experiment.at("measurements");
  for (const auto& [callpath, metrics] : stored_values(series))
    for (const auto& [metric, points] : metrics) {
      const nlohmann::json& written = measurements.at(callpath).at(metric);
      ASSERT_EQ(written.size(), points.size()) << callpath << " " << metric;
      size_t i = 0;
      for (const auto& [p, values] : points) {
        double mean = 0, squares = 0;
        for (double v : values) mean += v / double(values.size());
        for (double v : values) squares += (v - mean) * (v - mean);
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const nlohmann::json& m = written[i++];
        EXPECT_EQ(m.at("coordinate"), nlohmann::json::array({p}));
        EXPECT_NEAR(m.at("mean").get<double>(), mean, 1e-12 * std::abs(mean));
        EXPECT_EQ(m.at("median").get<double>(), sorted[1]);
        EXPECT_EQ(m.at("minimum").get<double>(), sorted[0]);
        EXPECT_EQ(m.at("maximum").get<double>(), sorted[2]);
        EXPECT_NEAR(m.at("std").get<double>(), std::sqrt(squares / 3), 1e-9 * std::abs(mean));
        EXPECT_EQ(m.at("repetitions"), 3);
        EXPECT_TRUE(m.at("values").is_null());
      }
    }
  EXPECT_TRUE(measurements.at("main").contains("time (inclusive)"));
}

// On a noise-free series the model set holds the planted laws in Extra-P's terms.
TEST(ExtrapExperimentFile, HoldsThePlantedLawsAsExtrapModels) {
  test::TempDir dir("modelout");
  write_series((dir.path() / "s").string(), planted_spec());
  const std::string path = (dir.path() / "m.extra-p").string();
  ASSERT_EQ(test::run_tool("cubekit", {"model", "--experiment", path, (dir.path() / "s").string()})
                .exit_code,
            0);
  const nlohmann::json experiment = nlohmann::json::parse(zip_member(path, "experiment.json"));
  ASSERT_EQ(experiment.at("modelers").size(), 1u);
  const nlohmann::json& set = experiment.at("modelers")[0];
  EXPECT_EQ(set.at("modeler").at("$type"), "SingleParameterModeler");
  EXPECT_EQ(set.at("modeler").at("use_measure"), "MEAN");
  auto function = [&](const char* callpath, const char* metric) {
    const nlohmann::json& h = set.at("models").at(callpath).at(metric).at("hypothesis");
    EXPECT_EQ(h.at("$type"), "SingleParameterHypothesis");
    EXPECT_EQ(h.at("rRSS"), "nan");  // not computed by cubekit: not a made-up 0
    return h.at("function");
  };
  const nlohmann::json main_time = function("main", "time");  // 2 + 3 * p^(3/2)
  EXPECT_NEAR(main_time.at("constant_coefficient").get<double>(), 2, 1e-9);
  ASSERT_EQ(main_time.at("compound_terms").size(), 1u);
  const nlohmann::json& term = main_time.at("compound_terms")[0];
  EXPECT_NEAR(term.at("coefficient").get<double>(), 3, 1e-9);
  EXPECT_EQ(term.at("simple_terms"),
            nlohmann::json::parse(R"([{"term_type": "polynomial", "exponent": "3/2"}])"));
  const nlohmann::json visits = function("main->solve", "visits");  // 7 + 5 * p * log2(p)
  EXPECT_NEAR(visits.at("constant_coefficient").get<double>(), 7, 1e-9);
  EXPECT_EQ(visits.at("compound_terms")[0].at("simple_terms"),
            nlohmann::json::parse(R"([{"term_type": "polynomial", "exponent": "1"},
                                      {"term_type": "logarithm", "exponent": 1}])"));
  const nlohmann::json& zero = set.at("models").at("main").at("visits").at("hypothesis");
  EXPECT_EQ(zero.at("$type"), "ConstantHypothesis");  // visits of main: 0
  EXPECT_EQ(zero.at("function").at("$type"), "ConstantFunction");
}

TEST(ExtrapExperimentFile, FailsClearlyAndLeavesNothing) {
  test::TempDir dir("modelout");
  write_series((dir.path() / "s").string(), planted_spec());
  const std::string into = (dir.path() / "missing" / "m.extra-p").string();
  const test::RunResult r =
      test::run_tool("cubekit", {"model", "--experiment", into, (dir.path() / "s").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(into), std::string::npos) << r.err;
  const SeriesModels fitted = model_series(read_series_folder((dir.path() / "s").string()));
  const fs::path path = dir.path() / "e.extra-p";
  EXPECT_THROW(write_extrap_experiment_file(path.string(), fitted.models,
                                            read_series_folder((dir.path() / "s").string()), {}),
               Error);  // modelled without keep_samples
  EXPECT_FALSE(fs::exists(path));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);  // the series only
}

}  // namespace
}  // namespace cubekit
