// cubekit model: performance models of a series of reports, as Extra-P fits them (see
// cubekit/perf_model.hpp and docs/models.md), printed as a table, JSON or CSV.
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

// The options, as data (command_line.hpp); -h/--help prints them.
OptionTable model_options() {
  OptionRule format{'s', Argument::kRequired};
  format.value_name = "FORMAT";
  format.description = "output: table, json or csv (table)";
  format.choices = {"table", "json", "csv"};
  OptionTable table{{
      long_option('p', "point", "NAME=VALUE[,...] FILE",
                  "a report at a point: --point x=10 FILE, --point x=10,y=2 FILE (repeatable)", {},
                  2),
      long_option('m', "measure", "MEASURE",
                  "value of a point: mean, median, minimum or maximum (mean)",
                  {"mean", "median", "minimum", "maximum"}),
      long_option('S', "scaling", "SCALING",
                  "weak: locations are samples; strong: their sum (weak)", {"weak", "strong"}),
      format,
      long_option('P', "predict", "NAME=VALUE[,...]",
                  "also the model's value at this point, e.g. x=1024,y=8 (repeatable)"),
      long_option('o', "output", "FILE",
                  "also write the models as a Cube report of SCALE_FUNC values (.cubex)", {}, 1,
                  true),
      long_option('e', "experiment", "FILE",
                  "also write the models and measurements as Extra-P's experiment (FILE.extra-p: "
                  "extrap --experiment FILE), or with FILE.json the measurements as Extra-P's "
                  "JSON input (extrap --json FILE)"),
      long_option('E', "exponents", "LIST",
                  "fit over terms p^(i/j) of these exponents instead of Extra-P's, e.g. 1,2,4 "
                  "(with --log-exponents)"),
      long_option('L', "log-exponents", "LIST",
                  "and these exponents of log2(p), e.g. 0,1 (with --exponents)"),
      long_option('l', "per-location", nullptr,
                  "a model per location (its index in each report) instead of all pooled"),
  }};
  table.long_options = true;
  table.program = "cubekit model";
  add_long_help(
      table,
      "usage: cubekit model [options] (FOLDER | --point NAME=VALUE FILE ...)\n"
      "Fits Extra-P's performance models to a series of reports; FOLDER holds experiment\n"
      "folders named like mm.x10y1z1.r1.\n");
  table.operands = OperandCount{
      0, 1, failure("cubekit model: one folder of experiments at most (see --help)\n")};
  return table;
}

// What the command line asks for.
struct ModelRequest {
  std::string folder, format = "table", measure = "mean", scaling = "weak";
  std::vector<std::pair<std::string, std::string>> points;
  std::vector<std::string> predict;
  std::string report_output, experiment_output;
  std::string exponents, log_exponents;
  bool per_location = false;
};

ModelRequest read_model_options(int argc, char** argv) {
  ModelRequest r;
  const CommandLine line = parse_command_line(model_options(), argc, argv);
  for (const GivenOption& given : line.options) {
    const std::string value = given.argument.value_or("");
    const char key = given.letter;
    if (key == 'p') r.points.emplace_back(argument_words(given)[0], argument_words(given)[1]);
    if (key == 'm') r.measure = value;
    if (key == 'S') r.scaling = value;
    if (key == 's') r.format = value;
    if (key == 'P') r.predict.push_back(value);
    if (key == 'o') r.report_output = value;
    if (key == 'e') r.experiment_output = value;
    if (key == 'E') r.exponents = value;
    if (key == 'L') r.log_exponents = value;
    if (key == 'l') r.per_location = true;
  }
  if (!line.operands.empty()) r.folder = line.operands[0];
  return r;
}

}  // namespace

int model_main(int argc, char** argv) {
  const ModelRequest q = read_model_options(argc, argv);
  try {
    if (q.folder.empty() == q.points.empty())
      throw Error("give a folder of experiments or --point NAME=VALUE FILE ..., not both");
    const Series series =
        q.folder.empty() ? explicit_series(q.points) : read_series_folder(q.folder);
    std::vector<Prediction> at;
    for (const std::string& text : q.predict)
      at.push_back({text, series.parameters,
                    values_in_order(parse_assignment(text, "--predict"), series.parameters,
                                    "--predict " + text)});
    if (q.per_location && q.scaling == "strong")
      throw Error("--per-location models each location: --scaling strong does not apply");
    SeriesOptions options;
    options.scaling = *parse_scaling(q.scaling);  // the option table checked the names
    options.per_location = q.per_location;
    options.measure = *parse_measure(q.measure);
    options.keep_samples = !q.experiment_output.empty();
    if (q.exponents.empty() != q.log_exponents.empty())
      throw Error("--exponents and --log-exponents go together");
    if (!q.exponents.empty())
      options.hypotheses = parse_hypothesis_space(q.exponents, q.log_exponents);
    const SeriesModels result = model_series_in_job(series, options);
    if (!result.incomplete.empty())
      std::fprintf(stderr,
                   "cubekit model: %zu call path × metric × flavour without a value at every "
                   "point have no model (e.g. %s, %s)\n",
                   result.incomplete.size(), joined(result.incomplete[0].callpath).c_str(),
                   result.incomplete[0].metric.c_str());
    const std::vector<CallPathModel>& models = result.models;
    if (!q.report_output.empty() && job_writes_files())
      write_model_report(q.report_output, models, series.parameters);
    if (q.experiment_output.ends_with(".json") && job_writes_files())
      write_extrap_experiment(q.experiment_output, models, series.parameters);
    else if (!q.experiment_output.empty() && job_writes_files())
      write_extrap_experiment_file(q.experiment_output, models, series, options);
    if (q.format == "json")
      print_json(models, at);
    else if (q.format == "csv")
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
