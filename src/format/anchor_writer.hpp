// anchor.xml text of a model, in the dialect CubeLib's scanner parses (cube-format.md §9.5).
#pragma once

#include <string>

#include "cubekit/model.hpp"

namespace cubekit::format {

std::string anchor_xml(const Model& model);

}  // namespace cubekit::format
