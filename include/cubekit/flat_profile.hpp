// The flat profile (cube-format.md §8.5, `cube_dump -r`): per region, the exclusive value summed
// over every call path calling it, and what its callees add.
#pragma once

#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

struct FlatProfile {
  std::vector<Index> regions;  // indices into Model::regions, in ascending region id
  Values exclusive;    // per region (indexed like Model::regions): ⊕ of call-exclusive values
  Values subroutines;  // per region: inclusive − exclusive ("Subroutines")
};

// For any metric the engine knows (stored, derived, ad hoc), aggregated over all locations.
FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour);

}  // namespace cubekit
