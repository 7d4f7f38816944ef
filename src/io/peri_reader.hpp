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
  // How the values were read (peri_values.hpp): ranges of guessed bounds proved right, and
  // whether a wrong guess or an error made the document be read again without guesses.
  size_t guessed_ranges = 0;
  bool read_again = false;
};

// The least size of a range of <data> read from a guessed start (peri_values.hpp).
constexpr size_t kPeriRangeBytes = size_t{4} << 20;

// Reads `text` (named `name` in messages). Throws FormatError with name, line and column.
// `mapped`, when the text is that file's bytes, lets pages already read leave the resident set.
// `range_bytes`: the least size of a guessed range (0: no guesses; small: tests and the fuzzer
// take that path on small documents).
PeriDocument read_peri_xml(std::string_view text, const std::string& name,
                           const format::MappedFile* mapped = nullptr,
                           size_t range_bytes = kPeriRangeBytes);

}  // namespace cubekit::io
