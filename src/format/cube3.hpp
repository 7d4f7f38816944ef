// The Cube 3 single-XML format (.cube, .cube.gz; cube-format.md §10).
#pragma once

#include <memory>
#include <string_view>

#include <pugixml.hpp>
#include <span>
#include <string>

#include "cubekit/source.hpp"

namespace cubekit::format {

struct Cube3Document {
  std::shared_ptr<Model> model;
  std::shared_ptr<const SeveritySource> source;  // the <severity> matrices, already decoded
};

// The Cube 3 system tree (machine / node / process / thread) of <system> into `model`; `text` is
// the document, for line numbers in errors. Also used for Cube 4.0 anchors written that way.
void parse_cube3_system(const pugi::xml_node& system, Model& model, std::string_view text,
                        const std::string& where);

// Reads a Cube 3 document (plain or gzip-compressed bytes). `where` names the file.
// Throws FormatError.
Cube3Document read_cube3(std::span<const std::byte> bytes, const std::string& where);

}  // namespace cubekit::format
