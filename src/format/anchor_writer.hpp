// anchor.xml text of a model, in the dialect CubeLib's scanner parses (cube-format.md §9.5).
#pragma once

#include <string>

#include "cubekit/model.hpp"

namespace cubekit::format {

std::string anchor_xml(const Model& model);

// The elements that describe a metric, alike in anchor.xml and in Cube 3 documents, in their
// order: disp_name, uniq_name, dtype, uom, val (when set), url, descr.
std::string metric_description_xml(const Metric& metric);

}  // namespace cubekit::format
