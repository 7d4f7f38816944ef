// `cube_dump -w`: the report's structure in CubeLib's layout.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cubekit/report.hpp"

namespace cubekit {

struct StructureOptions {
  std::vector<std::string> sections;  // empty: all, with the blank lines between banners
  bool ghosts = false;                // -g
  bool coordinates = false;           // -d
  std::string show_file;              // -f: print this member's content instead of the list
};

// Section names accepted by `-w <section>`.
bool is_structure_section(const std::string& name);

void print_structure(std::ostream& out, const Report& report, const StructureOptions& options);

}  // namespace cubekit
