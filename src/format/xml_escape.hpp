// Text and attribute values for the XML cubekit writes and prints: the five predefined entities,
// the only escapes CubeLib's scanner understands (cube-format.md §3.1).
#pragma once

#include <string>
#include <string_view>

namespace cubekit::format {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace cubekit::format
