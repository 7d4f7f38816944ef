// Values as CubeLib 4.6's tools print them (getString of each value class), so that cubekit's
// output can be compared with the original tools' byte for byte.
#pragma once

#include <string>

#include "cubekit/data_type.hpp"

namespace cubekit {

// %g with `digits` significant digits, as a default-formatted std::ostream prints doubles.
std::string format_double(double v, int digits = 6);

// The text of one value in memory layout.
std::string value_text(DataType type, const std::byte* value);

}  // namespace cubekit
