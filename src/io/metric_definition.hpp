// Defining the metrics of a report being built (tau2cube's converter, the profile generator).
#pragma once

#include <string>

#include "cubekit/data_type.hpp"
#include "cubekit/model.hpp"

namespace cubekit {

// Appends a stored metric (id = its position) to `m`; its index.
Index add_metric(Model& m, std::string uniq, std::string disp, DataType type, MetricKind kind,
                 std::string uom, std::string descr);

}  // namespace cubekit
