// The kernels behind MetricEngine for stored metrics: call-tree and metric-tree arithmetic over a
// report's stored values. Internal: derived metrics throw CubePLError here; callers outside the
// library ask MetricEngine (cubekit/derived.hpp), which answers every metric.
#pragma once

#include <span>

#include "cubekit/calc.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

// The L per-location values of (metric, cnode) with the given call-tree flavour and
// metric-tree flavour.
Values location_values(const Report& report, Index metric, Index cnode, Flavour metric_flavour,
                       Flavour call_flavour);

// location_values(report, metric, cnode, Flavour::kInclusive, call_flavour) as doubles (the
// scalars() of it) written straight into `out` (one per location), with the same operations in
// the same order, when that needs no Values in between: the metric's rows are decoded, its
// values are single numbers, and the answer is a call path's own row, or a DOUBLE row minus its
// children's. False (out untouched) otherwise: ask location_values. CubePL's operands (issue
// 30): a row of time(e) read through a Values cost a zeroed row, a copy and an allocation.
bool location_scalars(const Report& report, Index metric, Index cnode, Flavour call_flavour,
                      std::span<double> out);

// location_values(report, metric, c, Flavour::kInclusive, Flavour::kInclusive) of a stored
// metric for every call path c in index order: visit(c, row), from one pass over the stored
// rows (asked a call path at a time, each a sum over its subtree: quadratic in a chain's
// depth, with no bound switching to grouped subtotals). Of exclusive storage each
// row is the identity ⊕ c's own ⊕ its subtree's rows in pre-order; for trees deeper than
// running sums allow (inclusive_sums_run) the children's subtotals are grouped instead: the
// same sums, up to rounding. The row is valid during the call only.
void visit_inclusive_rows(const Report& report, Index metric, const RowVisitor& visit);

// Whether a call tree's inclusive sums can be CubeLib's running sums, each call path's value
// one sum over its subtree in pre-order: they cost call paths × depth, bounded at 256 per call
// path on average (else unrolled recursion would take hours), beyond which subtotals are grouped.
bool inclusive_sums_run(const Model& model);

// One value per cnode (indexed like Model::cnodes), aggregated over all locations. Rows are
// aggregated first, then the tree arithmetic runs on C numbers (C×L + C work, not C×L×depth).
Values aggregated_values(const Report& report, Index metric, Flavour metric_flavour,
                         Flavour call_flavour);

// Metric-tree exclusive arithmetic: `values` (of metric `parent`) minus `child_values` (of
// its sub-metric `child`). A sub-metric of another type is converted to the parent's type
// first when both are plain numbers (integers, DOUBLE), as CubeLib's values do; any other
// pair (MIN/MAXDOUBLE, TAU_ATOMIC, histograms, ...) has no meaningful difference and throws
// FormatError naming the report, both metrics and both types.
void subtract_sub_metric(const Report& report, Index parent, Index child, Values& values,
                         const Values& child_values);

// Flat profile (§8.5): one value per region, the ⊕ over all cnodes calling it, aggregated over
// all locations; `call_flavour` applies to each cnode before summing.
Values region_values(const Report& report, Index metric, Flavour metric_flavour,
                     Flavour call_flavour);

}  // namespace cubekit
