// Opening a report. Opening maps the file and reads the container and the definitions only; a
// metric's values are decoded on first use, cached, and can be dropped again. All const members
// are safe to call from several threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubekit/model.hpp"
#include "cubekit/severity.hpp"

namespace cubekit {

// One stored member of a .cubex archive (for listings such as `cube_dump -w`).
struct MemberInfo {
  std::string name;
  uint64_t size = 0;
};

// Receives stored rows one at a time: the cnode (index into Model::cnodes) and its values for
// every location, in memory layout. The row memory is only valid during the call.
using RowVisitor = std::function<void(Index cnode, const std::byte* row)>;

// Where a visitor accepts its rows. kAligned: aligned for the lane type (rows are copied out of
// the file when needed). kAnyAddress: the visitor reads values with memcpy-style loads, so rows
// that need no conversion (plain or inflated data in host byte order, memory layout = file
// layout) are handed over where they lie, e.g. inside the mapped file: no copy at all.
enum class RowPlacement { kAligned, kAnyAddress };

// One of `parts` contiguous shares of a metric's stored rows (in storage order), so that
// several threads can stream one metric together; shares may be visited concurrently.
struct RowShare {
  size_t part = 0, parts = 1;
};

// Where a report's values come from (a .cubex archive, a Cube 3 XML document, memory).
class SeveritySource {
 public:
  virtual ~SeveritySource() = default;
  // Decodes the stored values of metric `metric` (index into Model::metrics). Returns nullptr
  // when the metric has no stored data (all values are the identity).
  virtual std::shared_ptr<const SeverityMatrix> load(const Model& model, Index metric) const = 0;
  virtual std::vector<MemberInfo> members() const { return {}; }
  // The bytes of an archive member ("misc data" such as remapping.spec); nullopt if absent.
  virtual std::optional<std::string> member_content(const std::string& name) const {
    (void)name;
    return std::nullopt;
  }
  virtual bool has_data(const Model& model, Index metric) const = 0;
  // Hands every stored row of a metric to `visit`, in storage order, without keeping them all
  // in memory. The default decodes the whole matrix first.
  virtual void visit_rows(const Model& model, Index metric, const RowVisitor& visit,
                          RowPlacement placement = RowPlacement::kAligned,
                          RowShare share = {}) const;
};

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
  // Hands every stored row of a metric to `visit`: from the cache if the metric is decoded,
  // otherwise streamed from the file with memory for one row.
  void visit_rows(Index metric, const RowVisitor& visit,
                  RowPlacement placement = RowPlacement::kAligned, RowShare share = {}) const;
  // Forgets the cached values of a metric (memory is freed when no caller holds them).
  void drop(Index metric) const;

 private:
  struct Cache;
  std::string path_;
  std::shared_ptr<const Model> model_;
  std::shared_ptr<const SeveritySource> source_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace cubekit
