// Writing .cubex reports that CubeLib 4.x reads (cube-format.md §9.5). A report appears whole
// under its name or not at all: everything goes to a temporary file beside it, which is synced
// and renamed at the end; a writer destroyed before finish() removes it. The same model, rows and
// options (with a fixed mtime) give the same bytes, with or without compress, on any thread and in
// any run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/model.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

struct WriteOptions {
  bool compress = false;           // ZCUBEX data members (rows deflated one by one)
  bool skip_identity_rows = true;  // leave rows whose every value is the identity out (sparse)
  int64_t mtime = -1;  // members' time stamp (seconds since 1970); -1: SOURCE_DATE_EPOCH, else now
};

// Streams a report: the definitions first, then the rows of each metric in turn, so that a
// report of any size is written with memory for one row (plus an index entry per row).
class ReportWriter {
 public:
  // Creates the temporary file and writes anchor.xml. Throws IoError / FormatError.
  ReportWriter(std::string path, std::shared_ptr<const Model> model, WriteOptions options = {});
  ~ReportWriter();
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  // An extra archive member ("misc data", e.g. remapping.spec).
  void add_member(const std::string& name, std::string_view bytes);

  // Starts the data of metric `metric` (index into Model::metrics; not derived, not VOID).
  void begin_metric(Index metric);
  // One row: the values of cnode `cnode` for every location (by location id), in memory layout
  // (DataType::memory_size() each). Rows must come in the metric's storage order (pre-order for
  // EXCLUSIVE metrics, children-first otherwise: see storage_order); cnodes may be left out.
  void write_row(Index cnode, const std::byte* values);
  void end_metric();

  // Completes the archive, syncs it and renames it to its final name.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Writes a whole report (e.g. one just read) to `path`, keeping its stored rows and misc
// members. Refuses to overwrite the report's own file.
void write_report(const Report& report, const std::string& path, WriteOptions options = {});
// The same with other definitions: `model` must have the report's metrics, call paths and
// locations (in the same order); names, attributes and topologies may differ.
void write_report(const Report& report, std::shared_ptr<const Model> model, const std::string& path,
                  WriteOptions options = {});

}  // namespace cubekit
