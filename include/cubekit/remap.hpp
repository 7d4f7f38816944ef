// Reports built from another report with an edited metric forest (the algebra behind
// cube_derive and cube_remap2). The call tree and the system tree stay those of the input;
// stored metrics take over the rows of the input metric they are mapped to, derived metrics
// either stay derived (their expressions go to the anchor) or are evaluated with MetricEngine
// and stored as ordinary EXCLUSIVE / INCLUSIVE data.
#pragma once

#include <memory>
#include <string>
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
// `members` are extra archive members (name, bytes). Throws cubekit::Error.
void write_evaluated(const Report& evaluated, std::shared_ptr<const Model> output,
                     const std::string& path, const WriteOptions& options = {},
                     const std::vector<std::pair<std::string, std::string>>& members = {});

// What CubeLib 4.6 records in every report it writes: anchor syntax 4.5 and the attributes
// "CUBE Library version", "Cube Version" and "CubePL Version" (replacing older values).
void stamp_cubelib_versions(Model& model);

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

}  // namespace cubekit
