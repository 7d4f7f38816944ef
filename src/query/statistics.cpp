#include "cubekit/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace cubekit {

void LocationStatistics::add(double value) {
  ++count_;
  sum_ += value;
  squares_ += value * value;
  if (count_ <= 5) {  // the first five values are the initial markers, kept sorted
    const auto end = height_.begin() + (count_ - 1);
    const auto at = std::upper_bound(height_.begin(), end, value);
    std::copy_backward(at, end, end + 1);
    *at = value;
    return;
  }
  // The cell the value falls into; the extreme markers follow the minimum and maximum.
  size_t cell = 0;
  while (cell < 5 && !(value < height_[cell])) ++cell;
  if (cell == 0) {
    height_[0] = value;
    cell = 1;
  } else if (cell == 5) {
    height_[4] = value;
    cell = 4;
  }
  for (size_t i = cell; i < 5; ++i) ++position_[i];
  constexpr std::array<double, 5> kDesiredStep{0.0, 0.25, 0.5, 0.75, 1.0};
  for (size_t i = 0; i < 5; ++i) desired_[i] += kDesiredStep[i];
  adjust_markers();
}

// Moves each middle marker by one position towards its desired position when it is at least
// one off and the neighbour leaves room: parabolic (P²) prediction of its height, or linear
// when the parabola leaves the neighbours' interval.
void LocationStatistics::adjust_markers() {
  for (size_t i = 1; i < 4; ++i) {
    const double off = desired_[i] - position_[i];
    const bool up = off >= 1.0 && position_[i + 1] - position_[i] > 1;
    const bool down = off <= -1.0 && position_[i - 1] - position_[i] < -1;
    if (!up && !down) continue;
    const double d = up ? 1.0 : -1.0;
    const double q = height_[i], below = height_[i - 1], above = height_[i + 1];
    const int64_t n = position_[i], n_below = position_[i - 1], n_above = position_[i + 1];
    const double parabolic = q + d / (n_above - n_below) *
                                     ((n - n_below + d) * (above - q) / (n_above - n) +
                                      (n_above - n - d) * (q - below) / (n - n_below));
    if (below < parabolic && parabolic < above) {
      height_[i] = parabolic;
    } else {
      const size_t j = up ? i + 1 : i - 1;
      height_[i] = q + d * (height_[j] - q) / (position_[j] - n);
    }
    position_[i] += up ? 1 : -1;
  }
}

double LocationStatistics::median() const {
  if (count_ >= 5) return height_[2];
  if (count_ % 2) return height_[(count_ - 1) / 2];
  return (height_[count_ / 2 - 1] + height_[count_ / 2]) / 2;
}

std::vector<Index> cnodes_of_region(const Model& model, std::string_view name) {
  std::vector<Index> found;
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const Region& r = model.regions[model.cnodes[c].region];
    if (r.name == name || r.mangled_name == name) found.push_back(c);
  }
  return found;
}

namespace {

std::vector<double> stored_doubles(MetricEngine& engine, Index metric, Index cnode) {
  const Values row = engine.stored_values(metric, cnode);
  const Model& model = engine.report().model();
  std::vector<double> out;
  out.reserve(model.locations.size());
  for (const Location& l : model.locations) out.push_back(row.scalar(l.id));
  return out;
}

}  // namespace

// Stored metrics are computed from their rows in double, in the order CubeLib's per-location
// question adds them, so that sums and differences round as the original's: an exclusive
// metric's inclusive value folds the call path and then its subtree in pre-order; an inclusive
// metric's exclusive value subtracts the children from the call path (which also lets an
// unsigned metric go below zero, as the original prints it).
std::vector<double> per_location(MetricEngine& engine, Index metric, Index cnode,
                                 Flavour call_flavour) {
  const Model& model = engine.report().model();
  const bool stored = metric < model.metrics.size() && !is_derived(model.metrics[metric].kind);
  const MetricKind kind = stored ? model.metrics[metric].kind : MetricKind::kPostDerived;
  if (stored && kind == MetricKind::kExclusive && call_flavour == Flavour::kInclusive) {
    std::vector<double> sum(model.locations.size(), 0.0);
    std::vector<Index> pending{cnode};
    while (!pending.empty()) {
      const Index c = pending.back();
      pending.pop_back();
      const std::vector<double> row = stored_doubles(engine, metric, c);
      for (size_t l = 0; l < sum.size(); ++l) sum[l] += row[l];
      const auto& children = model.cnodes[c].children;
      pending.insert(pending.end(), children.rbegin(), children.rend());
    }
    return sum;
  }
  if (stored && kind == MetricKind::kInclusive && call_flavour == Flavour::kExclusive) {
    std::vector<double> v = stored_doubles(engine, metric, cnode);
    for (Index child : model.cnodes[cnode].children) {
      const std::vector<double> row = stored_doubles(engine, metric, child);
      for (size_t l = 0; l < v.size(); ++l) v[l] -= row[l];
    }
    return v;
  }
  const Values row = engine.location_values(metric, cnode, Flavour::kInclusive, call_flavour);
  std::vector<double> out;
  out.reserve(model.locations.size());
  for (const Location& l : model.locations) out.push_back(row.scalar(l.id));
  return out;
}

std::optional<FoundValue> first_value_at_least(MetricEngine& engine, double threshold) {
  const Model& model = engine.report().model();
  // Call paths by id, as CubeLib holds them (ids need not follow the document order).
  std::vector<Index> cnodes(model.cnodes.size());
  for (Index c = 0; c < cnodes.size(); ++c) cnodes[c] = c;
  std::stable_sort(cnodes.begin(), cnodes.end(),
                   [&](Index a, Index b) { return model.cnodes[a].id < model.cnodes[b].id; });
  for (Index m = 0; m < model.metrics.size(); ++m) {
    if (model.metrics[m].ghost) continue;
    for (Index c : cnodes) {
      const std::vector<double> row = per_location(engine, m, c, Flavour::kExclusive);
      for (Index l = 0; l < row.size(); ++l)
        if (std::fabs(row[l]) >= threshold) return FoundValue{m, c, l, row[l]};
    }
    engine.forget_values();  // one metric's values in memory at a time
  }
  return std::nullopt;
}

}  // namespace cubekit
