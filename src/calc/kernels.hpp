// The kernels behind MetricEngine for stored metrics: call-tree and metric-tree arithmetic over a
// report's stored values. Internal: derived metrics throw CubePLError here; callers outside the
// library ask MetricEngine (cubekit/derived.hpp), which answers every metric.
#pragma once

#include "cubekit/calc.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

// The L per-location values of (metric, cnode) with the given call-tree flavour and
// metric-tree flavour.
Values location_values(const Report& report, Index metric, Index cnode, Flavour metric_flavour,
                       Flavour call_flavour);

// One value per cnode (indexed like Model::cnodes), aggregated over all locations. Rows are
// aggregated first, then the tree arithmetic runs on C numbers (C×L + C work, not C×L×depth).
Values aggregated_values(const Report& report, Index metric, Flavour metric_flavour,
                         Flavour call_flavour);

// Flat profile (§8.5): one value per region, the ⊕ over all cnodes calling it, aggregated over
// all locations; `call_flavour` applies to each cnode before summing.
Values region_values(const Report& report, Index metric, Flavour metric_flavour,
                     Flavour call_flavour);

}  // namespace cubekit
