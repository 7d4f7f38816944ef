// CubeLib's selection language (tools guide §1.5.16), for every front end: which metrics
// (`cube_dump -m`), call paths (`-c`) and locations (`-t`) a question is about. Errors are
// LookupError / CubePLError naming the option text and what was wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/derived.hpp"
#include "cubekit/model.hpp"

namespace cubekit {

// first..last of a list such as "0,3,5-10" (a single id is a range of one).
struct IdRange {
  uint64_t first = 0;
  uint64_t last = 0;
};

// Parses ids and ranges separated by commas ("0,3,5-10"; empty items are skipped, a range whose
// end is below its start is empty). Ranges stay ranges: "0-9223372036854775807" costs nothing.
// Throws LookupError naming `option` for an item that is not digits, or two numbers joined by
// one dash, and for a number above 2^64 − 1.
std::vector<IdRange> parse_id_ranges(std::string_view text, const std::string& option);

// Metrics named by a comma-separated list: unique names, `all` (every non-ghost metric, in
// metric-tree order, then the new ones), or new POSTDERIVED metrics: a CubePL expression
// (named "New Metric<k>"), `name:expression`, or a file holding the expression (named after
// the file). As CubeLib, the list is taken from its end: "a,b" gives b first.
struct MetricSelection {
  std::vector<Index> metrics;      // in print order; the new ones count from model.metrics.size()
  std::vector<AdHocMetric> extra;  // the new metrics, for MetricEngine
};
MetricSelection select_metrics(const Model& model, const std::string& spec);

// Call paths named by `spec`: `all` (id order), `roots`, `leafs`, `level<X`, `level=X`, `level>X`
// (roots are level 0), `name=/regex/` (PCRE2 search in the region name), ids and ranges (in the
// order given; ids the report lacks select nothing), or a file holding a CubePL expression.
struct CallPathSelection {
  std::vector<Index> cnodes;  // in print order
  // The CubePL expression of a file selection (then `cnodes` is empty): add it to the engine
  // as an ad-hoc metric and pass its index to call_paths_where_positive.
  std::string program;
};
CallPathSelection select_call_paths(const Model& model, const std::string& spec);

// The call paths where `metric` is > 0, metric and call tree inclusive, summed over the whole
// system, in ascending id (CubeLib's selection by a CubePL file; its guide says "non-zero",
// its code tests > 0).
std::vector<Index> call_paths_where_positive(MetricEngine& engine, Index metric);

// Locations (indices into Model::locations) in id order, or those of an id list (`-t 0,2-3`,
// in the order given; ids the report lacks select nothing). Empty `spec`: every location.
std::vector<Index> select_locations(const Model& model, const std::string& spec);

}  // namespace cubekit
