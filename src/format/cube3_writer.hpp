// Writing a Cube 3 XML document (cube-format.md §10), the format `cube4to3` writes; its reader is
// format/cube3.hpp. The writer knows the document, not where the values come from: the rows are
// handed in (src/algebra/cube3_export.cpp computes them from a report for
// cubekit/cube3_writer.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "cubekit/model.hpp"

namespace cubekit::format {

// The values of one (metric, call path): one per location in location order, each of the
// metric's type, `stride` bytes apart.
struct Cube3Row {
  const std::byte* data = nullptr;
  size_t count = 0;
  size_t stride = 0;
};

// Where a document's values come from.
struct Cube3Rows {
  std::function<bool(Index metric)> has_data;  // false: the metric gets no <matrix>
  // The metric-inclusive, call-tree exclusive values of (metric, cnode); valid until the next
  // call.
  std::function<Cube3Row(Index metric, Index cnode)> row;
  std::function<void(Index metric)> done;  // its rows are written (memory may be freed)
};

// Receives one sentence per metric left out (derived, ghost, not one number per thread).
using Cube3Note = std::function<void(const std::string&)>;

// Throws Error naming `where` unless the system tree is machine → node → process → thread.
void check_cube3_system_tree(const Model& model, const std::string& where);

// Writes `model` with the values of `rows` to `path` as a Cube 3 document laid out as CubeLib
// 4.6 writes it, gzip-compressed when `gzip`, the values exact (they read back bit for bit) or
// rounded as CubeLib rounds them. The document appears whole or not at all. Throws IoError.
void write_cube3_document(const Model& model, const Cube3Rows& rows, const std::string& path,
                          bool gzip, bool exact_values, const Cube3Note& note);

}  // namespace cubekit::format
