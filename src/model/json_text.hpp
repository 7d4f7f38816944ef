// JSON text pieces of the model layer's outputs.
#pragma once

#include <string>

namespace cubekit {

// The shortest text that reads back as v; "null" when v is not finite.
std::string json_number(double v);
// A JSON string literal of s (quotes, backslashes and control characters escaped).
std::string json_string(const std::string& s);

}  // namespace cubekit
