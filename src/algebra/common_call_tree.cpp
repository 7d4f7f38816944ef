// cube_commoncalltree (report_algebra.hpp: common_call_paths, write_call_tree_subset): the call
// tree several reports share, found by matching sorted siblings level by level, and each report
// written with only those call paths, the others' values folded into their callers.
#include <algorithm>
#include <tuple>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

// CubeLib's identity of a call path for this tool: its region's name, module and lines.
using CallPathKey = std::tuple<const std::string&, const std::string&, int64_t, int64_t>;

CallPathKey key_of(const Model& model, Index cnode) {
  const Region& r = model.regions[model.cnodes[cnode].region];
  return {r.name, r.mod, r.begin, r.end};
}

// Siblings sorted by identity; equal identities keep their order.
std::vector<Index> sorted_siblings(const Model& model, std::vector<Index> siblings) {
  std::stable_sort(siblings.begin(), siblings.end(),
                   [&](Index a, Index b) { return key_of(model, a) < key_of(model, b); });
  return siblings;
}

}  // namespace

std::vector<std::vector<bool>> common_call_paths(const std::vector<const Model*>& models) {
  std::vector<std::vector<bool>> kept;
  for (const Model* m : models) kept.emplace_back(m->cnodes.size(), false);
  if (models.empty()) return kept;
  const size_t n = models.size();
  // Each work item: one list of siblings per model, all below call paths shared so far. The
  // lists are intersected like sorted multisets; what all of them hold is shared.
  std::vector<std::vector<std::vector<Index>>> work;
  std::vector<std::vector<Index>> roots;
  for (const Model* m : models) roots.push_back(sorted_siblings(*m, m->cnode_roots()));
  work.push_back(std::move(roots));
  while (!work.empty()) {
    std::vector<std::vector<Index>> lists = std::move(work.back());
    work.pop_back();
    std::vector<size_t> at(n, 0);
    auto current = [&](size_t i) { return key_of(*models[i], lists[i][at[i]]); };
    for (;;) {
      bool exhausted = false;
      for (size_t i = 0; i < n; ++i) exhausted = exhausted || at[i] >= lists[i].size();
      if (exhausted) break;
      size_t largest = 0;
      for (size_t i = 1; i < n; ++i)
        if (current(largest) < current(i)) largest = i;
      bool all_equal = true;
      for (size_t i = 0; i < n; ++i)
        if (current(i) < current(largest)) {
          ++at[i];  // below the largest identity: no partner in the list that holds it
          all_equal = false;
        }
      if (!all_equal) continue;
      std::vector<std::vector<Index>> children;
      for (size_t i = 0; i < n; ++i) {
        const Index c = lists[i][at[i]++];
        kept[i][c] = true;
        children.push_back(sorted_siblings(*models[i], models[i]->cnodes[c].children));
      }
      work.push_back(std::move(children));
    }
  }
  return kept;
}

void write_call_tree_subset(const Report& input, const std::vector<bool>& kept,
                            const std::string& path, const WriteOptions& write_options) {
  const Model& in = input.model();
  // A report without call paths is no report: CubeLib cannot read one ("expecting <cnode").
  if (std::find(kept.begin(), kept.end(), true) == kept.end())
    throw Error(input.path() + ": no call path is left to write (the reports share none)");
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(1);
  defs.add_mirrors(in);
  defs.add_metrics(in, maps[0]);
  if (!defs.add_system_tree(in, maps[0], SystemUnification::kStrict))
    throw Error(input.path() + ": the system tree cannot be copied");
  defs.add_call_tree_subset(in, maps[0], kept);
  defs.add_topologies(in, maps[0]);
  write_combination({&input}, maps, defs.finish(), Combination::kFold, path, write_options);
}

}  // namespace cubekit
