// Reads the <system> element of an anchor without a DOM (see system_reader.cpp).
#pragma once

#include <string>
#include <string_view>

#include "cubekit/model.hpp"

namespace cubekit::format {

// Finds the <system ...>...</system> element in `xml`: [begin, end) covers it whole, or
// begin == end == npos when there is none. A plain text search suffices: '<' never appears
// unescaped in attribute values or text, only in CDATA and comments, which anchors do not put
// around this element.
void find_system_element(std::string_view xml, size_t& begin, size_t& end);

// Parses xml[begin, end) (one <system> element) into the system tree, topologies and the
// system title of `model`. Throws FormatError with line:column.
void read_system(std::string_view xml, size_t begin, size_t end, Model& model,
                 const std::string& where);

}  // namespace cubekit::format
