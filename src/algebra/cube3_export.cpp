// Cube 3 export of a report (cubekit/cube3_writer.hpp): the document is format's
// (format/cube3_writer.hpp); here, above calc, its rows: each metric's stored values, which are
// metric-inclusive, made call-tree exclusive.
#include "cubekit/cube3_writer.hpp"

#include "calc/kernels.hpp"
#include "cubekit/error.hpp"
#include "format/cube3_writer.hpp"
#include "format/mapped_file.hpp"

namespace cubekit {

void check_cube3_system_tree(const Model& model, const std::string& where) {
  format::check_cube3_system_tree(model, where);
}

void write_cube3(const Report& report, const std::string& path, const Cube3Options& options,
                 const Cube3Note& note) {
  // The default name of `cube4to3 x.cube` is x.cube itself.
  format::refuse_overwriting(report.path(), path);
  check_cube3_system_tree(report.model(), report.path());
  Values current(DataType{}, 0);
  format::Cube3Rows rows;
  rows.has_data = [&](Index metric) { return report.has_data(metric); };
  rows.row = [&](Index metric, Index cnode) {
    current = location_values(report, metric, cnode, Flavour::kInclusive, Flavour::kExclusive);
    return format::Cube3Row{current.data(), current.size(), current.stride()};
  };
  rows.done = [&](Index metric) { report.drop(metric); };
  format::write_cube3_document(report.model(), rows, path, options.gzip, options.exact_values,
                               note);
}

}  // namespace cubekit
