// Exporting a report as a Cube 3 XML document (cube-format.md §10), the format `cube4to3`
// writes. Cube 3 holds less than Cube 4 (§10.4): entity attributes, metric types, region
// paradigm/role, call-path parameters and everything but a machine → node → process → thread
// system tree are lost or refused.
#pragma once

#include <functional>
#include <string>

#include "cubekit/model.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

// Receives one sentence per metric left out of an export (derived, ghost, or of a value type
// that is not one number per thread), so that a tool can tell the user.
using Cube3Note = std::function<void(const std::string&)>;

// Throws Error naming `where` when the system tree is not shaped machine → node → process →
// thread: root nodes holding only nodes, nodes holding only location groups.
void check_cube3_system_tree(const Model& model, const std::string& where);

struct Cube3Options {
  bool gzip = false;  // gzip-compress the document
  // Print every value so that it reads back bit for bit (the shortest such text, up to 17
  // significant digits) instead of rounded as CubeLib prints it (6 significant digits, 12 for
  // MIN/MAXDOUBLE).
  bool exact_values = false;
};

// Writes `report` to `path` as a Cube 3 document, laid out as CubeLib 4.6 writes it. The
// document appears whole or not at all (temporary file beside it, renamed at the end).
// Metrics are numbered 0, 1, ... in document order. <severity> has a row for every call path
// of each metric but VOID ones, holding its stored values (metric-inclusive), call-tree
// exclusive, one number per line in ascending thread id. Throws Error (system tree shape),
// IoError (writing).
void write_cube3(const Report& report, const std::string& path, const Cube3Options& options = {},
                 const Cube3Note& note = {});

}  // namespace cubekit
