// cubekit.model: performance models of a series of reports (cubekit/perf_model.hpp) as Python
// dicts with the fields of `cubekit model -s json`.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "cubekit/error.hpp"
#include "cubekit/perf_model.hpp"

namespace cubekit::python {

namespace {

using Point = std::vector<std::pair<std::string, double>>;

// The values of `point` in the order of `parameters`; Error unless it names each once.
std::vector<double> values_in_order(const Point& point, const std::vector<std::string>& parameters,
                                    const std::string& what) {
  std::string names;
  for (const std::string& p : parameters) names += (names.empty() ? "" : ", ") + p;
  std::vector<double> values;
  for (const std::string& p : parameters) {
    size_t found = 0;
    for (const auto& [name, value] : point)
      if (name == p) values.push_back(value), ++found;
    if (found != 1) throw Error(what + ": the series' parameters are " + names);
  }
  if (point.size() != parameters.size())
    throw Error(what + ": the series' parameters are " + names);
  return values;
}

Series explicit_series(const std::vector<std::pair<Point, std::string>>& points) {
  Series series;
  for (const auto& [point, path] : points) {
    if (series.parameters.empty())
      for (const auto& named : point) series.parameters.push_back(named.first);
    series.reports.push_back({values_in_order(point, series.parameters, path), path});
  }
  if (series.reports.empty()) throw Error("cubekit.model: the list of (point, file) is empty");
  return series;
}

// The library's parse of `given` (parse_measure, parse_scaling), or an Error naming the
// argument and the names it takes.
template <typename T>
T option(std::optional<T> parsed, const std::string& given, const char* what, const char* allowed) {
  if (!parsed)
    throw Error(std::string("cubekit.model: ") + what + " '" + given + "': one of " + allowed);
  return *parsed;
}

py::dict factor_dict(const TermFactor& f) {
  py::dict d;
  d["parameter"] = text(f.parameter);
  d["exponent"] = f.exponent();
  d["log_exponent"] = f.log_exponent;
  return d;
}

py::dict model_dict(const CallPathModel& m, const std::vector<std::string>& parameters,
                    const std::vector<std::vector<double>>& predict) {
  py::dict d;
  py::list callpath;
  for (const std::string& name : m.callpath) callpath.append(text(name));
  d["callpath"] = callpath;
  d["metric"] = text(m.metric);
  d["flavour"] = m.flavour == Flavour::kInclusive ? "incl" : "excl";
  if (m.location) d["location"] = *m.location;
  d["model"] = m.model.formula();
  d["constant"] = m.model.constant;
  py::list terms;
  for (const ModelTerm& t : m.model.terms) {
    const std::vector<TermFactor> factors = t.factors();
    py::dict term = factor_dict(factors[0]);
    term["coefficient"] = t.coefficient;
    if (factors.size() > 1) {
      py::list all;
      for (const TermFactor& f : factors) all.append(factor_dict(f));
      term["factors"] = all;
    }
    terms.append(term);
  }
  d["terms"] = terms;
  d["rss"] = m.model.rss;
  d["smape"] = m.model.smape;
  d["adjusted_r2"] = m.model.adjusted_r2;
  if (!predict.empty()) {
    py::list predictions;
    for (const std::vector<double>& values : predict) {
      py::dict point, prediction;
      for (size_t i = 0; i < parameters.size(); ++i) point[text(parameters[i]).ptr()] = values[i];
      prediction["point"] = point;
      prediction["value"] = m.model.evaluate(parameters, values);
      predictions.append(prediction);
    }
    d["predictions"] = predictions;
  }
  return d;
}

py::list model(const std::optional<std::string>& folder,
               const std::vector<std::pair<Point, std::string>>& points, const std::string& measure,
               const std::string& scaling, bool per_location, const std::vector<Point>& predict,
               unsigned threads) {
  if (folder.has_value() == !points.empty())
    throw Error("cubekit.model: give a series folder or a list of (point, file), not both");
  SeriesOptions options;
  options.measure =
      option(parse_measure(measure), measure, "measure", "mean, median, minimum, maximum");
  options.scaling = option(parse_scaling(scaling), scaling, "scaling", "weak, strong");
  options.per_location = per_location;
  options.threads = threads;
  SeriesModels result;
  std::vector<std::vector<double>> at;
  Series series;
  {
    py::gil_scoped_release release;
    series = folder ? read_series_folder(*folder) : explicit_series(points);
    for (const Point& p : predict)
      at.push_back(values_in_order(p, series.parameters, "cubekit.model: a point of predict"));
    result = model_series(series, options);
  }
  py::list models;
  for (const CallPathModel& m : result.models) models.append(model_dict(m, series.parameters, at));
  return models;
}

}  // namespace

void bind_model(py::module_& m) {
  m.def("model", &model, py::arg("folder"), py::arg("points"), py::arg("measure"),
        py::arg("scaling"), py::arg("per_location"), py::arg("predict"), py::arg("threads"),
        "Performance models of a series (see cubekit.model).");
}

}  // namespace cubekit::python
