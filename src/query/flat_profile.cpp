#include "cubekit/flat_profile.hpp"

#include <algorithm>

#include "cubekit/algebra.hpp"

namespace cubekit {

namespace {

std::vector<Index> regions_by_id(const Model& model) {
  std::vector<Index> regions(model.regions.size());
  for (Index i = 0; i < regions.size(); ++i) regions[i] = i;
  std::stable_sort(regions.begin(), regions.end(),
                   [&](Index a, Index b) { return model.regions[a].id < model.regions[b].id; });
  return regions;
}

// into = into ⊕ x, or x when into is still empty.
void add_to(std::optional<Values>& into, Values x) {
  if (!into)
    into.emplace(std::move(x));
  else
    plus_rows(x.type(), into->data(), x.data(), x.size());
}

}  // namespace

FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour) {
  const Model& model = engine.report().model();
  std::vector<Index> regions = regions_by_id(model);
  Values exclusive = engine.region_values(metric, metric_flavour, Flavour::kExclusive);
  Values inclusive = engine.region_values(metric, metric_flavour, Flavour::kInclusive);
  minus_rows(inclusive.type(), inclusive.data(), exclusive.data(), inclusive.size());
  return {std::move(regions), std::move(exclusive), std::move(inclusive)};
}

LocationFlatProfile location_flat_profile(MetricEngine& engine, Index metric,
                                          Flavour metric_flavour) {
  const Model& model = engine.report().model();
  LocationFlatProfile out;
  out.regions = regions_by_id(model);
  out.exclusive.resize(model.regions.size());
  out.subroutines.resize(model.regions.size());
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const Index r = model.cnodes[c].region;
    const Values excl = engine.location_values(metric, c, metric_flavour, Flavour::kExclusive);
    if (!model.cnodes[c].children.empty()) {
      Values callees = engine.location_values(metric, c, metric_flavour, Flavour::kInclusive);
      minus_rows(callees.type(), callees.data(), excl.data(), callees.size());
      add_to(out.subroutines[r], std::move(callees));
    }
    add_to(out.exclusive[r], excl);
  }
  return out;
}

}  // namespace cubekit
