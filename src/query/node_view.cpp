#include "cubekit/node_view.hpp"

#include <cmath>
#include <limits>
#include <map>

#include "cubekit/statistics.hpp"

namespace cubekit {

NodeView node_view(MetricEngine& engine, Index metric) {
  const Model& model = engine.report().model();
  // Location totals, adding the call paths in order for each location.
  std::vector<double> per_location_total(model.locations.size(), 0.0);
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const std::vector<double> row = per_location(engine, metric, c, Flavour::kExclusive);
    for (size_t l = 0; l < row.size(); ++l) per_location_total[l] += row[l];
  }
  std::map<Index, double> per_node;  // system node index -> total
  for (Index l = 0; l < model.locations.size(); ++l)
    per_node[model.groups[model.locations[l].group].node] += per_location_total[l];

  NodeView view;
  for (const SystemNode& n : model.system_nodes) {
    if (n.class_name != "node") continue;
    ++view.nodes;
    for (Index g : n.groups) view.threads += static_cast<int64_t>(model.groups[g].locations.size());
  }
  view.maximum = -std::numeric_limits<double>::max();
  view.minimum = std::numeric_limits<double>::max();
  double sum = 0;
  for (const auto& [node, total] : per_node) {
    view.per_node.push_back(total);
    if (total > view.maximum) view.maximum = total;
    if (total < view.minimum) view.minimum = total;
    sum += total;
  }
  // With no node of class "node" the mean is sum / 0, as the original prints it (inf).
  view.mean = sum / static_cast<double>(view.nodes);
  double squares = 0;
  for (double total : view.per_node) squares += (total - view.mean) * (total - view.mean);
  view.deviation = std::sqrt(squares);
  return view;
}

}  // namespace cubekit
