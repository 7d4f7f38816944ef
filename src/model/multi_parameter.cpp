// Extra-P's multi-parameter modeler (docs/models.md): a single-parameter model per parameter
// from the points along that parameter's longest lines, then the sums and products of the
// parameters' terms, fitted by least squares to all points and chosen by SMAPE.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "cubekit/error.hpp"
#include "cubekit/perf_model.hpp"
#include "model/fitting.hpp"
#include "model/least_squares.hpp"

namespace cubekit {
namespace {

using Coordinate = std::vector<double>;

// The coordinate without its value of parameter p: the line through the point along p.
Coordinate line_of(const Coordinate& c, size_t p) {
  Coordinate rest = c;
  rest.erase(rest.begin() + std::ptrdiff_t(p));
  return rest;
}

// Groups of point indices under keys, kept in the order their keys first appear (the order
// decides which group Extra-P takes as the reference).
template <typename Key>
struct OrderedGroups {
  std::vector<Key> keys;
  std::vector<std::vector<size_t>> members;
  void add(const Key& key, size_t member) {
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it != keys.end()) return members[size_t(it - keys.begin())].push_back(member);
    keys.push_back(key);
    members.push_back({member});
  }
};

// The points for parameter p's single-parameter model: the lines along p with the most points;
// at each value of p, the mean of the values of those lines' points that lie on lines the
// first value's points lie on.
std::vector<MeasuredPoint> points_along(std::span<const MeasuredPoint> points, size_t p) {
  OrderedGroups<Coordinate> lines;
  for (size_t i = 0; i < points.size(); ++i) lines.add(line_of(points[i].coordinate, p), i);
  size_t longest = 0;
  for (const auto& members : lines.members) longest = std::max(longest, members.size());
  OrderedGroups<double> by_value;
  for (const auto& members : lines.members)
    if (members.size() == longest)
      for (size_t i : members) by_value.add(points[i].coordinate[p], i);
  std::vector<Coordinate> reference;
  for (size_t i : by_value.members[0]) reference.push_back(line_of(points[i].coordinate, p));
  std::vector<MeasuredPoint> along;
  for (size_t v = 0; v < by_value.keys.size(); ++v) {
    double sum = 0, count = 0;
    for (size_t i : by_value.members[v])
      if (std::find(reference.begin(), reference.end(), line_of(points[i].coordinate, p)) !=
          reference.end())
        sum += points[i].value, count += 1;
    if (count > 0) along.push_back({by_value.keys[v], sum / count, {by_value.keys[v]}});
  }
  return along;
}

// A hypothesis: terms, each the product of the single-parameter terms of some parameters.
using Hypothesis = std::vector<std::vector<size_t>>;

// Extra-P's hypotheses for k ≥ 2 parameters with a term: all multiplied, all added, and for 2
// and 3 parameters the mixed sums of products, in Extra-P's order (the first of equally good
// ones wins).
std::vector<Hypothesis> hypotheses_of(const std::vector<size_t>& k) {
  std::vector<Hypothesis> all = {{k}, {}};
  for (size_t p : k) all[1].push_back({p});
  if (k.size() == 2) {
    all.push_back({{k[0]}, k});
    all.push_back({{k[1]}, k});
  } else if (k.size() == 3) {
    const std::vector<size_t> x{k[0]}, y{k[1]}, z{k[2]}, xy{k[0], k[1]}, yz{k[1], k[2]},
        xz{k[0], k[2]};
    const std::vector<Hypothesis> mixed = {
        {k, x},     {k, y},     {k, z},     {k, xy},    {k, yz},   {k, xz},    {k, xy, z},
        {k, yz, x}, {k, xz, y}, {k, x, y},  {k, x, z},  {k, y, z}, {xy, z},    {xy, z, y},
        {xy, z, x}, {xz, y},    {xz, y, x}, {xz, y, z}, {yz, x},   {yz, x, y}, {yz, x, z}};
    all.insert(all.end(), mixed.begin(), mixed.end());
  }
  return all;
}

struct Fitted {
  PerformanceModel model;
  std::vector<std::vector<double>> term_values;  // per term, at every point, coefficient 1
};

// RSS and SMAPE of the model at all points (no cross-validation), and adjusted R² with one
// degree of freedom per factor, as Extra-P counts them (NaN when none is left).
void compute_costs(PerformanceModel& m, const std::vector<std::vector<double>>& term_values,
                   std::span<const double> y, double total_squares) {
  m.rss = m.smape = 0;
  size_t factors = 0;
  for (const ModelTerm& t : m.terms) factors += 1 + t.further_factors.size();
  for (size_t i = 0; i < y.size(); ++i) {
    double predicted = m.constant;
    for (size_t t = 0; t < m.terms.size(); ++t)
      predicted += m.terms[t].coefficient * term_values[t][i];
    m.rss += (predicted - y[i]) * (predicted - y[i]);
    m.smape += model_detail::smape_share(predicted, y[i]);
  }
  const double n = double(y.size());
  m.smape = m.smape / n * 100;
  const double freedom = n - double(factors) - 1;
  m.adjusted_r2 = freedom > 0 ? 1 - (m.rss / total_squares) * (n - 1) / freedom : std::nan("");
}

ModelTerm product_term(const std::vector<size_t>& parameters,
                       const std::vector<ModelTerm>& single_terms) {
  ModelTerm term = single_terms[parameters[0]];
  term.coefficient = 1;
  for (size_t i = 1; i < parameters.size(); ++i) {
    const ModelTerm& f = single_terms[parameters[i]];
    term.further_factors.push_back(
        {f.parameter, f.exponent_numerator, f.exponent_denominator, f.log_exponent});
  }
  return term;
}

// The hypothesis' terms with their least-squares coefficients and costs; none when a term is
// not finite at some point (a logarithm of 0).
std::optional<Fitted> fit_hypothesis(const Hypothesis& h, const std::vector<ModelTerm>& single,
                                     const std::vector<std::string>& parameters,
                                     std::span<const MeasuredPoint> points,
                                     std::span<const double> y, double total_squares) {
  Fitted f;
  model_detail::Columns columns{std::vector<double>(points.size(), 1.0)};
  for (const std::vector<size_t>& product : h) {
    f.model.terms.push_back(product_term(product, single));
    std::vector<double> values;
    for (const MeasuredPoint& m : points) {
      values.push_back(f.model.terms.back().evaluate(parameters, m.coordinate));
      if (!std::isfinite(values.back())) return std::nullopt;
    }
    columns.push_back(values);
    f.term_values.push_back(std::move(values));
  }
  const std::vector<double> x =
      model_detail::least_squares(std::move(columns), {y.begin(), y.end()});
  f.model.constant = x[0];
  for (size_t t = 0; t < f.model.terms.size(); ++t) f.model.terms[t].coefficient = x[t + 1];
  compute_costs(f.model, f.term_values, y, total_squares);
  if (!std::isfinite(f.model.rss)) return std::nullopt;
  return f;
}

// SMAPEs this close (relative, or in percent points below 1 %) are the same: hypotheses that
// fit the points equally (a sum and a sum of products on points along two lines) differ only
// by rounding, and the first one, the simpler, stays. Extra-P takes whichever rounding favours.
constexpr double kSmapeTie = 1e-9;

bool clearly_better(const PerformanceModel& candidate, const PerformanceModel& best) {
  return candidate.smape < best.smape - kSmapeTie * std::max(best.smape, 1.0);
}

bool terms_matter(const Fitted& f, std::span<const double> y) {
  for (size_t t = 0; t < f.model.terms.size(); ++t)
    if (!model_detail::term_matters(f.model.terms[t].coefficient, f.term_values[t], y))
      return false;
  return true;
}

// One parameter has a term: the better by SMAPE of its single-parameter model's coefficients
// and those fitted to all points (Extra-P keeps the former on a tie).
PerformanceModel one_parameter_model(const PerformanceModel& single, size_t parameter,
                                     const std::vector<std::string>& parameters,
                                     std::span<const MeasuredPoint> points,
                                     std::span<const double> y, double total_squares) {
  std::vector<double> values;
  for (const MeasuredPoint& m : points) {
    ModelTerm unit = single.terms[0];
    unit.coefficient = 1;
    values.push_back(unit.evaluate(parameters, m.coordinate));
  }
  PerformanceModel reused = single;
  compute_costs(reused, {values}, y, total_squares);
  std::vector<ModelTerm> singles(parameters.size(), single.terms[0]);
  const std::optional<Fitted> refitted =
      fit_hypothesis({{parameter}}, singles, parameters, points, y, total_squares);
  if (refitted && refitted->model.smape < reused.smape) return refitted->model;
  return reused;
}

void check_points(std::span<const MeasuredPoint> points,
                  const std::vector<std::string>& parameters) {
  std::vector<Coordinate> seen;
  for (const MeasuredPoint& m : points) {
    if (m.coordinate.size() != parameters.size())
      throw Error("a measurement point has " + std::to_string(m.coordinate.size()) +
                  " parameter values, the series has " + std::to_string(parameters.size()) +
                  " parameters");
    if (!std::isfinite(m.value) || !std::all_of(m.coordinate.begin(), m.coordinate.end(),
                                                [](double v) { return std::isfinite(v); }))
      throw Error("a measurement point is not a finite number");
    seen.push_back(m.coordinate);
  }
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
    throw Error("two measurement points have the same parameter values");
  if (points.empty()) throw Error("a model needs measurement points, got none");
}

// Extra-P's multi-parameter modeler, each parameter's single-parameter model over `space`
// (Extra-P's hypotheses when null).
PerformanceModel fit_over(std::span<const MeasuredPoint> points,
                          const std::vector<std::string>& parameters,
                          const HypothesisSpace* space) {
  check_points(points, parameters);
  std::vector<double> y;
  for (const MeasuredPoint& m : points) y.push_back(m.value);
  const PerformanceModel constant = model_detail::constant_model(y);
  const double total_squares = constant.rss;
  std::vector<PerformanceModel> models(parameters.size());
  std::vector<ModelTerm> single(parameters.size());  // each parameter's term, if it has one
  std::vector<size_t> with_term;
  for (size_t p = 0; p < parameters.size(); ++p) {
    models[p] =
        model_detail::fit_any_single_parameter(points_along(points, p), parameters[p], space);
    if (models[p].terms.empty()) continue;
    single[p] = models[p].terms[0];
    with_term.push_back(p);
  }
  if (with_term.empty()) return constant;
  if (with_term.size() == 1) {
    const size_t p = with_term[0];
    return one_parameter_model(models[p], p, parameters, points, y, total_squares);
  }
  std::optional<Fitted> best;
  for (const Hypothesis& h : hypotheses_of(with_term)) {
    std::optional<Fitted> f = fit_hypothesis(h, single, parameters, points, y, total_squares);
    if (!f) continue;
    // Extra-P starts from its first hypothesis, whether or not its terms matter.
    if (!best || (terms_matter(*f, y) && clearly_better(f->model, best->model)))
      best = std::move(f);
  }
  return best ? best->model : constant;
}

}  // namespace

PerformanceModel fit_multi_parameter(std::span<const MeasuredPoint> points,
                                     const std::vector<std::string>& parameters) {
  return fit_over(points, parameters, nullptr);
}

PerformanceModel fit_multi_parameter(std::span<const MeasuredPoint> points,
                                     const std::vector<std::string>& parameters,
                                     const HypothesisSpace& space) {
  return fit_over(points, parameters, &space);
}

}  // namespace cubekit
