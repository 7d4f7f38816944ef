// Report algebra (tools guide §1.2): reports combined value by value after their definitions
// are unified, as CubeLib 4.6's cube_diff, cube_merge, cube_mean and cube_cmp do.
//
// "Unify the trees, map, apply": the metric forests are merged by unique name, the call
// forests by call-path identity (region name, module, lines; call-site line and module;
// parameters; the same along the whole path), the system forests by names, classes and ranks.
// Every input gets a mapping into the unified definitions; then each stored metric of the result
// is computed in turn (memory for one metric of the result) and streamed into the writer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/model.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"

namespace cubekit {

// How system trees that do not fit into each other are unified.
enum class SystemUnification {
  kStrict,    // one tree must be a subset of the other (same names, classes, ranks): else Error
  kReduce,    // only machines and nodes are kept, process groups hang below their node (-c)
  kCollapse,  // one "Virtual machine" / "Virtual node" holding every process group (-C)
};

// Where the entities of one input went in the unified definitions (kNoIndex: nowhere).
struct InputMapping {
  std::vector<Index> metric;    // input metric → unified metric
  std::vector<Index> cnode;     // input cnode → unified cnode
  std::vector<Index> location;  // input location (index) → unified location (index)
};

// Definitions being unified: start empty, add inputs one dimension at a time (CubeLib's
// progress lines come between the steps).
class UnifiedDefinitions {
 public:
  UnifiedDefinitions();
  // Metrics by unique name; a new metric copies its definition. `signed_integers`: unsigned
  // integer types become the signed type of the same width (cube_diff).
  void add_metrics(const Model& input, InputMapping& map, bool signed_integers = false);
  // Call paths by identity; regions by name, module and lines.
  void add_call_tree(const Model& input, InputMapping& map);
  // Returns false when the system trees cannot be unified under `mode` (kStrict only).
  bool add_system_tree(const Model& input, InputMapping& map, SystemUnification mode);
  // Topologies of `input` whose coordinates name mapped locations are kept.
  void add_topologies(const Model& input, const InputMapping& map);
  void add_mirrors(const Model& input);
  // Finalizes and hands out the definitions (CubeLib's version attributes stamped).
  std::shared_ptr<const Model> finish();
  const Model& model() const { return *model_; }

 private:
  std::shared_ptr<Model> model_;
  uint32_t next_metric_id_ = 0;  // ids of left-out metrics stay used, as in CubeLib
};

enum class Combination {
  kMerge,  // a metric's values come from the last input that has it
  kMean,   // Σ (value × 1/n), each term cast to the metric's type (integers truncate)
  kDiff,   // first input ⊕ (−second input), per the type's algebra (min/max for MIN/MAXDOUBLE)
};

// Writes the combination of `inputs` (already unified into `definitions` with `maps`) to
// `path`. Derived metrics stay derived (no data). Throws cubekit::Error.
void write_combination(const std::vector<const Report*>& inputs,
                       const std::vector<InputMapping>& maps,
                       std::shared_ptr<const Model> definitions, Combination how,
                       const std::string& path, const WriteOptions& options = {});

// ---- cube_cmp ---------------------------------------------------------------------------

struct Comparison {
  bool equal = false;
  // CubeLib's progress and verdict lines up to and including the first difference.
  std::string transcript;
};

// Compares definitions (metric, call and system trees by ids and shape) and then the values
// of every metric (relative tolerance of 2 ulp); stops at the first difference.
Comparison compare_reports(const Report& lhs, const Report& rhs);

}  // namespace cubekit
