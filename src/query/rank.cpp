#include "cubekit/rank.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cubekit/statistics.hpp"

namespace cubekit {
namespace {

struct Item {
  double value;
  uint32_t cnode_id;
  Index location;
};

// Every (call path, location) value, call paths by id and locations in model order: the order
// in which the original collects them, which decides how equal values end up sorted.
std::vector<Item> collect(MetricEngine& engine, Index metric) {
  const Model& model = engine.report().model();
  std::vector<Index> by_id(model.cnodes.size());
  std::iota(by_id.begin(), by_id.end(), Index{0});
  sort_by_cnode_id(model, by_id);
  std::vector<Item> items;
  items.reserve(model.cnodes.size() * model.locations.size());
  for (Index c : by_id) {
    const std::vector<double> row = per_location(engine, metric, c, Flavour::kExclusive);
    for (Index l = 0; l < row.size(); ++l) items.push_back({row[l], model.cnodes[c].id, l});
  }
  return items;
}

// Largest first. The original's comparison also calls two equal non-zero values "greater"
// (not a strict weak order); with the same stable sort it leaves equal values in the order
// the oracle shows, so it is kept — it only decides which of equal values comes first.
bool original_greater(const Item& x, const Item& y) {
  if (x.value == y.value) return x.value != 0;
  return x.value > y.value;
}

double standard_normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// The standard normal density, each operation as the original takes it (the last bits decide
// the order of pairs whose scores print alike).
double normal_density(double x) {
  x *= x;
  x *= -0.5;
  x = std::exp(x);
  const double s = 1.0 / std::sqrt(2.0 * M_PI);
  return s * x;
}

// The original's composite Simpson rule from a with step kStep, operation for operation: its
// m = floor((b - a) / step) steps (at least one), x advanced by repeated addition.
double simpson_normal_mass(double a, unsigned steps) {
  constexpr double kStep = 1e-3;
  double x = a;
  const double half = 0.5 * kStep;
  double integral = normal_density(x);
  for (size_t i = 1; i < steps; ++i) {
    integral += 4.0 * normal_density(x + half);
    x += kStep;
    integral += 2.0 * normal_density(x);
  }
  integral += 4.0 * normal_density(x + half);
  x += kStep;
  integral += normal_density(x);
  return integral * (kStep / 6.0);
}

// A ranking sums at most this many Simpson steps over all its pairs as the original does;
// beyond, every pair takes the closed form (a large report with wide intervals would otherwise
// spend minutes in exp, as the original does).
constexpr double kSimpsonBudget = 2e7;

}  // namespace

double normal_mass(double a, double b, double max_simpson_steps) {
  constexpr double kStep = 1e-3;
  if (std::isnan(a) || std::isnan(b)) return a + b;  // keeps the NaN (and its sign)
  const double steps = std::floor((b - a) / kStep);
  if (steps <= max_simpson_steps)
    return simpson_normal_mass(a, static_cast<unsigned>(std::max(0.0, steps)));
  const double width = std::max(1.0, std::floor((b - a) / kStep)) * kStep;
  const double upper = a + width;
  // Upper tails for positive arguments, so that small masses far out keep their digits.
  if (a > 0) return 0.5 * (std::erfc(a / std::sqrt(2.0)) - std::erfc(upper / std::sqrt(2.0)));
  return standard_normal_cdf(upper) - standard_normal_cdf(a);
}

CallPathRanking rank_call_paths(MetricEngine& engine, Index metric) {
  std::vector<Item> items = collect(engine, metric);
  std::stable_sort(items.begin(), items.end(), original_greater);
  // Everything from the first zero on is dropped (negative values sort after the zeros).
  items.erase(std::find_if(items.begin(), items.end(), [](const Item& i) { return i.value == 0; }),
              items.end());
  CallPathRanking r;
  if (items.size() < 2) return r;  // no gap between values: nothing to rank

  r.gaps = items.size() - 1;
  r.highest = items.front().value;
  r.lowest = items[r.gaps].value;
  std::vector<double> gaps(r.gaps);
  for (size_t i = 0; i < r.gaps; ++i) gaps[i] = items[i].value - items[i + 1].value;
  for (double g : gaps) r.mean_gap += g;
  r.mean_gap /= static_cast<double>(r.gaps);
  for (double g : gaps) r.gap_variance += (g - r.mean_gap) * (g - r.mean_gap);
  r.gap_variance /= static_cast<double>(r.gaps - 1);
  r.step = (r.highest - r.lowest) / static_cast<double>(r.gaps);

  const double half_step = r.step * 0.5;
  // Every pair's interval is half_step wide: (steps + 1) × pairs exp calls in all.
  const double per_pair = std::max(0.0, std::floor(half_step / 1e-3)) + 1;
  const double max_steps = per_pair * static_cast<double>(r.gaps) <= kSimpsonBudget ? 1000 : 0;
  r.pairs.reserve(r.gaps);
  for (size_t i = 0; i < r.gaps; ++i) {
    const double z = (gaps[i] - r.mean_gap) / r.gap_variance;
    const double from = z - half_step;
    r.pairs.push_back(
        {normal_mass(from, from + half_step, max_steps), items[i].cnode_id, items[i].location});
  }
  // By score, then call path id, then location, as the original orders its pairs.
  std::stable_sort(r.pairs.begin(), r.pairs.end(), [](const RankedPair& a, const RankedPair& b) {
    if (a.score < b.score) return true;
    if (b.score < a.score) return false;
    if (a.cnode_id != b.cnode_id) return a.cnode_id < b.cnode_id;
    return a.location < b.location;
  });
  return r;
}

}  // namespace cubekit
