#include "cubekit/topology.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "cubekit/error.hpp"

namespace cubekit {
namespace {

// The position of a system node among its siblings (roots among the roots).
size_t sibling_position(const Model& model, Index node) {
  const Index parent = model.system_nodes[node].parent;
  const std::vector<Index> roots = parent == kNoIndex ? model.system_roots() : std::vector<Index>{};
  const std::vector<Index>& siblings =
      parent == kNoIndex ? roots : model.system_nodes[parent].children;
  return static_cast<size_t>(std::find(siblings.begin(), siblings.end(), node) - siblings.begin());
}

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// Per location: the system nodes from its root down to its group's node.
std::vector<Index> node_chain(const Model& model, Index location) {
  std::vector<Index> chain;
  for (Index n = model.groups[model.locations[location].group].node; n != kNoIndex;
       n = model.system_nodes[n].parent)
    chain.push_back(n);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

Topology topology_of(const Model& model, const std::vector<Index>& locations, size_t first_level,
                     const TopologyGeneration& options) {
  size_t depth = 0;
  for (Index l : locations) depth = std::max(depth, node_chain(model, l).size());
  std::vector<std::string> names(depth + 2);
  std::vector<std::vector<int64_t>> coords;
  for (Index l : locations) {
    const std::vector<Index> chain = node_chain(model, l);
    std::vector<int64_t> c(depth + 2, 0);
    for (size_t level = 0; level < chain.size(); ++level) {
      c[level] = static_cast<int64_t>(sibling_position(model, chain[level]));
      if (names[level].empty())
        names[level] = capitalized(model.system_nodes[chain[level]].class_name);
    }
    const LocationGroup& g = model.groups[model.locations[l].group];
    const auto& groups = model.system_nodes[g.node].groups;
    c[depth] = std::find(groups.begin(), groups.end(), model.locations[l].group) - groups.begin();
    c[depth + 1] = std::find(g.locations.begin(), g.locations.end(), l) - g.locations.begin();
    coords.push_back(std::move(c));
  }
  names[depth] = "Process";
  names[depth + 1] = "Thread";
  std::vector<size_t> kept;
  for (size_t d = first_level; d < depth + 2; ++d) {
    int64_t size = 0;
    for (const auto& c : coords) size = std::max(size, c[d] + 1);
    if (size > 1 || options.keep_singular) kept.push_back(d);
  }
  if (kept.empty()) kept.push_back(depth + 1);
  Topology t;
  for (size_t d : kept) {
    int64_t size = 0;
    for (const auto& c : coords) size = std::max(size, c[d] + 1);
    t.dims.push_back({names[d].empty() ? "Level " + std::to_string(d) : names[d], size, false});
    t.name += (t.name.empty() ? "" : " x ") + t.dims.back().name;
  }
  for (size_t i = 0; i < locations.size(); ++i) {
    std::vector<int64_t> numbers;
    for (size_t d : kept) numbers.push_back(coords[i][d]);
    t.add_coord(Topology::Owner::kLocation, model.locations[locations[i]].id, numbers);
  }
  return t;
}

}  // namespace

std::vector<Index> locations_in_rank_order(const Model& model) {
  std::vector<Index> groups(model.groups.size());
  std::iota(groups.begin(), groups.end(), Index{0});
  std::stable_sort(groups.begin(), groups.end(),
                   [&](Index a, Index b) { return model.groups[a].rank < model.groups[b].rank; });
  std::vector<Index> order;
  for (Index g : groups)
    order.insert(order.end(), model.groups[g].locations.begin(), model.groups[g].locations.end());
  return order;
}

std::vector<Topology> generate_topologies(const Model& model, const TopologyGeneration& options) {
  const std::vector<Index> roots = model.system_roots();
  const std::vector<Index> all = locations_in_rank_order(model);
  if (!options.split_roots || roots.size() < 2) return {topology_of(model, all, 0, options)};
  std::vector<Topology> out;
  for (Index root : roots) {
    std::vector<Index> under;
    for (Index l : all)
      if (node_chain(model, l).front() == root) under.push_back(l);
    if (under.empty()) continue;
    Topology t = topology_of(model, under, 1, options);
    t.name = model.system_nodes[root].name + ": " + t.name;
    out.push_back(std::move(t));
  }
  return out;
}

void check_topology(const Model& model, const Topology& t) {
  const std::string where = "topology '" + t.name + "': ";
  for (const Topology::Dim& d : t.dims)
    if (d.size <= 0) throw Error(where + "dimension '" + d.name + "' has no elements");
  std::set<std::vector<int64_t>> taken;
  for (const Topology::Coord& c : t.coords) {
    const size_t owners = c.owner == Topology::Owner::kLocation ? model.locations.size()
                          : c.owner == Topology::Owner::kGroup  ? model.groups.size()
                                                                : model.system_nodes.size();
    if (c.owner_id >= owners) throw Error(where + "no owner with id " + std::to_string(c.owner_id));
    const std::span<const int64_t> values = t.values_of(c);
    if (values.size() != t.dims.size())
      throw Error(where + std::to_string(values.size()) + " coordinates for " +
                  std::to_string(t.dims.size()) + " dimensions");
    for (size_t d = 0; d < t.dims.size(); ++d)
      if (values[d] < 0 || values[d] >= t.dims[d].size)
        throw Error(where + "coordinate " + std::to_string(values[d]) + " outside dimension " +
                    std::to_string(d) + " (size " + std::to_string(t.dims[d].size) + ")");
    if (!taken.emplace(values.begin(), values.end()).second)
      throw Error(where + "two owners at the same coordinates");
  }
}

}  // namespace cubekit
