// Regions as `cube_regioninfo` (tools guide §1.5) sums them up, for planning a trace
// measurement: each region's kind, what it would cost in a trace buffer (its visits times the
// bytes of the event records its kind writes, Scalasca's estimate) and its exclusive values of
// chosen metrics, with totals per kind, and the same without the regions a filter list
// (blacklist) names.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cubekit/call_tree_view.hpp"
#include "cubekit/derived.hpp"

namespace cubekit {

// A region's kind as CubeLib's region classification has it: MPI / OMP / EPK by the region's
// description ("MPI", "OMP", "EPIK"), otherwise COM when one of its call paths has MPI or OpenMP
// below it (call_path_kinds), else USR.
enum class RegionKind : uint8_t { kUser, kMpi, kOmp, kCommunication, kMeasurement };
std::vector<RegionKind> region_kinds(const Model& model);  // indexed like Model::regions
const char* region_kind_name(RegionKind kind);             // "USR", "MPI", "OMP", "COM", "EPK"

// Bytes of trace records one visit of a region named `name` writes (Scalasca's estimate, by
// the name: MPI collectives 40, sends 50, receives 46, OpenMP forks 44, user code 24, ...).
uint64_t trace_record_bytes(const std::string& name);

// Which regions a filter list names: each line's first word is a shell pattern (fnmatch) for
// region names; lines starting with '#' are comments. Regions of kind MPI, OMP and EPK cannot
// be filtered; `warning` is told about them, and about COM regions a pattern names (those are
// filtered). Throws cubekit::Error when the file cannot be read.
std::vector<bool> filtered_regions(const Model& model, const std::vector<RegionKind>& kinds,
                                   const std::string& list_file,
                                   const std::function<void(const std::string&)>& warning);

// Sums over regions by kind; *_kept leave out the filtered regions.
template <class T>
struct KindTotals {
  T all{}, mpi{}, usr{}, com{}, filtered{};
  T all_kept{}, mpi_kept{}, usr_kept{}, com_kept{};
};

struct TraceCosts {
  std::vector<uint64_t> total_by_region;  // over all locations
  std::vector<uint64_t> max_by_region;    // of the largest location
  KindTotals<uint64_t> total;             // over all locations
  KindTotals<uint64_t> max;               // of the largest location for each sum
};

// Needs a metric named "visits" (cubekit::LookupError otherwise). `filtered`: empty or one flag
// per region.
TraceCosts trace_costs(MetricEngine& engine, const std::vector<RegionKind>& kinds,
                       const std::vector<bool>& filtered);

struct RegionValues {
  std::vector<double> exclusive;  // per region: ⊕ over its call paths, all locations
  KindTotals<double> totals;
};

// `metric`'s exclusive values per region (metric inclusive), summed by kind.
RegionValues region_values(MetricEngine& engine, Index metric, const std::vector<RegionKind>& kinds,
                           const std::vector<bool>& filtered);

}  // namespace cubekit
