// Opening a report. Opening maps the file and reads the container and the definitions only; a
// metric's values are decoded on first use, cached, and can be dropped again.
//
// Thread safety: a Report is a shared handle (copies are cheap and share the mapping, the model
// and the cache of decoded values); every member is const and safe to call from several threads
// at once. Decoded values are handed out as shared_ptr, so drop() by one user never frees what
// another still reads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/model.hpp"
#include "cubekit/severity.hpp"
#include "cubekit/source.hpp"

namespace cubekit {

class Report {
 public:
  // Opens a .cubex archive or a Cube 3 .cube / .cube.gz document. Throws cubekit::Error.
  static Report open(const std::string& path);
  Report(std::string path, std::shared_ptr<const Model> model,
         std::shared_ptr<const SeveritySource> source);

  const std::string& path() const { return path_; }
  const Model& model() const { return *model_; }
  std::vector<MemberInfo> members() const { return source_->members(); }
  std::optional<std::string> member_content(const std::string& name) const {
    return source_->member_content(name);
  }

  // Whether metric `metric` has stored data (false: all identity, or derived, or VOID).
  bool has_data(Index metric) const;
  // The decoded values of a metric; nullptr when it has none. Decoded once, then cached.
  std::shared_ptr<const SeverityMatrix> severities(Index metric) const;
  // For a question about a few rows of a metric (one call path's values): the decoded values
  // if they are cached, or once the metric has been asked this way a few times (then it is
  // decoded, for callers that go on row after row); nullptr the first few times, when one pass
  // over the stored rows (visit_rows) costs less than decoding them all.
  std::shared_ptr<const SeverityMatrix> severities_for_rows(Index metric) const;
  // Hands every stored row of a metric to `visit`: from the cache if the metric is decoded,
  // otherwise streamed from the file with memory for one row.
  void visit_rows(Index metric, const RowVisitor& visit,
                  RowPlacement placement = RowPlacement::kAligned, RowShare share = {}) const;
  // visit_rows in runs of rows that lie together (RowRunVisitor): from the file, the rows of a
  // plain member come in runs; from the cache, one at a time.
  void visit_row_runs(Index metric, const RowRunVisitor& visit,
                      RowPlacement placement = RowPlacement::kAligned, RowShare share = {}) const;
  // The report restricted to its columns [first, first + count) (model: column_window in
  // model.hpp): every row holds only those values, and of a .cubex archive only their bytes are
  // read (a plain row's part; a compressed row is inflated whole). One rank's share of a report
  // split over the locations (docs/mpi.md). Error when the report is not a .cubex archive.
  Report column_window(size_t first, size_t count) const;
  // Whether column_window can be asked (a .cubex archive).
  bool reads_by_columns() const;
  // Forgets the cached values of a metric (memory is freed when no caller holds them).
  void drop(Index metric) const;

 private:
  struct Cache;
  // A metric's decoded values if they are cached (else nullptr); `none`: known to have no data.
  struct CachedRows {
    std::shared_ptr<const SeverityMatrix> values;
    bool none = false;
  };
  CachedRows cached_rows(Index metric) const;
  std::string path_;
  std::shared_ptr<const Model> model_;
  std::shared_ptr<const SeveritySource> source_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace cubekit
