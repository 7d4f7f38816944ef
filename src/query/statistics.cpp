#include "cubekit/statistics.hpp"

#include "cubekit/algebra.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

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

std::vector<std::vector<Index>> cnodes_of_regions(const Model& model,
                                                  const std::vector<std::string>& names) {
  std::unordered_map<std::string_view, std::vector<size_t>> asked;  // name → its positions
  for (size_t i = 0; i < names.size(); ++i) asked[names[i]].push_back(i);
  std::vector<std::vector<Index>> found(names.size());
  auto add = [&](std::string_view name, Index cnode) {
    const auto it = asked.find(name);
    if (it != asked.end())
      for (size_t i : it->second) found[i].push_back(cnode);
  };
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const Region& r = model.regions[model.cnodes[c].region];
    add(r.name, c);
    if (r.mangled_name != r.name) add(r.mangled_name, c);
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

namespace {

// A stored metric's call-exclusive row of `cnode`, in double: the stored row, or for a metric
// stored inclusive the stored row minus each child's, one by one with the call tree's ⊖ (a
// difference of a few ulps is 0), which also lets an unsigned metric go below zero, as the
// original prints it.
std::vector<double> exclusive_doubles(MetricEngine& engine, Index metric, Index cnode) {
  const Model& model = engine.report().model();
  std::vector<double> v = stored_doubles(engine, metric, cnode);
  if (model.metrics[metric].kind != MetricKind::kInclusive) return v;
  const DataType doubles(TypeKind::kDouble);
  for (Index child : model.cnodes[cnode].children) {
    const std::vector<double> row = stored_doubles(engine, metric, child);
    minus_rows(doubles, reinterpret_cast<std::byte*>(v.data()),
               reinterpret_cast<const std::byte*>(row.data()), v.size());
  }
  return v;
}

// A stored metric's call-inclusive row as CubeLib's tools library computes it (AggrCube::
// get_vcsev), whatever the storage: I(c) = E(c) + I(child 1) + I(child 2) + …, E the exclusive
// row above, each child's subtree summed before it is added. For a metric stored inclusive
// this differs from the stored row in the last bits, and variances over many locations show
// it (cube_stat -%). Depth-first with one partial sum per level of the current path.
std::vector<double> inclusive_as_sum_of_subtrees(MetricEngine& engine, Index metric, Index cnode) {
  const Model& model = engine.report().model();
  struct Level {
    Index cnode;
    size_t next_child = 0;
    std::vector<double> sum;
  };
  std::vector<Level> path;
  path.push_back({cnode, 0, exclusive_doubles(engine, metric, cnode)});
  for (;;) {
    Level& top = path.back();
    const auto& children = model.cnodes[top.cnode].children;
    if (top.next_child < children.size()) {
      const Index child = children[top.next_child++];
      path.push_back({child, 0, exclusive_doubles(engine, metric, child)});
      continue;
    }
    if (path.size() == 1) return std::move(top.sum);
    std::vector<double> done = std::move(top.sum);
    path.pop_back();
    for (size_t l = 0; l < done.size(); ++l) path.back().sum[l] += done[l];
  }
}

}  // namespace

// Stored metrics are computed from their rows in double, in the order CubeLib's tools library
// adds and subtracts them, so that sums and differences round as the original's.
std::vector<double> per_location(MetricEngine& engine, Index metric, Index cnode,
                                 Flavour call_flavour) {
  const Model& model = engine.report().model();
  const bool stored = metric < model.metrics.size() && !is_derived(model.metrics[metric].kind);
  const MetricKind kind = stored ? model.metrics[metric].kind : MetricKind::kPostDerived;
  if (stored && (kind == MetricKind::kExclusive || kind == MetricKind::kInclusive))
    return call_flavour == Flavour::kInclusive ? inclusive_as_sum_of_subtrees(engine, metric, cnode)
                                               : exclusive_doubles(engine, metric, cnode);
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
