// Reads the <program> and <system> elements of an anchor without a DOM (tree_reader.cpp): they
// hold one element per call path and per location, millions in large reports.
#pragma once

#include <string>
#include <string_view>

#include "cubekit/model.hpp"

namespace cubekit::format {

// Finds the first <name ...>...</name> element of `xml` (not <nameXYZ>): [begin, end) covers it
// whole, or begin == end == npos when there is none. A plain text search suffices: '<' never
// appears unescaped in attribute values or text, only in CDATA and comments, which anchors do
// not put around these elements.
void find_element(std::string_view xml, std::string_view name, size_t& begin, size_t& end);

// Parses xml[begin, end) (one <program> element) into the regions, the call forest and the
// program title of `model`. Throws FormatError with line:column.
void read_program(std::string_view xml, size_t begin, size_t end, Model& model,
                  const std::string& where);

// Parses xml[begin, end) (one <system> element) into the system tree, topologies and the
// system title of `model`. Throws FormatError with line:column.
void read_system(std::string_view xml, size_t begin, size_t end, Model& model,
                 const std::string& where);

}  // namespace cubekit::format
