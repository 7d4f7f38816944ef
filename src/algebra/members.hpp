// The archive members of a report that are neither its anchor nor metric data ("misc data"
// such as remapping.spec), to be carried into reports built from it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cubekit/model.hpp"
#include "cubekit/report.hpp"

namespace cubekit::algebra {

// (name, bytes) of every member of `input` that is not anchor.xml and not named like the data
// or index member of a metric of `input` or of `output`.
std::vector<std::pair<std::string, std::string>> misc_members(const Report& input,
                                                              const Model& output);

}  // namespace cubekit::algebra
