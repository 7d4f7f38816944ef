// cubekit model: performance models of a series of reports, as Extra-P fits them (see
// cubekit/perf_model.hpp and docs/models.md), printed as a table, JSON or CSV.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/model_output.hpp"
#include "cubekit/perf_model.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

// A point: values of named parameters, e.g. "x=1024,y=8".
struct Assignment {
  std::vector<std::string> parameters;
  std::vector<double> values;
};

// "x=1024,y=8" → {x: 1024, y: 8}; Error naming the option otherwise.
Assignment parse_assignment(const std::string& text, const std::string& option) {
  Assignment a;
  size_t start = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    const size_t eq = part.find('=');
    double value = 0;
    const char* first = part.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* last = part.data() + part.size();
    const auto [end, ec] = std::from_chars(first, last, value);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || end != last || first == last ||
        std::find(a.parameters.begin(), a.parameters.end(), part.substr(0, eq)) !=
            a.parameters.end())
      throw Error(option + " '" + text +
                  "': expected NAME=NUMBER[,NAME=NUMBER...], e.g. x=1024,y=8");
    a.parameters.push_back(part.substr(0, eq));
    a.values.push_back(value);
    if (comma == text.size()) return a;
    start = comma + 1;
  }
}

// The assignment's values in the order of `parameters`; Error unless it names each once.
std::vector<double> values_in_order(const Assignment& a, const std::vector<std::string>& parameters,
                                    const std::string& what) {
  std::string names;
  for (const std::string& p : parameters) names += (names.empty() ? "" : ",") + p;
  if (a.parameters.size() != parameters.size())
    throw Error(what + ": the series' parameters are " + names);
  std::vector<double> values;
  for (const std::string& p : parameters) {
    const auto it = std::find(a.parameters.begin(), a.parameters.end(), p);
    if (it == a.parameters.end()) throw Error(what + ": the series' parameters are " + names);
    values.push_back(a.values[size_t(it - a.parameters.begin())]);
  }
  return values;
}

// A --predict point: the text as given and its values in the series' parameter order.
struct Prediction {
  std::string text;
  std::vector<std::string> parameters;
  std::vector<double> values;
  double of(const PerformanceModel& m) const { return m.evaluate(parameters, values); }
};

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string joined(const std::vector<std::string>& callpath) {
  std::string out;
  for (const std::string& name : callpath) out += (out.empty() ? "" : "->") + name;
  return out;
}

const char* flavour_name(Flavour f) {
  return f == Flavour::kInclusive ? "incl" : "excl";
}

void print_json(const std::vector<CallPathModel>& models, const std::vector<Prediction>& at) {
  std::vector<ModelPrediction> points;
  for (const Prediction& p : at) points.push_back({p.parameters, p.values});
  std::string out = "[";
  for (size_t i = 0; i < models.size(); ++i)
    out += std::string(i ? "," : "") + "\n  " + model_json(models[i], points);
  std::printf("%s\n]\n", out.c_str());
}

std::string location_text(const CallPathModel& m) {
  return m.location ? std::to_string(*m.location) : std::string();
}

void print_csv(const std::vector<CallPathModel>& models, const std::vector<Prediction>& at) {
  const bool per_location = !models.empty() && models[0].location;
  std::string out = std::string("callpath,metric,flavour,") + (per_location ? "location," : "") +
                    "model,constant,rss,smape,adjusted_r2";
  for (const Prediction& p : at) out += "," + csv_field(p.text);
  out += "\n";
  for (const CallPathModel& m : models) {
    out += csv_field(joined(m.callpath)) + "," + csv_field(m.metric) + "," +
           flavour_name(m.flavour) + "," + (per_location ? location_text(m) + "," : "") +
           csv_field(m.model.formula()) + "," + number(m.model.constant) + "," +
           number(m.model.rss) + "," + number(m.model.smape) + "," + number(m.model.adjusted_r2);
    for (const Prediction& p : at) out += "," + number(p.of(m.model));
    out += "\n";
  }
  std::fputs(out.c_str(), stdout);
}

// One line per model, columns padded to their widest cell; predictions as further columns.
void print_table(const std::vector<CallPathModel>& models, const std::vector<Prediction>& at) {
  std::vector<std::vector<std::string>> rows = {
      {"call path", "metric", "flavour", "model", "RSS", "SMAPE", "adj. R^2"}};
  const bool per_location = !models.empty() && models[0].location;
  if (per_location) rows[0].insert(rows[0].begin() + 3, "location");
  for (const Prediction& p : at) rows[0].push_back(p.text);
  char cell[64];
  auto g = [&cell](double v) {
    return std::snprintf(cell, sizeof cell, "%.6g", v), std::string(cell);
  };
  for (const CallPathModel& m : models) {
    rows.push_back({joined(m.callpath), m.metric, flavour_name(m.flavour), m.model.formula(),
                    g(m.model.rss), g(m.model.smape), g(m.model.adjusted_r2)});
    if (per_location) rows.back().insert(rows.back().begin() + 3, location_text(m));
    for (const Prediction& p : at) rows.back().push_back(g(p.of(m.model)));
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c)
      line += row[c] + (c + 1 < row.size() ? std::string(width[c] - row[c].size() + 2, ' ') : "");
    out += line + "\n";
  }
  std::fputs(out.c_str(), stdout);
}

Series explicit_series(const std::vector<std::pair<std::string, std::string>>& points) {
  Series series;
  for (const auto& [assignment, path] : points) {
    const Assignment a = parse_assignment(assignment, "--point");
    if (series.parameters.empty()) series.parameters = a.parameters;
    series.reports.push_back(
        {values_in_order(a, series.parameters, "--point " + assignment), path});
  }
  return series;
}

}  // namespace

int model_main(int argc, char** argv) {
  CLI::App app{"Fits Extra-P's performance models to a series of reports.", "cubekit model"};
  std::string folder, format = "table", measure = "mean", scaling = "weak";
  std::vector<std::pair<std::string, std::string>> points;
  std::vector<std::string> predict;
  std::string report_output, experiment_output;
  app.add_option("folder", folder, "folder of experiment folders named like mm.x10y1z1.r1");
  app.add_option("--point", points,
                 "a report at a point: --point x=10 FILE, --point x=10,y=2 FILE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--measure", measure, "value of a point: mean, median, minimum or maximum")
      ->check(CLI::IsMember({"mean", "median", "minimum", "maximum"}))
      ->capture_default_str();
  app.add_option("--scaling", scaling, "weak: locations are samples; strong: their sum")
      ->check(CLI::IsMember({"weak", "strong"}))
      ->capture_default_str();
  app.add_option("-s", format, "output: table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  app.add_option("--predict", predict, "also the model's value at this point, e.g. x=1024,y=8")
      ->allow_extra_args(false);
  app.add_option("-o,--output", report_output,
                 "also write the models as a Cube report of SCALE_FUNC values (.cubex)");
  app.add_option("--experiment", experiment_output,
                 "also write the models and measurements as Extra-P's experiment "
                 "(FILE.extra-p: extrap --experiment FILE), or with FILE.json the measurements "
                 "as Extra-P's JSON input (extrap --json FILE)");
  bool per_location = false;
  app.add_flag("--per-location", per_location,
               "a model per location (its index in each report) instead of all pooled");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    if (folder.empty() == points.empty())
      throw Error("give a folder of experiments or --point NAME=VALUE FILE ..., not both");
    const Series series = folder.empty() ? explicit_series(points) : read_series_folder(folder);
    std::vector<Prediction> at;
    for (const std::string& text : predict)
      at.push_back({text, series.parameters,
                    values_in_order(parse_assignment(text, "--predict"), series.parameters,
                                    "--predict " + text)});
    if (per_location && scaling == "strong")
      throw Error("--per-location models each location: --scaling strong does not apply");
    SeriesOptions options;
    options.scaling = scaling == "strong" ? Scaling::kStrong : Scaling::kWeak;
    options.per_location = per_location;
    options.measure = measure == "median"    ? Measure::kMedian
                      : measure == "minimum" ? Measure::kMinimum
                      : measure == "maximum" ? Measure::kMaximum
                                             : Measure::kMean;
    options.keep_samples = !experiment_output.empty();
    const SeriesModels result = model_series(series, options);
    if (!result.incomplete.empty())
      std::fprintf(stderr,
                   "cubekit model: %zu call path × metric × flavour without a value at every "
                   "point have no model (e.g. %s, %s)\n",
                   result.incomplete.size(), joined(result.incomplete[0].callpath).c_str(),
                   result.incomplete[0].metric.c_str());
    const std::vector<CallPathModel>& models = result.models;
    if (!report_output.empty()) write_model_report(report_output, models, series.parameters);
    if (experiment_output.ends_with(".json"))
      write_extrap_experiment(experiment_output, models, series.parameters);
    else if (!experiment_output.empty())
      write_extrap_experiment_file(experiment_output, models, series, options);
    if (format == "json")
      print_json(models, at);
    else if (format == "csv")
      print_csv(models, at);
    else
      print_table(models, at);
  } catch (const Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "cubekit model: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace cubekit::tools
