// Fuzzes the reading of experiment folder names ("mm.x10y1z1.r1", model/series_names.hpp): any
// name must parse or raise a cubekit::Error, and what parses must be Extra-P's reading of it:
// the names before each run of digits, '.' and ',' in its slice of the name, one finite value
// each, at least one.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/error.hpp"
#include "model/series_names.hpp"

namespace {

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == ',';
}

// Extra-P's slice (extrap/fileio/file_reader/abstract_directory_reader.py: folder_name[
// find(".") + 1 : find(".r")], empty when the end comes first) and the texts before its runs.
std::vector<std::string> extrap_names(std::string_view folder) {
  const size_t start = folder.find('.') + 1;  // npos + 1 == 0: from the start
  const size_t end = std::min(folder.find(".r"), folder.size());
  const std::string_view text =
      end < start ? std::string_view() : folder.substr(start, end - start);
  std::vector<std::string> names;
  size_t last = 0;
  for (size_t i = 0; i < text.size();) {
    if (!is_number_char(text[i])) {
      ++i;
      continue;
    }
    names.emplace_back(text.substr(last, i - last));
    while (i < text.size() && is_number_char(text[i])) ++i;
    last = i;
  }
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string folder(reinterpret_cast<const char*>(data), size);
  try {
    const cubekit::model_detail::NamedPoint point =
        cubekit::model_detail::parse_folder_name(folder);
    if (point.values.empty() || point.values.size() != point.names.size()) std::abort();
    for (const double v : point.values)
      if (!std::isfinite(v) || v < 0) std::abort();
    if (point.names != extrap_names(folder)) std::abort();
    for (size_t i = 0; i < point.names.size(); ++i)  // each named, and once
      if (point.names[i].empty() ||
          std::count(point.names.begin(), point.names.end(), point.names[i]) != 1)
        std::abort();
  } catch (const cubekit::Error&) {
    // Names that are no series point are refused, which is the common outcome.
  }
  return 0;
}
