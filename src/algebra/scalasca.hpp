// cube_remap2 -s: the values CubeLib's remapper computes for Scalasca's metrics "Idle threads",
// "Limited parallelism" and the computational load-imbalance family, from the time and
// visits of the working report.
#pragma once

#include <functional>
#include <string>

#include "cubekit/report.hpp"

namespace cubekit::algebra {

// `base` with the values of omp_idle_threads, omp_limited_parallelism, time and the imbalance
// metrics replaced by the heuristics' results (metrics the report lacks are skipped).
// `progress` receives CubeLib's progress lines. `base` must outlive the result.
Report add_scalasca_metrics(const Report& base,
                            const std::function<void(const std::string&)>& progress);

}  // namespace cubekit::algebra
