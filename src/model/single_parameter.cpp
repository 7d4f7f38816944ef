// Extra-P's default single-parameter modeler (docs/models.md): a constant when it fits exactly,
// otherwise the one-term hypothesis with the smallest leave-one-out SMAPE that beats the
// constant's SMAPE and whose term matters.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/perf_model.hpp"
#include "model/fitting.hpp"

namespace cubekit {
namespace model_detail {

double smape_share(double predicted, double actual) {
  const double sum = std::abs(actual) + std::abs(predicted);
  return sum == 0 ? 0 : std::abs(predicted - actual) / sum * 2;
}

bool term_matters(double coefficient, std::span<const double> t, std::span<const double> y) {
  if (coefficient == 0) return false;
  for (size_t i = 0; i < y.size(); ++i) {
    const double term = coefficient * t[i];
    if (term == 0 && y[i] == 0) continue;
    if (!(std::abs(term / y[i]) < kMinTermContribution)) return true;
  }
  return false;
}

}  // namespace model_detail

namespace {

using model_detail::kMinTermContribution;
using model_detail::smape_share;
using model_detail::term_matters;

// The exponents (i, j, l) of the term p^(i/j) · log2(p)^l each hypothesis has, in the order
// Extra-P tries them: the first of equally good hypotheses wins.
struct Exponents {
  int numerator, denominator, log;
};
constexpr std::array<Exponents, 42> kHypotheses{{
    {0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1},  {1, 3, 1}, {1, 4, 2},
    {1, 3, 2}, {1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 3, 0},  {3, 4, 0}, {2, 3, 1},
    {3, 4, 1}, {4, 5, 0}, {2, 3, 2}, {3, 4, 2}, {1, 1, 0},  {1, 1, 1}, {1, 1, 2},
    {5, 4, 0}, {5, 4, 1}, {4, 3, 0}, {4, 3, 1}, {3, 2, 0},  {3, 2, 1}, {3, 2, 2},
    {5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2},  {9, 4, 0}, {7, 3, 0},
    {5, 2, 0}, {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1},
}};

// A constant coefficient this small against the smallest training value is rounding noise
// (Extra-P's clean_constant_coefficient): it is set to 0 before validating.
constexpr double kCleanConstant = 0.0005;
struct Line {
  double intercept = 0, slope = 0;
};

// Least squares of y ≈ intercept + slope · t over the points not equal to `left_out`
// (size(): none), on centred data so that large terms (p^3 at p = 10^4) lose no precision.
Line fit_line(std::span<const double> t, std::span<const double> y, size_t left_out) {
  double n = 0, mean_t = 0, mean_y = 0;
  for (size_t i = 0; i < t.size(); ++i)
    if (i != left_out) n += 1, mean_t += t[i], mean_y += y[i];
  mean_t /= n;
  mean_y /= n;
  double stt = 0, sty = 0;
  for (size_t i = 0; i < t.size(); ++i)
    if (i != left_out) {
      stt += (t[i] - mean_t) * (t[i] - mean_t);
      sty += (t[i] - mean_t) * (y[i] - mean_y);
    }
  if (stt == 0) {  // one value of t: the least-norm solution, as numpy's lstsq gives it
    const double intercept = mean_y / (1 + mean_t * mean_t);
    return {intercept, intercept * mean_t};
  }
  const double slope = sty / stt;
  return {mean_y - slope * mean_t, slope};
}

struct Candidate {
  Line line;
  double rss = 0, smape = 0;
};

// Leave-one-out costs of the hypothesis whose term has the values `t`, then its fit to all.
Candidate cross_validate(std::span<const double> t, std::span<const double> y) {
  Candidate c;
  const size_t n = y.size();
  for (size_t k = 0; k < n; ++k) {
    Line line = fit_line(t, y, k);
    double minimum = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < n; ++i)
      if (i != k) minimum = std::min(minimum, y[i]);
    const double share = minimum == 0 ? line.intercept : line.intercept / minimum;
    if (std::abs(share) < kCleanConstant) line.intercept = 0;
    const double predicted = line.intercept + line.slope * t[k];
    c.rss += (predicted - y[k]) * (predicted - y[k]);
    c.smape += smape_share(predicted, y[k]) / double(n) * 100;
  }
  c.line = fit_line(t, y, n);
  return c;
}

}  // namespace

PerformanceModel model_detail::constant_model(std::span<const double> y) {
  PerformanceModel m;
  for (double v : y) m.constant += v;
  m.constant /= double(y.size());
  for (double v : y) {
    m.rss += (m.constant - v) * (m.constant - v);
    m.smape += smape_share(m.constant, v);
  }
  m.smape = m.smape / double(y.size()) * 100;
  return m;
}

namespace {

void append_number(std::string& out, double v) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  out.append(buffer.data(), result.ptr);
}

}  // namespace

double TermFactor::evaluate(double p) const {
  double value = 1;
  if (exponent_numerator != 0) value *= std::pow(p, exponent());
  if (log_exponent != 0) value *= std::pow(std::log2(p), log_exponent);
  return value;
}

double ModelTerm::evaluate(double p) const {
  return coefficient *
         TermFactor{parameter, exponent_numerator, exponent_denominator, log_exponent}.evaluate(p);
}

std::vector<TermFactor> ModelTerm::factors() const {
  std::vector<TermFactor> all{{parameter, exponent_numerator, exponent_denominator, log_exponent}};
  all.insert(all.end(), further_factors.begin(), further_factors.end());
  return all;
}

double ModelTerm::evaluate(std::span<const std::string> parameters,
                           std::span<const double> values) const {
  double value = coefficient;
  for (const TermFactor& f : factors()) {
    const auto it = std::find(parameters.begin(), parameters.end(), f.parameter);
    if (it == parameters.end() || size_t(it - parameters.begin()) >= values.size())
      throw Error("the model's parameter " + f.parameter + " has no value");
    value *= f.evaluate(values[size_t(it - parameters.begin())]);
  }
  return value;
}

double PerformanceModel::evaluate(double p) const {
  double value = constant;
  for (const ModelTerm& t : terms) value += t.evaluate(p);
  return value;
}

double PerformanceModel::evaluate(std::span<const std::string> parameters,
                                  std::span<const double> values) const {
  double value = constant;
  for (const ModelTerm& t : terms) value += t.evaluate(parameters, values);
  return value;
}

std::string PerformanceModel::formula() const {
  std::string out;
  append_number(out, constant);
  for (const ModelTerm& t : terms) {
    out += " + ";
    append_number(out, t.coefficient);
    for (const TermFactor& f : t.factors()) {
      if (f.exponent_numerator != 0) {
        out += " * " + f.parameter + "^(" + std::to_string(f.exponent_numerator);
        if (f.exponent_denominator != 1) out += "/" + std::to_string(f.exponent_denominator);
        out += ")";
      }
      if (f.log_exponent != 0)
        out += " * log2(" + f.parameter + ")^(" + std::to_string(f.log_exponent) + ")";
    }
  }
  return out;
}

namespace {

void require_enough_points(std::span<const MeasuredPoint> points) {
  if (points.size() < kMinModelPoints)
    throw Error("a model needs at least " + std::to_string(kMinModelPoints) +
                " measurement points, got " + std::to_string(points.size()));
}

// The hypotheses of `space` (Extra-P's without one), in the order they are tried.
std::vector<Exponents> hypotheses(const HypothesisSpace* space) {
  if (!space) return {kHypotheses.begin(), kHypotheses.end()};
  std::vector<Exponents> out;
  for (const auto& [i, j] : space->exponents)
    for (int l : space->log_exponents)
      if (i != 0 || l != 0) out.push_back({i, j, l});
  return out;
}

// The integer `item` of list `what` within [lo, hi]; Error naming both otherwise.
int list_integer(std::string_view item, const std::string& what, int lo, int hi) {
  int v = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
  if (ec != std::errc() || end != item.data() + item.size() || v < lo || v > hi)
    throw Error(what + ": '" + std::string(item) + "' is not a whole number from " +
                std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

// The comma-separated items of `text`, at most 32; Error naming `what` otherwise.
std::vector<std::string_view> list_items(const std::string& text, const std::string& what) {
  std::vector<std::string_view> items;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    items.push_back(std::string_view(text).substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (items.size() > 32) throw Error(what + ": more than 32 items");
  return items;
}

}  // namespace

HypothesisSpace parse_hypothesis_space(const std::string& exponents,
                                       const std::string& log_exponents) {
  HypothesisSpace space;
  const std::string what = "exponents '" + exponents + "'";
  for (std::string_view item : list_items(exponents, what)) {
    const size_t slash = item.find('/');
    const int i = list_integer(item.substr(0, slash), what, 0, 64);
    const int j =
        slash == std::string_view::npos ? 1 : list_integer(item.substr(slash + 1), what, 1, 64);
    space.exponents.push_back({i, j});
  }
  const std::string logs = "log exponents '" + log_exponents + "'";
  for (std::string_view item : list_items(log_exponents, logs))
    space.log_exponents.push_back(list_integer(item, logs, 0, 8));
  return space;
}

PerformanceModel fit_single_parameter(std::span<const MeasuredPoint> points,
                                      const std::string& parameter) {
  require_enough_points(points);
  return model_detail::fit_any_single_parameter(points, parameter);
}

PerformanceModel fit_single_parameter(std::span<const MeasuredPoint> points,
                                      const std::string& parameter, const HypothesisSpace& space) {
  require_enough_points(points);
  return model_detail::fit_any_single_parameter(points, parameter, &space);
}

PerformanceModel model_detail::fit_any_single_parameter(std::span<const MeasuredPoint> points,
                                                        const std::string& parameter,
                                                        const HypothesisSpace* space) {
  std::vector<double> p, y;
  bool log_terms = true;  // log2 of a value below 1 is negative (or -inf): no log terms then
  for (const MeasuredPoint& m : points) {
    if (!std::isfinite(m.parameter_value) || !std::isfinite(m.value))
      throw Error("a measurement point is not a finite number");
    p.push_back(m.parameter_value);
    y.push_back(m.value);
    log_terms = log_terms && m.parameter_value >= 1;
  }
  PerformanceModel best = constant_model(y);
  if (best.rss == 0) return best;
  const double total_squares = best.rss;
  const double n = double(y.size());
  std::vector<double> t(y.size());
  for (const Exponents& e : hypotheses(space)) {
    if (e.log != 0 && !log_terms) continue;
    ModelTerm term{1, parameter, e.numerator, e.denominator, e.log};
    for (size_t i = 0; i < p.size(); ++i) t[i] = term.evaluate(p[i]);
    const Candidate c = cross_validate(t, y);
    if (!std::isfinite(c.rss) || !term_matters(c.line.slope, t, y) || !(c.smape < best.smape))
      continue;
    term.coefficient = c.line.slope;
    best.constant = c.line.intercept;
    best.terms = {term};
    best.rss = c.rss;
    best.smape = c.smape;
    best.adjusted_r2 = 1 - (c.rss / total_squares) * (n - 1) / (n - 2);
  }
  return best;
}

}  // namespace cubekit
