// The Cube 3 single-XML format (.cube, .cube.gz; cube-format.md §10).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "cubekit/report.hpp"

namespace cubekit::format {

struct Cube3Document {
  std::shared_ptr<Model> model;
  std::shared_ptr<const SeveritySource> source;  // the <severity> matrices, already decoded
};

// Reads a Cube 3 document (plain or gzip-compressed bytes). `where` names the file.
// Throws FormatError.
Cube3Document read_cube3(std::span<const std::byte> bytes, const std::string& where);

}  // namespace cubekit::format
