// Values aggregated over all locations from row folds made elsewhere: the sum over a report's
// locations is each stored row folded left to right (⊕), then combined along the trees. When
// the locations are split over the ranks of an MPI job (docs/mpi.md), each rank continues the
// fold over its columns in turn, so the folds are those of one process, bit for bit.
#pragma once

#include <functional>

#include "cubekit/calc.hpp"

namespace cubekit {

// Each stored row of a stored metric folded over all of its locations, left to right: one value
// per cnode (indexed like Model::cnodes; the identity where a cnode has no row).
using RowFolds = std::function<Values(const Report& report, Index metric)>;

// MetricEngine::aggregated_values of a stored metric (with Flavour::kExclusive, of one without
// derived sub-metrics) taking every row fold from `folds`. Error for a HISTOGRAM metric
// (its inclusive values fold whole subtrees per location, not rows).
Values aggregated_values(const Report& report, Index metric, Flavour metric_flavour,
                         Flavour call_flavour, const RowFolds& folds);

}  // namespace cubekit
