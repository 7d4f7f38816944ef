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
#include <set>
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

// The types of the metrics a unification defines. CubeLib's algebra tools define each metric
// anew under its type's canonical name (FLOAT is written DOUBLE); the tools that copy a report
// (exclusify, inclusify, canonize) keep the name as written.
enum class MetricTypes {
  kCanonical,  // the type as read, under its canonical name
  kSigned,     // unsigned integer types become the signed type of the same width (cube_diff)
  kAsWritten,  // the type and its name as the input wrote them
};

// CubeLib's identity of regions when it copies or unifies call trees: name, module and lines
// (two regions of one report can be alike, e.g. repeated names of a Cube 3 report).
bool same_region(const Region& a, const Region& b);

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
  // Metrics by unique name; a new metric copies its definition, its type as `types` says.
  void add_metrics(const Model& input, InputMapping& map,
                   MetricTypes types = MetricTypes::kCanonical);
  // Call paths as CubeLib's cnode_merge unifies them: an input root alike a root already
  // there (callee region, call site, parameters) is merged into it level by level, each callee
  // onto every alike callee there (the last one keeps its mapping); any other root is copied
  // whole, alike siblings kept apart. Regions by same_region.
  void add_call_tree(const Model& input, InputMapping& map);
  // cube_cut: copies of the call trees rooted at every call path of region `root` (empty: the
  // input's roots), with the call paths of regions in `prunes`, and all below them, inlined into
  // their caller (mapped onto it). Returns false when no call path of `root` exists.
  bool add_cut_call_tree(const Model& input, InputMapping& map, const std::string& root,
                         const std::vector<std::string>& prunes);
  // cube_commoncalltree: every region of `input` (in order, used or not), then the call paths
  // c with kept[c], in order; a left-out call path maps onto its closest kept caller (nowhere
  // when it has none), so that its values join that caller's exclusive value.
  void add_call_tree_subset(const Model& input, InputMapping& map, const std::vector<bool>& kept);
  // Returns false when the system trees cannot be unified under `mode` (kStrict only).
  bool add_system_tree(const Model& input, InputMapping& map, SystemUnification mode);
  // Topologies of `input` whose coordinates name mapped locations are kept.
  void add_topologies(const Model& input, const InputMapping& map);
  void add_mirrors(const Model& input);
  void add_mirror(const std::string& url);
  void set_attribute(const std::string& key, const std::string& value);
  // Finalizes and hands out the definitions (CubeLib's version attributes stamped).
  std::shared_ptr<const Model> finish();
  const Model& model() const { return *model_; }

 private:
  std::shared_ptr<Model> model_;
  uint32_t next_metric_id_ = 0;      // ids of left-out metrics stay used, as in CubeLib
  std::set<std::string> void_seen_;  // VOID metrics left out so far (by unique name)
};

enum class Combination {
  kMerge,  // a metric's values come from the last input that has it
  kMean,   // Σ (value × 1/n), each term cast to the metric's type (integers truncate)
  kDiff,   // first input ⊕ (−second input), per the type's algebra (min/max for MIN/MAXDOUBLE)
  kSum,    // ⊕ of the call-exclusive values mapped onto each call path (cube_cut's inlining)
  // One input whose left-out call paths map onto their closest kept caller: a metric stored
  // inclusive takes the kept call paths' inclusive values as they are (no rounding), one
  // stored exclusive the ⊕ of the exclusive values mapped there (cube_commoncalltree).
  kFold,
};

// Writes the combination of `inputs` (already unified into `definitions` with `maps`) to
// `path`. Derived metrics stay derived (no data). Throws cubekit::Error.
void write_combination(const std::vector<const Report*>& inputs,
                       const std::vector<InputMapping>& maps,
                       std::shared_ptr<const Model> definitions, Combination how,
                       const std::string& path, const WriteOptions& options = {});

// ---- cube_exclusify / cube_inclusify -------------------------------------------------------

struct CallFlavourOptions {
  // MetricKind::kExclusive (cube_exclusify) or kInclusive (cube_inclusify).
  MetricKind stored_as = MetricKind::kExclusive;
  SystemUnification system = SystemUnification::kStrict;  // -c: kReduce, -C: kCollapse
  // Told about metrics kept EXCLUSIVE because their type has no inclusive storage.
  std::function<void(const std::string&)> note;
};

// Writes `input` with every metric stored as `options.stored_as`: call-exclusive values for
// EXCLUSIVE, call-inclusive ones for INCLUSIVE, per location and metric-inclusive; derived
// metrics are evaluated and stored like the others (their expressions are dropped), as CubeLib
// 4.6 does. MIN/MAXDOUBLE metrics cannot be stored inclusive (an inclusive value minus its
// children's is no exclusive value for min/max): CubeLib crashes on them, here they stay
// EXCLUSIVE and `note` says so. Throws cubekit::Error.
void write_call_flavoured(const Report& input, const CallFlavourOptions& options,
                          const std::string& path, const WriteOptions& write_options = {});

// ---- cube_cut / cube_clean ---------------------------------------------------------------

// Where the tools print CubeLib's progress lines ("INFO::Merging metric dimension..." before the
// step, " done.\n" after it); may be empty.
using Progress = std::function<void(const std::string&)>;

struct CutOptions {
  std::string root;                 // -r: region whose call paths become the roots; empty: none
  std::vector<std::string> prunes;  // -p: regions inlined into their callers
  SystemUnification system = SystemUnification::kStrict;
  Progress progress;
  // Told about each pruned region that no call path calls (CubeLib's warning, not an error).
  std::function<void(const std::string&)> warning;
};

// Writes the cut of `input` (tools guide: cube_cut): re-rooted at `root`, pruned regions'
// values added into their callers' exclusive values; derived metrics stay derived. Throws
// LookupError with CubeLib's message when `root` names no region of a call path, before anything
// is written.
void write_cut(const Report& input, const CutOptions& options, const std::string& path,
               const WriteOptions& write_options = {});

// Writes `input` unified with nothing (cube_clean): regions, call paths and system entities no
// call path or location uses are gone, ids renumbered, CubeLib's attributes.
void write_clean(const Report& input, SystemUnification system, const Progress& progress,
                 const std::string& path, const WriteOptions& write_options = {});

// ---- cube_part ----------------------------------------------------------------------------

// The ranks named by a CubeLib rank list ("0-3,7,13-": ranges, "-b" from 0, "a-" to the last)
// among `count`; a range that ends before it starts is skipped and `warning` told.
std::vector<bool> select_ranks(const std::string& ranks, size_t count,
                               const std::function<void(const std::string&)>& warning = {});

// Writes `input` with the process groups g where !kept_groups[g] renamed "<name> <VOID>" and
// the values of their locations zeroed for every stored metric but visits (an `imbalance`
// metric becomes VOID, `warning` told). Returns how many groups were voided; writes nothing
// when that is none or all of them. Throws cubekit::Error.
size_t write_part(const Report& input, const std::vector<bool>& kept_groups,
                  const std::function<void(const std::string&)>& warning, const std::string& path,
                  const WriteOptions& write_options = {});

// ---- cube_canonize ------------------------------------------------------------------------

struct CanonizeOptions {
  bool pdt = false;                  // -p: PDT names, the last word before "(" first
  size_t max_length = 0;             // -m: names cut to this length (0: not cut)
  bool lower_case = false;           // -c
  bool remove_file_names = false;    // -f: regions' modules emptied
  bool remove_line_numbers = false;  // -l: regions' lines set to 0
};

// Writes `input` with canonical region names: from the first letter or digit on (CubeLib's
// reading, see same_shape.cpp), then cut and lower-cased as asked. Throws cubekit::Error.
void write_canonized(const Report& input, const CanonizeOptions& options, const std::string& path,
                     const WriteOptions& write_options = {});

// ---- cube_commoncalltree -----------------------------------------------------------------

// For each of `models`, which of its call paths lie in the call tree all of them share: roots,
// and then children of shared call paths, matched by their region's name, module and lines
// (CubeLib's identity for this tool; call sites are not compared). Siblings with the same
// identity are matched in their order. An empty list gives an empty result.
std::vector<std::vector<bool>> common_call_paths(const std::vector<const Model*>& models);

// Writes `input` with only the call paths c where kept[c] (see common_call_paths): the other
// call paths' values are added to the exclusive value of their closest kept caller, so that
// every kept call path keeps its inclusive value (CubeLib 4.6 drops them instead; see
// docs/algebra_tools.md). Definitions as CubeLib's cube_commoncalltree writes them: metrics,
// regions and the system tree copied, its version attributes. Throws cubekit::Error, also
// when no call path is kept (nothing is written then).
void write_call_tree_subset(const Report& input, const std::vector<bool>& kept,
                            const std::string& path, const WriteOptions& write_options = {});

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
