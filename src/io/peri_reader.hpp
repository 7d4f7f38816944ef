// import_peri_xml's reading half (peri_import.hpp), for a document held in memory: what the fuzzer
// drives and the writer consumes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit::format {
class MappedFile;
}

namespace cubekit::io {

struct PeriDocument {
  std::shared_ptr<Model> model;
  // Per metric: call paths × locations (location ids), one 8-byte lane each — 64-bit integers
  // for integer metrics (exact), doubles otherwise; empty where the document has no value.
  std::vector<std::vector<uint64_t>> values;
};

// Reads `text` (named `name` in messages). Throws FormatError with name, line and column.
// `mapped`, when the text is that file's bytes, lets pages already read leave the resident set.
PeriDocument read_peri_xml(std::string_view text, const std::string& name,
                           const format::MappedFile* mapped = nullptr);

}  // namespace cubekit::io
