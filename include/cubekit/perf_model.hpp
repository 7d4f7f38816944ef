// Performance models from a series of experiments, as Extra-P fits them (docs/models.md): one
// report per measurement point (and repetition), one model per call path × metric × call-tree
// flavour in the performance-model normal form c0 + c1 · p^(i/j) · log2(p)^l, chosen from
// Extra-P's default single-parameter hypothesis space by leave-one-out cross-validation; with
// several parameters, Extra-P's multi-parameter modeler combines the single-parameter terms of
// each parameter into sums and products.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cubekit/calc.hpp"

namespace cubekit {

// What one point's value is, of the values measured there (repetitions, and with weak scaling
// locations). Extra-P's default is the mean.
enum class Measure { kMean, kMedian, kMinimum, kMaximum };
// How the per-location values of a report become values of a point: weak pools them (each
// location is a sample, Extra-P's default), strong sums them per report (the total).
enum class Scaling { kWeak, kStrong };

// The names Extra-P's options use (--measure mean|median|minimum|maximum, --scaling
// weak|strong); nullopt for any other text.
std::optional<Measure> parse_measure(const std::string& name);
std::optional<Scaling> parse_scaling(const std::string& name);

// p^(exponent_numerator / exponent_denominator) · log2(p)^log_exponent of one parameter p.
struct TermFactor {
  std::string parameter;
  int exponent_numerator = 0, exponent_denominator = 1;
  int log_exponent = 0;
  double exponent() const { return double(exponent_numerator) / exponent_denominator; }
  double evaluate(double p) const;
};

// c · p^(exponent_numerator / exponent_denominator) · log2(p)^log_exponent, times the factors
// of further parameters in a multi-parameter term (c · x^(1/2) · y^2: parameter x, then the
// factor of y).
struct ModelTerm {
  double coefficient = 0;
  std::string parameter;
  int exponent_numerator = 0, exponent_denominator = 1;
  int log_exponent = 0;
  std::vector<TermFactor> further_factors = {};
  double exponent() const { return double(exponent_numerator) / exponent_denominator; }
  // Single-parameter terms only (the further factors are left out).
  double evaluate(double p) const;
  // Every factor, the first one's parameter first.
  std::vector<TermFactor> factors() const;
  // The term at a point: `values[i]` is the value of `parameters[i]`; Error when a factor's
  // parameter is not among them.
  double evaluate(std::span<const std::string> parameters, std::span<const double> values) const;
};

// A fitted model with the quality measures that chose it. For a model with a term, rss and
// smape are the leave-one-out values (each point predicted by the model fitted to the others),
// as Extra-P reports them; for a constant they are those of the fit, and adjusted_r2 is 1.
struct PerformanceModel {
  double constant = 0;
  std::vector<ModelTerm> terms;
  double rss = 0, smape = 0, adjusted_r2 = 1;
  double evaluate(double p) const;
  double evaluate(std::span<const std::string> parameters, std::span<const double> values) const;
  // "c0 + c1 * p^(3/2) * log2(p)^(1)", "c0 + c1 * x^(1) * y^(1/2)", each number written to
  // round-trip.
  std::string formula() const;
};

// One measurement point of a series. In a multi-parameter series `coordinate` holds the value
// of every parameter (the series' order) and parameter_value is the first of them; in a
// single-parameter series `coordinate` may be empty.
struct MeasuredPoint {
  double parameter_value = 0;
  double value = 0;  // the point's measure (SeriesOptions::measure) of its samples
  std::vector<double> coordinate = {};
  // Of the point's samples (model_series: one per location of each repetition with weak
  // scaling, one per repetition with strong), for plots of the spread.
  double minimum = 0, median = 0, maximum = 0;
  std::vector<double> samples{};  // the samples themselves, only with SeriesOptions::keep_samples
};

// The smallest series a model can be fitted to: two points for the fit, one to validate.
inline constexpr size_t kMinModelPoints = 3;

// Extra-P's default single-parameter modeler on these points (distinct parameter values, any
// order): Error when fewer than kMinModelPoints or a value is not finite.
PerformanceModel fit_single_parameter(std::span<const MeasuredPoint> points,
                                      const std::string& parameter);

// Another hypothesis space of the single-parameter modeler (CubeGUI's PerformanceModeling
// refits a call path so): a term p^(i/j) · log2(p)^l for every exponent i/j of `exponents` and
// every l of `log_exponents` (p^0 · log2(p)^0 left out), tried in that order: the first of
// equally good hypotheses wins. (Extra-P's default space is 42 chosen pairs, not a product.)
struct HypothesisSpace {
  std::vector<std::pair<int, int>> exponents;  // (i, j)
  std::vector<int> log_exponents;
};

// "0,1/2,1,3/2,2" and "0,1,2" as a space: exponents i or i/j with 0 <= i <= 64 and
// 1 <= j <= 64, log exponents 0 to 8, at most 32 of each; Error naming the list and the item
// that is not one.
HypothesisSpace parse_hypothesis_space(const std::string& exponents,
                                       const std::string& log_exponents);

// The single-parameter modeler over `space` instead of Extra-P's default hypotheses.
PerformanceModel fit_single_parameter(std::span<const MeasuredPoint> points,
                                      const std::string& parameter, const HypothesisSpace& space);

// Extra-P's multi-parameter modeler on these points (each with a coordinate of
// parameters.size() values, distinct coordinates, any order): per parameter a single-parameter
// model of the points along the longest lines of that parameter; the constant when no
// parameter has a term, otherwise the best of the sums and products of the parameters' terms
// by SMAPE, fitted by least squares to all points (docs/models.md). Error when a coordinate
// has the wrong size, a value is not finite or two points have the same coordinate.
PerformanceModel fit_multi_parameter(std::span<const MeasuredPoint> points,
                                     const std::vector<std::string>& parameters);
// The same with each parameter's single-parameter model fitted over `space` instead of
// Extra-P's hypotheses (the sums and products of their terms as above).
PerformanceModel fit_multi_parameter(std::span<const MeasuredPoint> points,
                                     const std::vector<std::string>& parameters,
                                     const HypothesisSpace& space);

// One report of a series at its point (a value per parameter of the series).
struct SeriesReport {
  std::vector<double> coordinate;
  std::string path;
};

struct Series {
  std::vector<std::string> parameters;
  std::vector<SeriesReport> reports;
};

// A folder of experiment folders as Extra-P's --cube reads it: every `*/[!.]*.cubex`, the
// parameters and their values from the folder's name between its first '.' and ".r" (e.g.
// mm.x10y1z1.r2: x=10, y=1, z=1, repetition 2; "1,5" is 1.5), parameters with one value only
// left out. Error naming the folder when there is no report, a name has no parameter, the
// folders name different parameters, or no parameter varies.
Series read_series_folder(const std::string& folder);

struct SeriesOptions {
  Measure measure = Measure::kMean;
  Scaling scaling = Scaling::kWeak;
  // A model per location (its index in each report, e.g. rank 3 thread 0), the value of a point
  // being the measure of that location's values over the repetitions; `scaling` does not apply.
  bool per_location = false;
  // Every model is fitted on one of these threads (0: default_thread_count()).
  unsigned threads = 0;
  // Keep every sample in MeasuredPoint::samples (e.g. for an Extra-P experiment file).
  bool keep_samples = false;
  // Fit over this space instead of Extra-P's hypotheses (with several parameters: each
  // parameter's single-parameter model).
  std::optional<HypothesisSpace> hypotheses = std::nullopt;
};

struct CallPathModel {
  std::vector<std::string> callpath;  // region names from the root
  std::string metric;                 // unique name
  Flavour flavour = Flavour::kExclusive;
  std::vector<MeasuredPoint> points;  // in increasing (lexicographic) order of the coordinate
  PerformanceModel model;
  std::optional<size_t> location;  // with SeriesOptions::per_location: the location's index
};

struct SeriesModels {
  std::vector<CallPathModel> models;
  // Measured at some points only (their points, no model): e.g. a call path that some reports
  // lack, or a minimum metric no location of a report has a value of.
  std::vector<CallPathModel> incomplete;
};

// One report's samples of a series, per call path × stored single-number metric × flavour: a
// sample per location (weak scaling, per location) or their aggregate (strong), NaN where a
// value is no sample; ordered by call path names, metric and flavour. model_series reads them
// (read_report_samples); in an MPI job other ranks do and send them (docs/mpi.md).
struct ReportSamples {
  struct Entry {
    std::vector<std::string> callpath;  // region names from the root
    std::string metric;                 // unique name
    Flavour flavour = Flavour::kExclusive;
    std::vector<double> samples;
  };
  std::vector<Entry> entries;
};

// Error naming the report when it cannot be read.
ReportSamples read_report_samples(const std::string& path, const SeriesOptions& options);

// A model of one call path's points: fit_single_parameter with one parameter, else
// fit_multi_parameter (either over options.hypotheses when given).
PerformanceModel fit_points(std::span<const MeasuredPoint> points,
                            const std::vector<std::string>& parameters,
                            const SeriesOptions& options = {});

// Where model_series does its two costly parts: by default here, on options.threads threads;
// the MPI layer spreads them over the ranks of a job. Wherever they run, the samples are pooled
// in report order and every model is fitted by fit_points: the models are the same.
class SeriesWork {
 public:
  virtual ~SeriesWork() = default;
  // read_report_samples of each path, handed to `take` in path order.
  virtual void read(const std::vector<std::string>& paths, const SeriesOptions& options,
                    const std::function<void(size_t path, ReportSamples&& samples)>& take);
  // m.model = fit_points(m.points, parameters) for every model.
  virtual void fit(std::vector<CallPathModel>& models, const std::vector<std::string>& parameters,
                   const SeriesOptions& options);
};

// Reads every report of a series and fits a model for each call path (matched by region names
// from the root) × stored metric (by unique name) × flavour (× location with per_location)
// measured at every point: fit_single_parameter for one parameter, fit_multi_parameter for
// more. A sample that is not finite (the identity ±inf a MINDOUBLE / MAXDOUBLE metric holds
// where a location never ran the call path) is no sample. Ordered by call path names, then
// metric name, inclusive before exclusive, then location. Error naming the report when one
// cannot be read, when a parameter has fewer than kMinModelPoints values, or when a series of
// several parameters is given `hypotheses`.
SeriesModels model_series(const Series& series, const SeriesOptions& options = {},
                          SeriesWork* work = nullptr);

// A law of a generated series: the exclusive value of `metric` at `callpath` (region names from
// the root) as an expression of the parameters: numbers, the parameters' names, + - * / ^,
// parentheses and log2( ), log( ), sqrt( ), exp( ), e.g. "0.5 * p^1.5 * log2(p)".
struct SeriesLaw {
  std::vector<std::string> callpath;
  std::string metric;
  std::string expression;
};

// The value of a law's expression where the parameter `parameter` is `value`; Error naming
// the expression and the position of a syntax error.
double evaluate_law(const std::string& expression, const std::string& parameter, double value);
// The same with several parameters: `values[i]` is the value of `parameters[i]`.
double evaluate_law(const std::string& expression, std::span<const std::string> parameters,
                    std::span<const double> values);

// A further parameter of a generated series and its points.
struct SeriesParameter {
  std::string name;
  std::vector<double> values;
};

struct SeriesSpec {
  std::string parameter = "p";
  std::vector<double> points;
  // A multi-parameter series: the other parameters; the series is the full grid of all points.
  std::vector<SeriesParameter> further_parameters;
  unsigned repetitions = 1;
  // Each value is the law's times (1 + noise · u), u uniform in [-1, 1] from `seed`.
  double noise = 0;
  uint64_t seed = 1;
  std::vector<SeriesLaw> laws;
};

// Writes a series in Extra-P's layout, `folder`/exp.<parameter><value>[...].r<repetition>/
// profile.cubex: one location, the call tree of the laws' call paths, one DOUBLE EXCLUSIVE
// metric per metric named (0 where a call path has no law for it). Error for an empty or
// invalid spec (no law or point, a bad expression, a non-finite value) naming the problem.
void write_series(const std::string& folder, const SeriesSpec& spec);

}  // namespace cubekit
