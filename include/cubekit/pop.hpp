// POP efficiency metrics (tools guide §1.3, docs/pop_metrics.md): the hierarchy of efficiencies
// the POP Centre of Excellence judges parallel codes by, for one report or a scaling series,
// for the call-tree roots or chosen focuses of interest.
//
// Time is split per location by the regions of the call tree (their paradigm and role, or
// their name for Cube 3 reports): computation, MPI (MPI I/O separately), OpenMP parallel
// regions and OpenMP overhead, POSIX I/O and other paradigms. Serialisation and transfer
// efficiency need Scalasca's wait-state metrics; hardware-counter metrics need PAPI counters.
// What a report lacks is answered as missing, with a note naming the metric it needs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/report.hpp"

namespace cubekit {

enum class PopModel : uint8_t { kMpi, kHybridAdditive, kHybridMultiplicative, kBsc };

// "mpi", "hybrid-add", "hybrid-mult", "bsc"; nullopt for anything else.
std::optional<PopModel> parse_pop_model(const std::string& name);

struct PopOptions {
  PopModel model = PopModel::kMpi;
  // Call-path ids or region names; empty: the call-tree roots.
  std::vector<std::string> focus;
  // One result per focus item instead of one for all of them together.
  bool individually = false;
};

struct PopValue {
  std::string key;    // snake_case, e.g. "load_balance_efficiency"
  std::string label;  // as the guide names it, e.g. "Load Balance Efficiency"
  int depth = 0;      // place in the hierarchy (0: top)
  std::optional<double> value;
  std::string missing;  // why there is no value ("not available: needs metric ...")
};

struct PopResult {
  std::string focus;                 // region names of the focus, joined by ","
  std::vector<uint32_t> call_paths;  // cnode ids of the focus
  size_t report = 0;                 // index into the series
  std::vector<PopValue> values;      // in the order of the hierarchy
  const PopValue* find(const std::string& key) const;
};

// One result per focus (all together, or each with `individually`) and per report of the
// series, focus-major. Scaling-dependent metrics compare each report with the first.
// Throws cubekit::Error for an unknown focus name or id (naming the report), for a report
// without a "time" metric, and for an empty series.
std::vector<PopResult> pop_metrics(const std::vector<const Report*>& series,
                                   const PopOptions& options);
// The results of the reports r with `wanted[r]` only (the first report is measured anyway: the
// scaling metrics compare with it), in the same order; the MPI layer spreads a series this way.
std::vector<PopResult> pop_metrics(const std::vector<const Report*>& series,
                                   const PopOptions& options, const std::vector<bool>& wanted);

// ---- One report whose locations are split over the processes of a job (docs/mpi.md) ----

// Rows of per-location doubles made in parts: `part(r)` is this process's part of row r (the
// values of its run of columns); row(r) is every process's part joined in column order, on
// the process that prints (the others may get anything of that length). Rows are asked in
// order 0, 1, …, each once.
using JoinLocationRows = std::function<std::function<std::vector<double>(size_t row)>(
    size_t rows, std::function<std::vector<double>(size_t row)> part)>;

// Whether every metric POP reads of `report` is stored (none derived): then what it measures
// per location can be measured on column windows (Report::column_window) of a .cubex archive.
bool pop_reads_stored_metrics(const Report& report);

// pop_metrics of the one-report series {&report}, split by locations: `columns` is this
// process's column window of `report` (the processes' windows, in order, cover every column
// once). Each process measures its columns; the per-location sums, and the values the counter
// totals add up, are joined by `join` so that the printing process adds and evaluates exactly
// as one process does (the same numbers, bit for bit). Collective over the processes.
std::vector<PopResult> pop_metrics_of_columns(const Report& report, const Report& columns,
                                              const PopOptions& options,
                                              const JoinLocationRows& join);

}  // namespace cubekit
