// A series of reports: finding it in Extra-P's folder layout, reading each report's values per
// call path and metric, reducing them to one value per point, and fitting a model to each.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/parallel.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/report.hpp"
#include "model/series_names.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;
using model_detail::NamedPoint;
using model_detail::parse_folder_name;

bool is_report_name(const fs::path& file) {
  const std::string name = file.filename().string();
  return name.size() > 6 && name[0] != '.' && name.ends_with(".cubex");
}

}  // namespace

std::optional<Measure> parse_measure(const std::string& name) {
  if (name == "mean") return Measure::kMean;
  if (name == "median") return Measure::kMedian;
  if (name == "minimum") return Measure::kMinimum;
  if (name == "maximum") return Measure::kMaximum;
  return std::nullopt;
}

std::optional<Scaling> parse_scaling(const std::string& name) {
  if (name == "weak") return Scaling::kWeak;
  if (name == "strong") return Scaling::kStrong;
  return std::nullopt;
}

Series read_series_folder(const std::string& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw Error(folder + ": not a folder");
  std::vector<std::pair<fs::path, NamedPoint>> found;
  std::vector<fs::path> experiments;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.is_directory()) experiments.push_back(entry.path());
  if (ec) throw Error(folder + ": " + ec.message());
  std::sort(experiments.begin(), experiments.end());
  for (const fs::path& experiment : experiments) {
    std::vector<fs::path> reports;
    for (const auto& entry : fs::directory_iterator(experiment, ec))
      if (is_report_name(entry.path())) reports.push_back(entry.path());
    std::sort(reports.begin(), reports.end());
    for (const fs::path& report : reports)
      found.emplace_back(report, parse_folder_name(experiment.filename().string()));
  }
  if (found.empty()) throw Error(folder + ": no experiment folder holds a .cubex report");
  const std::vector<std::string>& names = found.front().second.names;
  std::vector<std::set<double>> distinct(names.size());
  for (const auto& [path, point] : found) {
    if (point.names != names)
      throw Error(path.parent_path().string() +
                  ": its parameters differ from those of the other folders");
    for (size_t i = 0; i < names.size(); ++i) distinct[i].insert(point.values[i]);
  }
  Series series;
  for (size_t i = 0; i < names.size(); ++i)
    if (distinct[i].size() > 1) series.parameters.push_back(names[i]);
  if (series.parameters.empty()) throw Error(folder + ": no parameter takes different values");
  for (const auto& [path, point] : found) {
    SeriesReport report{{}, path.string()};
    for (size_t i = 0; i < names.size(); ++i)
      if (distinct[i].size() > 1) report.coordinate.push_back(point.values[i]);
    series.reports.push_back(std::move(report));
  }
  return series;
}

namespace {

// (call path, metric, flavour) of a series: call paths joined with '\n' (not in region names
// Score-P writes, and only a key here).
constexpr size_t kAllLocations = size_t(-1);
struct ModelKey {
  std::string callpath, metric;
  Flavour flavour;
  size_t location = kAllLocations;  // per location: its index in the reports
  auto operator<=>(const ModelKey&) const = default;
};

std::vector<std::string> names_from_root(const Model& model, Index cnode) {
  std::vector<std::string> names;
  for (Index c = cnode; c != kNoIndex; c = model.cnodes[c].parent)
    names.push_back(model.regions[model.cnodes[c].region].name);
  std::reverse(names.begin(), names.end());
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : "\n") + n;
  return out;
}

// A value of the metric that is no sample: its identity where that is not 0 (MINDOUBLE's
// DBL_MAX, MAXDOUBLE's -DBL_MAX: no location ran the call path), NaN otherwise (none).
double no_sample(const Metric& metric) {
  const double identity = Values(metric.dtype, 1).number(0);
  return identity == 0 ? std::nan("") : identity;
}

// Adds the values of one call path of one metric and flavour to `samples`: one per location
// (weak) or their Cube aggregate (strong; `aggregate`), values that are no sample as NaN.
void add_samples(std::vector<double>& samples, const Values& per_location, const Values* aggregate,
                 size_t cnode, double none) {
  auto sample = [none](double v) { return v == none ? std::nan("") : v; };
  const size_t columns = aggregate ? 1 : per_location.size();
  if (samples.empty()) samples.assign(columns, 0.0);
  if (aggregate)
    samples[0] += sample(aggregate->number(cnode));
  else
    for (size_t l = 0; l < columns; ++l) samples[l] += sample(per_location.number(l));
}

// Every stored single-number metric of the report, per call path and flavour. Call paths with
// the same names from the root are one (their values added).
ReportSamples read_samples(const std::string& path, Scaling scaling) {
  const Report report = Report::open(path);
  const Model& model = report.model();
  MetricEngine engine(report);
  std::vector<std::string> keys(model.cnodes.size());
  std::map<std::string, std::vector<std::string>> callpaths;
  for (Index c : pre_order(model)) {
    std::vector<std::string> names = names_from_root(model, c);
    keys[c] = join(names);
    callpaths.emplace(keys[c], std::move(names));
  }
  std::map<ModelKey, std::vector<double>> values;
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const Metric& metric = model.metrics[m];
    if (!report.has_data(m) || !metric.dtype.is_single_number()) continue;
    const double none = no_sample(metric);
    for (Flavour flavour : {Flavour::kInclusive, Flavour::kExclusive}) {
      std::optional<Values> aggregate;
      if (scaling == Scaling::kStrong)
        aggregate = engine.aggregated_values(m, Flavour::kInclusive, flavour);
      for (Index c = 0; c < model.cnodes.size(); ++c) {
        const Values per_location =
            aggregate ? Values(metric.dtype, 0)
                      : engine.location_values(m, c, Flavour::kInclusive, flavour);
        add_samples(values[{keys[c], metric.uniq_name, flavour}], per_location,
                    aggregate ? &*aggregate : nullptr, c, none);
      }
    }
    engine.forget_values();
  }
  ReportSamples samples;
  for (auto& [key, of_key] : values)
    samples.entries.push_back(
        {callpaths.at(key.callpath), key.metric, key.flavour, std::move(of_key)});
  return samples;
}

// The median, partly reordering `samples` (not empty).
double median_of(std::vector<double>& samples) {
  const size_t h = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + long(h), samples.end());
  if (samples.size() % 2) return samples[h];
  return (*std::max_element(samples.begin(), samples.begin() + long(h)) + samples[h]) / 2;
}

// The point `p` of the finite samples, their measure its value; none when there is none.
std::optional<MeasuredPoint> point_of(const std::vector<double>& coordinate,
                                      std::vector<double> samples, const SeriesOptions& options) {
  std::erase_if(samples, [](double s) { return !std::isfinite(s); });
  if (samples.empty()) return std::nullopt;
  MeasuredPoint point;
  point.parameter_value = coordinate[0];
  point.coordinate = coordinate;
  double sum = 0;
  for (double s : samples) sum += s;
  if (options.keep_samples) point.samples = samples;
  const auto [lowest, highest] = std::minmax_element(samples.begin(), samples.end());
  point.minimum = *lowest;
  point.maximum = *highest;
  point.median = median_of(samples);
  switch (options.measure) {
    case Measure::kMean:
      point.value = sum / double(samples.size());
      break;
    case Measure::kMinimum:
      point.value = point.minimum;
      break;
    case Measure::kMaximum:
      point.value = point.maximum;
      break;
    case Measure::kMedian:
      point.value = point.median;
      break;
  }
  return point;
}

// The reports of the series grouped by point, points in increasing (lexicographic) order.
std::map<std::vector<double>, std::vector<std::string>> reports_by_point(const Series& series) {
  if (series.parameters.empty()) throw Error("the series has no parameter");
  std::map<std::vector<double>, std::vector<std::string>> points;
  std::vector<std::set<double>> distinct(series.parameters.size());
  for (const SeriesReport& r : series.reports) {
    if (r.coordinate.size() != series.parameters.size() ||
        !std::all_of(r.coordinate.begin(), r.coordinate.end(),
                     [](double v) { return std::isfinite(v); }))
      throw Error(r.path + ": needs a finite value of each of the " +
                  std::to_string(series.parameters.size()) + " parameters");
    for (size_t i = 0; i < r.coordinate.size(); ++i) distinct[i].insert(r.coordinate[i]);
    points[r.coordinate].push_back(r.path);
  }
  for (size_t i = 0; i < distinct.size(); ++i)
    if (distinct[i].size() < kMinModelPoints)
      throw Error("the series has " + std::to_string(distinct[i].size()) +
                  " measurement points of " + series.parameters[i] + "; a model needs at least " +
                  std::to_string(kMinModelPoints));
  return points;
}

// Takes the reports' samples in report order, pooling them per key point by point (the reports
// of a point are consecutive): all locations of all its reports, or (per location) each
// location's values over its reports; at the end of a point its measured points are made.
class Pooling {
 public:
  Pooling(const std::vector<std::vector<double>>& coordinates, const std::vector<size_t>& ends,
          const SeriesOptions& options)
      : coordinates_(coordinates), ends_(ends), options_(options) {}
  void take(size_t report, ReportSamples&& samples) {
    for (ReportSamples::Entry& entry : samples.entries) {
      ModelKey key{join(entry.callpath), entry.metric, entry.flavour};
      callpaths.emplace(key.callpath, std::move(entry.callpath));
      if (!options_.per_location) {
        std::vector<double>& all = pooled_[key];
        all.insert(all.end(), entry.samples.begin(), entry.samples.end());
        continue;
      }
      for (size_t l = 0; l < entry.samples.size(); ++l) {
        key.location = l;
        pooled_[key].push_back(entry.samples[l]);
      }
    }
    if (report + 1 == ends_[point_]) end_point();
  }
  std::map<std::string, std::vector<std::string>> callpaths;
  std::map<ModelKey, std::vector<MeasuredPoint>> measured;

 private:
  void end_point() {
    for (auto& [key, samples] : pooled_)
      if (std::optional<MeasuredPoint> at =
              point_of(coordinates_[point_], std::move(samples), options_))
        measured[key].push_back(std::move(*at));
    pooled_.clear();
    ++point_;
  }
  const std::vector<std::vector<double>>& coordinates_;
  const std::vector<size_t>& ends_;  // of each point's reports
  const SeriesOptions& options_;
  std::map<ModelKey, std::vector<double>> pooled_;
  size_t point_ = 0;
};

}  // namespace

ReportSamples read_report_samples(const std::string& path, const SeriesOptions& options) {
  try {
    return read_samples(path, options.per_location ? Scaling::kWeak : options.scaling);
  } catch (const Error& e) {  // e.g. a derived metric that does not compile
    const std::string what = e.what();
    if (what.starts_with(path)) throw;
    throw Error(path + ": " + what);
  }
}

PerformanceModel fit_points(std::span<const MeasuredPoint> points,
                            const std::vector<std::string>& parameters,
                            const SeriesOptions& options) {
  if (parameters.size() != 1)
    return options.hypotheses ? fit_multi_parameter(points, parameters, *options.hypotheses)
                              : fit_multi_parameter(points, parameters);
  return options.hypotheses ? fit_single_parameter(points, parameters[0], *options.hypotheses)
                            : fit_single_parameter(points, parameters[0]);
}

// In windows of reports, each window's reports read in parallel: at most a window's samples
// are held before they are pooled.
void SeriesWork::read(const std::vector<std::string>& paths, const SeriesOptions& options,
                      const std::function<void(size_t, ReportSamples&&)>& take) {
  const size_t window = 2 * size_t(options.threads ? options.threads : default_thread_count());
  std::vector<ReportSamples> samples(window);
  for (size_t begin = 0; begin < paths.size(); begin += window) {
    const size_t count = std::min(window, paths.size() - begin);
    parallel_for(
        count, [&](size_t i) { samples[i] = read_report_samples(paths[begin + i], options); },
        options.threads);
    for (size_t i = 0; i < count; ++i) take(begin + i, std::move(samples[i]));
  }
}

void SeriesWork::fit(std::vector<CallPathModel>& models, const std::vector<std::string>& parameters,
                     const SeriesOptions& options) {
  parallel_for(
      models.size(),
      [&](size_t i) { models[i].model = fit_points(models[i].points, parameters, options); },
      options.threads);
}

SeriesModels model_series(const Series& series, const SeriesOptions& options, SeriesWork* work) {
  SeriesWork here;
  if (!work) work = &here;
  std::vector<std::string> paths;
  std::vector<std::vector<double>> coordinates;
  std::vector<size_t> ends;
  for (const auto& [coordinate, of_point] : reports_by_point(series)) {
    paths.insert(paths.end(), of_point.begin(), of_point.end());
    coordinates.push_back(coordinate);
    ends.push_back(paths.size());
  }
  Pooling pooling(coordinates, ends, options);
  work->read(paths, options,
             [&](size_t r, ReportSamples&& samples) { pooling.take(r, std::move(samples)); });
  SeriesModels result;
  for (auto& [key, values] : pooling.measured) {
    auto& into = values.size() == coordinates.size() ? result.models : result.incomplete;
    into.push_back(
        {pooling.callpaths.at(key.callpath),
         key.metric,
         key.flavour,
         std::move(values),
         {},
         key.location == kAllLocations ? std::nullopt : std::optional<size_t>(key.location)});
  }
  work->fit(result.models, series.parameters, options);
  return result;
}

}  // namespace cubekit
