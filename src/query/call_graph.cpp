#include "cubekit/call_graph.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "cubekit/error.hpp"

namespace cubekit {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// What orders regions and calls: the absolute value, a NaN (0/0 of a derived metric) below any
// number, so that the orders stay strict.
double magnitude(double x) {
  return std::isnan(x) ? -1.0 : std::abs(x);
}

// The `k` largest of the indices 0..n-1 by `larger` (a strict order on indices), largest first.
template <class Larger>
std::vector<uint32_t> largest_first(size_t n, size_t k, Larger larger) {
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  k = std::min(k, n);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    larger);
  order.resize(k);
  return order;
}

}  // namespace

namespace {

// Per call path, the index of its region in the graph, regions numbered by their first call
// path; regions of one name share an index. `names` gets each index's name.
std::vector<uint32_t> graph_regions(const Model& model, std::vector<std::string>& names) {
  std::unordered_map<std::string_view, uint32_t> by_name;
  std::vector<uint32_t> of_region(model.regions.size(), kNone);
  std::vector<uint32_t> of_cnode(model.cnodes.size());
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    uint32_t& index = of_region.at(model.cnodes[c].region);
    if (index == kNone) {
      const std::string& name = model.regions[model.cnodes[c].region].name;
      const auto [it, added] = by_name.try_emplace(name, static_cast<uint32_t>(names.size()));
      if (added) names.push_back(name);
      index = it->second;
    }
    of_cnode[c] = index;
  }
  return of_cnode;
}

// The calls of `shape` (its region_of set) and each call path's call, numbered by their first
// call path. Sorting the call paths by (caller, callee) groups those of one call: 100,000 call
// paths make 99,895 calls in a generated report: a hash map of them took 30 ms of CPU, this 12.
void graph_calls(const Model& model, CallGraphShape& shape) {
  std::vector<std::pair<uint64_t, uint32_t>> by_call;  // caller << 32 | callee, call path
  for (Index c = 0; c < model.cnodes.size(); ++c)
    if (const Index parent = model.cnodes[c].parent; parent != kNoIndex)
      by_call.emplace_back(uint64_t{shape.region_of[parent]} << 32 | shape.region_of[c], c);
  std::sort(by_call.begin(), by_call.end());
  std::vector<uint32_t> group_of(model.cnodes.size(), kNone), group_size;
  std::vector<bool> opens_group(model.cnodes.size());
  for (size_t i = 0; i < by_call.size(); ++i) {
    if (i == 0 || by_call[i].first != by_call[i - 1].first) {
      opens_group[by_call[i].second] = true;  // the call's first call path
      group_size.push_back(0);
    }
    group_of[by_call[i].second] = static_cast<uint32_t>(group_size.size() - 1);
    ++group_size.back();
  }
  std::vector<uint32_t> call_of_group(group_size.size());
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    if (opens_group[c]) {
      call_of_group[group_of[c]] = static_cast<uint32_t>(shape.calls.size());
      shape.calls.push_back({shape.region_of[model.cnodes[c].parent], shape.region_of[c], 0,
                             group_size[group_of[c]]});
    }
    if (group_of[c] != kNone) shape.call_of[c] = call_of_group[group_of[c]];
  }
}

}  // namespace

CallGraphShape call_graph_shape(const Model& model) {
  CallGraphShape shape;
  shape.region_of = graph_regions(model, shape.names);
  shape.call_of.resize(model.cnodes.size(), CallGraphShape::kNoCall);
  shape.outermost.resize(model.cnodes.size());
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const Index parent = model.cnodes[c].parent;
    shape.outermost[c] = parent == kNoIndex || shape.region_of[parent] != shape.region_of[c];
  }
  graph_calls(model, shape);
  return shape;
}

CallGraph call_graph(const CallGraphShape& shape, std::span<const double> inclusive,
                     std::span<const double> exclusive) {
  const size_t n = shape.region_of.size();
  if (inclusive.size() != n || exclusive.size() != n)
    throw Error("call graph: " + std::to_string(n) + " call paths but " +
                std::to_string(inclusive.size()) + " inclusive and " +
                std::to_string(exclusive.size()) + " exclusive values");
  CallGraph graph;
  graph.regions.resize(shape.names.size());
  for (size_t r = 0; r < shape.names.size(); ++r) graph.regions[r].name = shape.names[r];
  graph.calls = shape.calls;
  for (Index c = 0; c < n; ++c) {
    CallGraph::Region& r = graph.regions[shape.region_of[c]];
    r.exclusive += exclusive[c];
    if (r.heaviest == kNoIndex || inclusive[c] > r.heaviest_value)
      r.heaviest = c, r.heaviest_value = inclusive[c];
    if (shape.outermost[c]) r.inclusive += inclusive[c];
    if (shape.call_of[c] != CallGraphShape::kNoCall)
      graph.calls[shape.call_of[c]].inclusive += inclusive[c];
  }
  return graph;
}

CallGraph call_graph(const Model& model, std::span<const double> inclusive,
                     std::span<const double> exclusive) {
  return call_graph(call_graph_shape(model), inclusive, exclusive);
}

namespace {

// Of the calls among the kept regions (`kept`: a region's index among them, or kNone), those
// drawn, by descending |inclusive|: each callee's largest first, then the largest others.
std::vector<uint32_t> drawn_calls(const CallGraph& graph, const std::vector<uint32_t>& kept,
                                  size_t max_calls) {
  std::vector<uint32_t> among;
  for (uint32_t i = 0; i < graph.calls.size(); ++i) {
    const CallGraph::Call& e = graph.calls[i];
    if (e.caller != e.callee && kept[e.caller] != kNone && kept[e.callee] != kNone)
      among.push_back(i);
  }
  std::stable_sort(among.begin(), among.end(), [&](uint32_t a, uint32_t b) {
    return magnitude(graph.calls[a].inclusive) > magnitude(graph.calls[b].inclusive);
  });
  std::vector<bool> chosen(among.size()), has_caller(graph.regions.size());
  size_t count = 0;
  for (size_t i = 0; i < among.size(); ++i)
    if (!has_caller[graph.calls[among[i]].callee])
      has_caller[graph.calls[among[i]].callee] = true, chosen[i] = true, ++count;
  for (size_t i = 0; i < among.size() && count < max_calls; ++i)
    if (!chosen[i]) chosen[i] = true, ++count;
  std::vector<uint32_t> out;
  for (size_t i = 0; i < among.size(); ++i)
    if (chosen[i]) out.push_back(among[i]);
  return out;
}

}  // namespace

CallGraph heaviest_part(const CallGraph& graph, size_t max_regions, size_t max_calls) {
  const std::vector<uint32_t> regions =
      largest_first(graph.regions.size(), max_regions, [&](uint32_t a, uint32_t b) {
        const double x = magnitude(graph.regions[a].inclusive);
        const double y = magnitude(graph.regions[b].inclusive);
        return x > y || (x == y && a < b);
      });
  std::vector<uint32_t> kept(graph.regions.size(), kNone);
  CallGraph part;
  for (uint32_t r : regions) {
    kept[r] = static_cast<uint32_t>(part.regions.size());
    part.regions.push_back(graph.regions[r]);
  }
  for (uint32_t i : drawn_calls(graph, kept, max_calls)) {
    CallGraph::Call e = graph.calls[i];
    e.caller = kept[e.caller];
    e.callee = kept[e.callee];
    part.calls.push_back(e);
  }
  return part;
}

}  // namespace cubekit
