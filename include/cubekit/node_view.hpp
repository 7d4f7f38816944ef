// One metric summed per system-tree node (cube_nodeview, tools guide §1.5): each location's
// total over every call path (metric-inclusive, call-exclusive values), added up per node
// holding the location's group, with the extremes, mean and spread over the nodes.
#pragma once

#include <cstdint>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

struct NodeView {
  // System nodes of class "node" (CubeLib counts only those as nodes, also for the mean) and
  // the locations in their groups.
  int64_t nodes = 0, threads = 0;
  // The totals per system node that directly holds a location group (any class), in model
  // order; max, min, mean (sum over `nodes`) and the root of the summed squared deviations,
  // as CubeLib's tool defines its "Std_dev".
  std::vector<double> per_node;
  double maximum = 0, minimum = 0, mean = 0, deviation = 0;
  double threads_per_node() const { return static_cast<double>(threads) / nodes; }
};

NodeView node_view(MetricEngine& engine, Index metric);

}  // namespace cubekit
