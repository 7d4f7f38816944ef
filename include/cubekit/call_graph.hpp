// The call graph (CubeGUI's Callgraph plugin, the viewer's call graph tab): regions as nodes,
// calls between regions as edges, with one metric's values summed from its call paths. Regions
// are told apart by name (a report may define one function as several regions). A report of
// 100,000 call paths has thousands of regions and calls; heaviest_part keeps the few that a
// drawing can show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit {

struct CallGraph {
  struct Region {
    std::string name;
    double exclusive = 0;  // the sum over its call paths
    // The sum over its call paths whose caller is another region (a region calling itself
    // counts once).
    double inclusive = 0;
    Index heaviest = kNoIndex;  // its call path of largest inclusive value (the first of equals)
    double heaviest_value = 0;
  };
  struct Call {
    uint32_t caller = 0, callee = 0;  // indices into regions
    double inclusive = 0;             // the sum over the callee's call paths under the caller's
    uint32_t call_paths = 0;          // how many call paths make this call
  };
  std::vector<Region> regions;  // in the order of their first call path (Model's order)
  std::vector<Call> calls;      // in the order of their first call path
};

// What a report's call graph is apart from the values (which regions, which calls, which call
// path adds to which): the same for every metric, so that a server computes it once per report
// and each metric's graph is then a few sums over the call paths.
struct CallGraphShape {
  std::vector<std::string> names;   // per region of the graph, in the order of its first call path
  std::vector<uint32_t> region_of;  // per call path (indexed like Model::cnodes)
  std::vector<uint32_t> call_of;    // per call path: its index in `calls`, or kNoCall (a root)
  // Per call path: whether its caller is another region (or none), i.e. whether it adds to its
  // region's inclusive value.
  std::vector<bool> outermost;
  std::vector<CallGraph::Call> calls;  // without values: caller, callee, call_paths
  static constexpr uint32_t kNoCall = UINT32_MAX;
};

CallGraphShape call_graph_shape(const Model& model);

// The graph of one metric from its values per call path (indexed like Model::cnodes, summed
// over the locations), inclusive and exclusive. Error when a span's size is not the number of
// call paths.
CallGraph call_graph(const CallGraphShape& shape, std::span<const double> inclusive,
                     std::span<const double> exclusive);
// The same, the shape computed on the way.
CallGraph call_graph(const Model& model, std::span<const double> inclusive,
                     std::span<const double> exclusive);

// What a drawing of `graph` shows: the `max_regions` regions of largest |inclusive| (largest
// first; of equals, the earlier), and of the calls among them, a region calling itself left
// out, each region's largest incoming call first (no drawn region left without a caller that
// has one) and then the largest others, up to `max_calls` in all unless the first already
// exceed it; calls by descending |inclusive|, indices into the kept regions.
CallGraph heaviest_part(const CallGraph& graph, size_t max_regions, size_t max_calls);

}  // namespace cubekit
