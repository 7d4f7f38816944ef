// Cartesian topologies of a report's locations (cube_topoassist, tools guide §1.5): the order
// in which locations get coordinates, topologies generated from the system tree, and checks
// of a topology against the model.
#pragma once

#include <vector>

#include "cubekit/model.hpp"

namespace cubekit {

// Location groups by rank (ties in model order), each group's locations in order: the order in
// which cube_topoassist asks for coordinates.
std::vector<Index> locations_in_rank_order(const Model& model);

struct TopologyGeneration {
  bool keep_singular = false;  // keep dimensions of size 1
  bool split_roots = true;     // one topology per system tree root (machine), when several
};

// One dimension per system tree level (named after the class of its nodes: Machine, Node, ...),
// then Process (the location group within its node) and Thread (the location within its
// group); a coordinate is the position among siblings. Dimensions of size 1 are left out
// unless asked for (at least one stays).
std::vector<Topology> generate_topologies(const Model& model, const TopologyGeneration& options);

// Throws Error unless every dimension has a size above zero and every coordinate names an
// existing location (or group, or node), has one value per dimension within its size, and no
// two owners share coordinates.
void check_topology(const Model& model, const Topology& topology);

}  // namespace cubekit
