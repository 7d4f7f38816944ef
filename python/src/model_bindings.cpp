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
#include "cubekit/model_output.hpp"
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
  // The dicts are the library's JSON of each model (model_json), as `cubekit model -s json`
  // prints it: one text for both, a number that is not finite None as it is null there.
  std::vector<ModelPrediction> predictions;
  for (const std::vector<double>& values : at) predictions.push_back({series.parameters, values});
  const py::object loads = py::module_::import("json").attr("loads");
  py::list models;
  for (const CallPathModel& m : result.models) models.append(loads(model_json(m, predictions)));
  return models;
}

}  // namespace

void bind_model(py::module_& m) {
  m.def("model", &model, py::arg("folder"), py::arg("points"), py::arg("measure"),
        py::arg("scaling"), py::arg("per_location"), py::arg("predict"), py::arg("threads"),
        "Performance models of a series (see cubekit.model).");
}

}  // namespace cubekit::python
