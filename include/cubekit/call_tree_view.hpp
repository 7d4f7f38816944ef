// The call tree as `cube_calltree` shows it (tools guide §1.5): every call path in depth-first
// order with its depth, its caller (whence its path of region names) and, for one metric, its
// value summed over all locations and its share of the metric's total. A threshold hides call
// paths whose inclusive share is below it, together with everything under them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

struct CallTreeViewOptions {
  std::optional<Index> metric;  // none: the tree without values
  Flavour call_flavour = Flavour::kExclusive;
  // A fraction of the metric's total (0.05 = 5 %): call paths whose inclusive value is a
  // smaller share are left out, with their subtrees. Needs `metric`.
  std::optional<double> threshold;
};

struct CallTreeLine {
  static constexpr size_t kRoot = static_cast<size_t>(-1);
  Index cnode = kNoIndex;
  unsigned depth = 0;          // roots: 0
  size_t caller_line = kRoot;  // the line of its caller in the view
  double value = 0;            // with a metric: its value (metric inclusive, `call_flavour`)
  double share = 0;            // value / total of the metric (inclusive, all roots)
};

// Line `line`'s path of region names from the root, "/main/foo/bar". Made when asked: held for
// every line, the paths of a recursion n calls deep took n²/2 names.
std::string call_tree_path(const Model& model, const std::vector<CallTreeLine>& lines, size_t line);

// What kind of work a call path is, as `cube_calltree -a -c` annotates it: MPI or OMP when its
// region's description is exactly "MPI" / "OMP"; COM (communication below) for every call
// path above one of those; USR otherwise. Indexed like Model::cnodes.
enum class CallPathKind : uint8_t { kUser, kMpi, kOmp, kCommunication };
std::vector<CallPathKind> call_path_kinds(const Model& model);
const char* call_path_kind_name(CallPathKind kind);  // "USR", "MPI", "OMP", "COM"

// The shown call paths, roots and children in model order (depth first).
std::vector<CallTreeLine> call_tree_view(MetricEngine& engine, const CallTreeViewOptions& options);

}  // namespace cubekit
