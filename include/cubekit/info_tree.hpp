// The call tree as `cube_info` shows it (tools guide §1.5): columns of metric values
// aggregated over all locations, one process or one thread, call paths abridged by threshold
// rules, and children left out summarised in one "Aggregated" line per parent. Also the
// report's basic figures (`cube_info -b`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

// One value column. A metric column answers the metric's (metric-inclusive) value of a call
// path, inclusive or exclusive, summed over the chosen locations; a visitors column counts the
// locations whose exclusive visits are above zero.
struct InfoColumn {
  enum class Kind : uint8_t { kMetric, kVisitors };
  Kind kind = Kind::kMetric;
  Index metric = kNoIndex;
  Flavour call_flavour = Flavour::kInclusive;
  std::vector<Index> locations;  // model positions; empty: every location
  std::string header;            // e.g. "Time (E,0)": display name and what was chosen
  bool fractional = false;       // dtype FLOAT: printed with 4 significant decimals
};

// "unique_name[:incl|excl[:rank[.thread]]]" (the name may contain ':'; the mode is case
// insensitive, also "inclusive" / "exclusive"; rank "*" means every process; the thread is
// the position in its process). Error naming what is wrong when the metric, the mode or the
// process does not exist.
InfoColumn info_metric_column(const Model& model, const std::string& descriptor);
// The number of locations that visited each call path (needs a metric "visits").
InfoColumn info_visitors_column(const Model& model);
// A value as the column prints it, 15 wide: FLOAT metrics with 4 decimals (fewer above 1000),
// everything else as a whole number; "N/A" for NaN.
std::string info_value_text(const InfoColumn& column, double value);

enum class InfoAbridge : uint8_t {
  kAbsolute,      // leave out call paths whose value is at most the threshold
  kRootRelative,  // ... at most threshold × the value of their root
  kCumulative,    // keep the children that add up to (1 − threshold) of the parent's share
};

struct InfoAbridgeRule {
  InfoColumn column;
  double threshold = 0;
  InfoAbridge kind = InfoAbridge::kAbsolute;
};

// A column's value at one call path (NaN never: a metric column sums its locations).
double info_column_value(MetricEngine& engine, const InfoColumn& column, Index cnode);

// The part of a call tree that abridging leaves: roots and, per call path (indexed like
// Model::cnodes), its children still there.
struct CallForest {
  std::vector<Index> roots;
  std::vector<std::vector<Index>> children;
  // Siblings (and roots) in the order of their cnode ids: CubeLib's cube_info and cube_test
  // rebuild the call tree from its cnodes sorted by id, not in document order.
  static CallForest whole(const Model& model);
  // The call paths still there, children before their parent, siblings in order.
  std::vector<Index> post_order() const;
};

// One number per compared report for a call path (one report for cube_info, several for
// cube_test).
using CallPathValues = std::function<std::vector<double>(Index cnode)>;

// Applies one abridging rule, as CubeLib 4.6 does it for several reports: a call path stays
// when its value in some report is above the threshold (times the mean of its root's values
// for kRootRelative); kCumulative ranks children by the sum over reports of their parent's
// value (the original's slip, reproduced: it keeps the first children).
void abridge(CallForest& forest, const CallPathValues& values, double threshold, InfoAbridge kind);

// One printed column: its header, how its numbers print, and its value at a call path;
// `inclusive` asks for the call-inclusive value a left-out child adds to its parent's
// "Aggregated" line.
struct InfoPrintedColumn {
  std::string header;
  InfoColumn format;
  std::function<double(Index cnode, bool inclusive)> value;
};

// The listing of `forest` (a part of `tree`'s call paths) with any columns: several reports
// side by side use it with one column per report (call_path_checks.hpp).
std::string info_tree_text(const Model& tree, const CallForest& forest,
                           const std::vector<InfoPrintedColumn>& columns);

// The whole listing: header line, then one line per shown call path (depth first) and one
// "***** Aggregated ..." line under every parent some of whose children were left out.
std::string info_tree_text(MetricEngine& engine, const std::vector<InfoColumn>& columns,
                           const std::vector<InfoAbridgeRule>& rules);

struct InfoBasics {
  size_t nodes = 0;                   // system tree nodes of class "node"
  size_t children_of_first_node = 0;  // system tree nodes below the first of them
  size_t processes = 0;               // location groups
  std::optional<double> wallclock;    // Σ over call paths of the largest exclusive time of a
                                      // location; none without a metric "time"
};
InfoBasics info_basics(MetricEngine& engine);
// The figures of several reports' merge, as CubeLib's cube_info shows for them (it merges them
// as cube_merge does): nodes and processes of the unified system tree, the wall-clock time of
// the last report that has "time" (the merge takes a metric's values from the last input that
// has it). Throws Error when the system trees do not fit one another (no merge exists).
InfoBasics info_basics(const std::vector<const Report*>& reports);

}  // namespace cubekit
