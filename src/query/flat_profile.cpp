#include "cubekit/flat_profile.hpp"

#include <algorithm>

#include "cubekit/algebra.hpp"

namespace cubekit {

FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour) {
  const Model& model = engine.report().model();
  std::vector<Index> regions(model.regions.size());
  for (Index i = 0; i < regions.size(); ++i) regions[i] = i;
  std::stable_sort(regions.begin(), regions.end(),
                   [&](Index a, Index b) { return model.regions[a].id < model.regions[b].id; });
  Values exclusive =
      region_sums(model, engine.aggregated_values(metric, metric_flavour, Flavour::kExclusive));
  Values inclusive =
      region_sums(model, engine.aggregated_values(metric, metric_flavour, Flavour::kInclusive));
  minus_rows(inclusive.type(), inclusive.data(), exclusive.data(), inclusive.size());
  return {std::move(regions), std::move(exclusive), std::move(inclusive)};
}

}  // namespace cubekit
