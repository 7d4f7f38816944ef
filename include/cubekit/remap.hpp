// Reports built from another report with an edited metric forest (the algebra behind
// cube_derive and cube_remap2). The call tree and the system tree stay those of the input;
// stored metrics take over the rows of the input metric they are mapped to, derived metrics
// either stay derived (their expressions go to the anchor) or are evaluated with MetricEngine
// and stored as ordinary EXCLUSIVE / INCLUSIVE data.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubekit/model.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"

namespace cubekit {

// ---- Building blocks ---------------------------------------------------------------------

// A report with the definitions `model` (the call tree and system tree of `input`, any metric
// forest) whose stored metric m takes its values from metric source[m] of `input` (kNoIndex:
// no data, all identity). When the two differ in dtype or in call-tree storage (exclusive vs
// inclusive), values are converted as CubeLib's set_sevs does: the input metric's call-inclusive
// or call-exclusive values per location, cast to the new dtype. `input` must outlive the result.
Report mapped_report(const Report& input, std::shared_ptr<const Model> model,
                     std::vector<Index> source);

// Writes the values of `evaluated` under the definitions `output`, which has the same metrics in
// the same order (a metric may be derived in one and stored in the other, dtypes may differ).
// A metric stored alike in both is copied row by row with memory for one row; any other stored
// metric of `output` is computed with MetricEngine from `evaluated`: per location,
// metric-inclusive, call-inclusive for INCLUSIVE metrics and call-exclusive otherwise.
// `members` are extra archive members (name, bytes). `origin[m]` is the metric of `evaluated`
// behind metric m of `output` (empty: the same index). Throws cubekit::Error.
void write_evaluated(const Report& evaluated, std::shared_ptr<const Model> output,
                     const std::string& path, const WriteOptions& options = {},
                     const std::vector<std::pair<std::string, std::string>>& members = {},
                     const std::vector<Index>& origin = {});

// What CubeLib 4.6 records in every report it writes: anchor syntax 4.5 and the attributes
// "CUBE Library version", "Cube Version" and "CubePL Version" (replacing older values).
void stamp_cubelib_versions(Model& model);

class MetricEngine;

// `input` with every derived metric (not ghost, not VOID) turned into a stored EXCLUSIVE metric
// whose values `engine` (built on `input`) computes when they are read: per location,
// metric-inclusive, call-exclusive, in DOUBLE or the metric's integer dtype. For exports to
// formats without derived metrics (cube4to3). `input` and `engine` must outlive the result.
Report materialized_report(const Report& input, MetricEngine& engine);

// ---- cube_derive ---------------------------------------------------------------------------

struct NewMetric {
  std::string name;        // unique and display name
  std::string expression;  // CubePL
  // Display name of the parent metric; empty or "root": the new metric is a root.
  std::string parent;
  // kPostDerived, kPrederivedExclusive, kPrederivedInclusive: written as a derived metric.
  // kExclusive, kInclusive: its values are computed (as a prederived metric of the same
  // flavour would give them) and stored.
  MetricKind kind = MetricKind::kInclusive;
};

// Writes `input` with one more DOUBLE metric to `path`. Throws CubePLError when the expression
// does not compile, LookupError for an unknown parent or a name already taken.
void derive_metric(const Report& input, const NewMetric& metric, const std::string& path,
                   const WriteOptions& options = {});

// ---- cube_remap2 ---------------------------------------------------------------------------

// A remapping specification (.spec, tools guide §1.4.3): an optional <doc><mirrors> part and a
// <metrics> forest whose metrics may be derived (<cubepl>, <cubeplinit>, <cubeplaggr>), ghost
// (viztype="GHOST") or VOID (<val>VOID</val>). CubePL texts are kept verbatim.
struct RemapSpec {
  std::vector<std::string> mirrors;
  std::string metrics_title;
  // Pre-order; parent and children are indices into this vector; ids are not set.
  std::vector<Metric> metrics;
};

// Parses a .spec text. Throws FormatError naming `where` (the file), line and column.
RemapSpec parse_remap_spec(std::string_view text, const std::string& where);

struct RemapOptions {
  bool convert_derived = false;   // -d: convertible derived metrics are computed and stored
  bool scalasca_metrics = false;  // -s: Scalasca's idle-threads and load-imbalance heuristics
  // CubeLib's progress lines (standard output) and notes (standard error); may be empty.
  std::function<void(const std::string&)> progress, note;
};

// Writes `input` with the metric forest of `spec` (nullptr: the input's own forest, "copy
// mode") to `path`: spec metrics whose unique name the input has take that metric's values
// (and VOID state); input metrics the spec lacks are appended below their mapped parent.
// Regions are those the call tree uses, renumbered in call-tree order, with CubeLib's default
// URLs. Throws cubekit::Error (CubePLError for expressions that do not compile).
void remap_report(const Report& input, const RemapSpec* spec, const RemapOptions& options,
                  const std::string& path, const WriteOptions& write_options = {});

}  // namespace cubekit
