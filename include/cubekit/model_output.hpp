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
// models), one location. Each value also keeps up to 10 measured points (parameter value,
// measure, spread) when every parameter value is a whole number below 2^32. Written
// atomically (ReportWriter); Error when there is no model or a model has more terms than a
// SCALE_FUNC value holds.
void write_model_report(const std::string& path, const std::vector<CallPathModel>& models,
                        const std::string& parameter);

// Writes the measurements behind `models` as Extra-P's JSON input (`extrap --json FILE`):
// {"parameters": [name], "measurements": {"main->solve": {"time": [{"point": [p], "values":
// [samples]}]}}}, exclusive values under the metric's name (as Extra-P reads Cube series),
// inclusive ones under "<name> (inclusive)". The points need their samples
// (SeriesOptions::keep_samples); Error otherwise. Written to a temporary file and renamed.
void write_extrap_experiment(const std::string& path, const std::vector<CallPathModel>& models,
                             const std::string& parameter);

// A point at which a model is evaluated: parameter name and value.
using ModelPrediction = std::pair<std::string, double>;

// One model as a JSON object (a number that is not finite is null): callpath, metric, flavour,
// model, constant, terms, rss, smape, adjusted_r2; predictions when `at` is not empty; the
// measured points (parameter, value, median, minimum, maximum) when `with_points`.
std::string model_json(const CallPathModel& model, const std::vector<ModelPrediction>& at,
                       bool with_points = false);

}  // namespace cubekit
