// The flat profile (cube-format.md §8.5, `cube_dump -r`): per region, the exclusive value summed
// over every call path calling it, and what its callees add ("Subroutines": the ⊕ of the
// exclusive values of every call path below one of the region's own that belongs to another
// region, each once, as CubeLib computes it; for sums, inclusive minus exclusive without
// recursion counted twice).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

// What CubeLib's tools print where they have no value at all.
inline constexpr const char* kNoValueText = "0.";

// Whether CubeLib has a value where nothing adds to a region's (a region no call path calls, the
// subroutines of one without call paths of other regions below it): for the integer types and
// DOUBLE (derived metrics included), which it keeps as plain numbers, it has their 0; for every
// other type (MINDOUBLE, MAXDOUBLE, TAU_ATOMIC, ...) it keeps value objects and has none.
bool has_value_where_nothing_adds(DataType type);

struct FlatProfile {
  std::vector<Index> regions;  // indices into Model::regions, in ascending region id
  Values exclusive;    // per region (indexed like Model::regions): ⊕ of call-exclusive values
  Values subroutines;  // per region: ⊕ of the call paths below it of other regions
  // Per region: where CubeLib has no value (nothing adds to it, of a type without a value then:
  // has_value_where_nothing_adds). The values there are the empty ⊕, which is no measurement.
  std::vector<bool> no_exclusive, no_subroutines;
};

// A region's values as CubeLib's tools print them: kNoValueText where it has none.
std::string exclusive_text(const FlatProfile& profile, Index region);
std::string subroutines_text(const FlatProfile& profile, Index region);

// For any metric the engine knows (stored, derived, ad hoc), aggregated over all locations. A
// metric-exclusive profile is the inclusive one minus each sub-metric's, region by region, as
// CubeLib computes it (subtracting per call path first leaves other rounding residues).
FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour);
// The same with metric k's metric-inclusive, call-exclusive values per call path (aggregated
// over all locations) given by `inclusive_of(k)`: for whoever sums them another way (an MPI
// job's ranks).
FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour,
                         const std::function<Values(Index metric)>& inclusive_of);
// The same from a metric's call-exclusive values aggregated over all locations, one per call
// path (indexed like Model::cnodes), as MetricEngine::aggregated_values gives them: for whoever
// holds them already (the server's cache).
FlatProfile flat_profile(const Model& model, const Values& exclusive_per_cnode);

// What adds to each region's subroutines, the same for every metric: the call paths below the
// region's own that belong to other regions, in the order CubeLib adds them. Finding them is
// most of a flat profile's time (70 % of 40-100 ms for 100,000 call paths); whoever computes
// flat profiles of one report for several metrics keeps it. Region r's call paths are
// call_paths[first[r]] up to call_paths[first[r + 1]].
struct FlatProfileShape {
  std::vector<size_t> first;
  std::vector<Index> call_paths;
  std::vector<bool> called;  // per region: whether a call path is the region's
};
// nullopt when the lists would hold more than `max_entries` call paths (each region's lists the
// call paths of its subtrees: a deep recursion of distinct regions makes them quadratic).
std::optional<FlatProfileShape> flat_profile_shape(const Model& model, size_t max_entries);
// flat_profile(model, exclusive_per_cnode) with the shape computed before: the same numbers.
FlatProfile flat_profile(const Model& model, const FlatProfileShape& shape,
                         const Values& exclusive_per_cnode);

// The same per location: for each region (indexed like Model::regions) the values of every
// location (indexed by location id). Empty where CubeLib has no values at all: `exclusive` of a
// region no call path calls, `subroutines` of a region with no call path of another region below
// it; with kEachCallPathOnce only for types without a value there (has_value_where_nothing_adds:
// CubeLib's per-location query gives the others' 0, its query of all locations at once none).
struct LocationFlatProfile {
  std::vector<Index> regions;  // in ascending region id
  std::vector<std::optional<Values>> exclusive, subroutines;
};

// Which call paths make a region's "Subroutines" per location. CubeLib computes them in two
// ways: for chosen locations (cube_dump -t, and its csv2 layout for all locations), asking each
// location on its own, as the aggregated profile does: each call path
// below the region's own that belongs to another region once (kEachCallPathOnce); for all
// locations at once as the ⊕ of the inclusive values of the region's call paths' direct callees
// of another region (kDirectCalleesInclusive), which counts a callee's subtree again for every
// call path of the region inside it (recursion).
enum class SubroutineRule { kEachCallPathOnce, kDirectCalleesInclusive };

LocationFlatProfile location_flat_profile(MetricEngine& engine, Index metric,
                                          Flavour metric_flavour,
                                          SubroutineRule rule = SubroutineRule::kEachCallPathOnce);

}  // namespace cubekit
