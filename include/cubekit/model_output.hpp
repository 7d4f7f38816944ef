// Where the models of a series go besides a table (docs/models.md, "Output"): a Cube report
// whose values are the models (SCALE_FUNC), Extra-P's JSON experiment of the measurements, and
// the JSON of one model that `cubekit model -s json` and `cubekit serve` print.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cubekit/perf_model.hpp"

namespace cubekit {

// Writes `models` (model_series' complete ones) as a Cube report: the call tree of their call
// paths (one region per name), one EXCLUSIVE metric of type SCALE_FUNC per metric whose value
// at a call path is its exclusive model (so Cube's inclusive value is the sum of the subtree's
// models), one location. The values carry no measured points (CubeLib would print them in
// front of every value, docs/models.md). Written atomically (ReportWriter); Error when there is no
// model, a model has more terms than a SCALE_FUNC value holds, the series has several parameters (a
// SCALE_FUNC value has one variable) or the models are per location.
void write_model_report(const std::string& path, const std::vector<CallPathModel>& models,
                        const std::vector<std::string>& parameters);

// Writes the measurements behind `models` as Extra-P's JSON input (`extrap --json FILE`):
// {"parameters": [names], "measurements": {"main->solve": {"time": [{"point": [values], "values":
// [samples]}]}}}, exclusive values under the metric's name (as Extra-P reads Cube series),
// inclusive ones under "<name> (inclusive)". The points need their samples
// (SeriesOptions::keep_samples) and must pool the locations; Error otherwise. Written to a
// temporary file and renamed.
void write_extrap_experiment(const std::string& path, const std::vector<CallPathModel>& models,
                             const std::vector<std::string>& parameters);

// Writes the models with the measurements behind them as Extra-P's experiment file (.extra-p:
// a zip holding experiment.json), which Extra-P opens with `--experiment FILE` and shows without
// modelling again: the series' parameters and scaling, per call path × metric (exclusive under
// the metric's name, inclusive under "<name> (inclusive)") each point's mean, median, minimum,
// maximum, standard deviation and number of reports, and one model set ("cubekit") holding the
// models as Extra-P's default modeler describes them. The points need their samples
// (SeriesOptions::keep_samples) and must pool the locations; Error otherwise. Written to a
// temporary file and renamed.
void write_extrap_experiment_file(const std::string& path, const std::vector<CallPathModel>& models,
                                  const Series& series, const SeriesOptions& options);

// A point at which a model is evaluated: the value of each of the series' parameters.
struct ModelPrediction {
  std::vector<std::string> parameters;
  std::vector<double> values;
};

// One model as a JSON object (a number that is not finite is null): callpath, metric, flavour,
// location (per-location models), model, constant, terms (with `factors` when a term has
// several parameters), rss, smape, adjusted_r2; predictions when `at` is not empty; the
// measured points (parameter_value: the first parameter's; coordinates: every parameter's value
// by name; value, median, minimum, maximum) when `point_parameters` (the series' parameters) is
// given.
std::string model_json(const CallPathModel& model, const std::vector<ModelPrediction>& at,
                       const std::vector<std::string>* point_parameters = nullptr);

}  // namespace cubekit
