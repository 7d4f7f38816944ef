// Values of every metric of a report, derived ones included (cubepl.md §9, cube-format.md §8.7):
// the CubePL layer's answer to the questions of calc.hpp. Stored metrics are delegated to calc;
// derived metrics are compiled once when the engine is built and evaluated on demand.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

// A metric defined after loading (cube_dump -m "<expr>"): POSTDERIVED, DOUBLE, no parent.
struct AdHocMetric {
  std::string uniq_name;
  std::string expression;
};

// CUBEKIT_CUBEPL_ENV=1 in the environment: the user lets expressions stored in reports read
// the environment with env() (docs/cubepl.md, "env()").
bool cubepl_env_switch();

struct MetricEngineOptions {
  // env("NAME") in the report's own expressions (derived metrics, ghost definitions) reads the
  // environment; otherwise it gives "". Expressions the user supplied (AdHocMetric, metrics
  // marked Metric::user_expressions) always read it.
  bool report_env = cubepl_env_switch();
};

// One per report. Construction compiles every derived metric's expressions (init expressions
// first, then main expressions, then operators, sharing one variable table, §7.3), runs the
// init expressions once, and rejects reference cycles (CubePLError naming the metrics). A
// compile error in a report's expression is a CubePLError naming the metric.
//
// Derived values are computed as doubles and answered as DOUBLE, or in the metric's dtype when
// that is an integer type (truncated toward zero, as CubeLib stores them). Metric-tree
// exclusive values subtract every sub-metric's value, derived ones included, as CubeLib does;
// stored metrics without derived sub-metrics are answered by calc directly. Ghost metrics
// defined in CubePL (cube::metric::postderived::N …) are appended after the extra metrics;
// init/plus/minus attachments replace a derived metric's slot (docs/cubepl.md).
//
// Thread safety: every member may be called from several threads at once. Queries of stored
// metrics go straight to calc and run concurrently; evaluating derived metrics fills the
// engine's caches and shares CubePL's global variables, so those queries take an internal
// mutex and run one at a time per engine. Values returned are copies owned by the caller.
//
// The engine holds its own handle of the report (a Report is a shared handle: copying one is
// cheap and keeps the mapping and the decoded values alive), so it may outlive the Report it
// was built from: `MetricEngine e(Report::open(path));` is fine.
class MetricEngine {
 public:
  // `extra` metrics get the indices model.metrics.size(), +1, ...
  explicit MetricEngine(Report report, std::vector<AdHocMetric> extra = {},
                        MetricEngineOptions options = {});
  ~MetricEngine();
  MetricEngine(const MetricEngine&) = delete;
  MetricEngine& operator=(const MetricEngine&) = delete;

  const Report& report() const;
  // The model's metrics, the extra ones, then ghost metrics defined by CubePL statements.
  size_t metric_count() const;
  const Metric& metric(Index metric) const;
  // Whether the metric is VOID now: declared so, or set so by an init expression
  // (cube::metric::set::<name>("value", "VOID")). VOID metrics answer zeros.
  bool is_void(Index metric) const;
  // Compile-time warnings (unknown metric names, ...), in order.
  const std::vector<std::string>& warnings() const;
  // What CubeLib 4.6 prints on standard output compiling these expressions, in order
  // (cubepl::CompileContext::cubelib_note): tools that mimic it print these lines.
  const std::vector<std::string>& cubelib_notes() const;
  // The same when CubeLib compiles these expressions a second time in one cube (cube_remap2
  // does): each ghost metric the first compile defined now "already exists in cube".
  const std::vector<std::string>& cubelib_notes_of_second_compile() const;

  // Every query takes metric indices below metric_count() and cnode indices into Model::cnodes
  // (LookupError otherwise), and answers stored and derived metrics alike.
  //
  // The L per-location values of (metric, cnode) with the given metric-tree and call-tree
  // flavours; one value per cnode (indexed like Model::cnodes) aggregated over all locations.
  Values location_values(Index metric, Index cnode, Flavour metric_flavour, Flavour call_flavour);
  Values aggregated_values(Index metric, Flavour metric_flavour, Flavour call_flavour);
  // One value of (metric, cnode): aggregated over all locations as aggregated_values does, or
  // of one location (an index into Model::locations, LookupError beyond them). Integer types
  // are converted to double (as Values::number).
  double value(Index metric, Index cnode, Flavour metric_flavour, Flavour call_flavour);
  double value(Index metric, Index cnode, Flavour metric_flavour, Flavour call_flavour,
               Index location);
  // Flat profile (cube-format.md §8.5): one value per region (indexed like Model::regions), the
  // ⊕ over all cnodes calling it of their values aggregated over all locations.
  Values region_values(Index metric, Flavour metric_flavour, Flavour call_flavour);
  // The values as stored for one cnode, per location (no tree arithmetic); identity for
  // derived metrics, which store nothing.
  Values stored_values(Index metric, Index cnode);
  // Per system tree node and location group, for one cnode (as calc's system_values). A
  // POSTDERIVED metric is evaluated per node / group with every operand summed over its
  // locations first (time / visits of a node is its total time over its total visits), and
  // references with the system modifier e give 0 there (nodes and groups own no data); other
  // metrics are their per-location values summed. A derived metric with its own aggr operator
  // folds the per-location values of the locations below each node / group with it instead.
  SystemValues system_values(Index metric, Index cnode, Flavour metric_flavour,
                             Flavour call_flavour);

  // Forgets every cached value: derived rows and aggregates, and the report's decoded stored
  // metrics. Later queries compute again. Tools that go through many metrics of a large report
  // one after the other call it between metrics, so memory holds one metric's values at a time.
  void forget_values();
  // Forgets the engine's own cached rows (derived values and aggregates) but leaves the report's
  // decoded stored metrics, which other users of the report may share.
  void forget_derived_values();
  // Bytes the engine's own caches hold now (what forget_derived_values() would give back).
  uint64_t cached_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cubekit
