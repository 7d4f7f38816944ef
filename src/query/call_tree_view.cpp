#include "cubekit/call_tree_view.hpp"

#include <utility>

namespace cubekit {
namespace {

struct Pending {
  Index cnode;
  unsigned depth;
  size_t parent_line;  // index into the lines, or npos for a root
};
constexpr size_t kNoLine = CallTreeLine::kRoot;

}  // namespace

std::vector<CallPathKind> call_path_kinds(const Model& model) {
  std::vector<CallPathKind> kinds(model.cnodes.size(), CallPathKind::kUser);
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const std::string& descr = model.regions[model.cnodes[c].region].descr;
    if (descr != "MPI" && descr != "OMP") continue;
    // A call path that has MPI or OpenMP below it is COM, whatever its own region is.
    if (kinds[c] != CallPathKind::kCommunication)
      kinds[c] = descr == "MPI" ? CallPathKind::kMpi : CallPathKind::kOmp;
    // Once a call path is COM, so is everything above it: stop there.
    for (Index p = model.cnodes[c].parent;
         p != kNoIndex && kinds[p] != CallPathKind::kCommunication; p = model.cnodes[p].parent)
      kinds[p] = CallPathKind::kCommunication;
  }
  return kinds;
}

const char* call_path_kind_name(CallPathKind kind) {
  switch (kind) {
    case CallPathKind::kMpi:
      return "MPI";
    case CallPathKind::kOmp:
      return "OMP";
    case CallPathKind::kCommunication:
      return "COM";
    case CallPathKind::kUser:
      break;
  }
  return "USR";
}

std::string call_tree_path(const Model& model, const std::vector<CallTreeLine>& lines,
                           size_t line) {
  std::vector<size_t> callers;  // the line, its caller, …, the root
  for (size_t at = line; at != CallTreeLine::kRoot; at = lines[at].caller_line)
    callers.push_back(at);
  std::string path;
  for (auto it = callers.rbegin(); it != callers.rend(); ++it)
    path += "/" + model.regions[model.cnodes[lines[*it].cnode].region].name;
  return path;
}

std::vector<CallTreeLine> call_tree_view(MetricEngine& engine, const CallTreeViewOptions& options) {
  const Model& model = engine.report().model();
  std::optional<Values> shown, inclusive;
  double total = 0;
  if (options.metric) {
    inclusive.emplace(
        engine.aggregated_values(*options.metric, Flavour::kInclusive, Flavour::kInclusive));
    if (options.call_flavour == Flavour::kExclusive)
      shown.emplace(
          engine.aggregated_values(*options.metric, Flavour::kInclusive, Flavour::kExclusive));
    for (Index root : model.cnode_roots()) total += inclusive->scalar(root);
  }
  const Values* values = shown ? &*shown : inclusive ? &*inclusive : nullptr;

  // Depth first with an explicit stack (call trees of broken or generated reports can be deep).
  // A call path below the threshold is left out with its subtree: the original hides it, and
  // hiding a call path hides everything under it.
  std::vector<CallTreeLine> lines;
  std::vector<Pending> stack;
  const std::vector<Index> roots = model.cnode_roots();
  for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.push_back({*r, 0, kNoLine});
  while (!stack.empty()) {
    const Pending p = stack.back();
    stack.pop_back();
    if (options.threshold && inclusive &&
        !(inclusive->scalar(p.cnode) / total >= *options.threshold))
      continue;
    CallTreeLine line;
    line.cnode = p.cnode;
    line.depth = p.depth;
    line.caller_line = p.parent_line;
    if (values) {
      line.value = values->scalar(p.cnode);
      line.share = line.value / total;
    }
    lines.push_back(std::move(line));
    const std::vector<Index>& children = model.cnodes[p.cnode].children;
    for (auto c = children.rbegin(); c != children.rend(); ++c)
      stack.push_back({*c, p.depth + 1, lines.size() - 1});
  }
  return lines;
}

}  // namespace cubekit
