// Where a report's values come from: the interface every reader implements (a .cubex
// archive, a Cube 3 XML document, memory), and the row-by-row delivery of stored values that
// lets the upper layers aggregate without keeping a whole metric in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
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

// Receives stored rows several at a time: `count` rows lying one after the other, row j (of
// cnode cnodes[j]) at rows + j * stride, in memory layout, valid only during the call. A visitor
// can then work on several rows at once (e.g. independent sums that run side by side).
using RowRunVisitor =
    std::function<void(const Index* cnodes, size_t count, const std::byte* rows, size_t stride)>;

// Where a visitor accepts its rows. kAligned: aligned for the lane type (rows are copied out of
// the file when needed). kAnyAddress: the visitor reads values with memcpy-style loads, so rows
// that need no conversion (plain or inflated data in host byte order, memory layout = file
// layout) are handed over where they lie, e.g. in the buffer a plain member's rows are read
// into: no copy of each row.
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
  // The same values restricted to the columns [first, first + count) of rows of `columns`
  // values (for a Report::column_window): rows then hold only those values, and only their bytes
  // are read where the layout allows. nullptr when this source cannot (the default).
  virtual std::shared_ptr<const SeveritySource> column_window(size_t first, size_t count,
                                                              size_t columns) const {
    (void)first, (void)count, (void)columns;
    return nullptr;
  }
  // Hands every stored row of a metric to `visit`, in storage order, without keeping them all
  // in memory. The default decodes the whole matrix first.
  virtual void visit_rows(const Model& model, Index metric, const RowVisitor& visit,
                          RowPlacement placement = RowPlacement::kAligned,
                          RowShare share = {}) const;
  // visit_rows in runs of rows (RowRunVisitor). The default hands over runs of one row;
  // a .cubex archive hands over runs of the rows that lie together in its plain members.
  virtual void visit_row_runs(const Model& model, Index metric, const RowRunVisitor& visit,
                              RowPlacement placement = RowPlacement::kAligned,
                              RowShare share = {}) const;
};

// Hands the stored rows of `matrix`, taken in `order` (cnode indices), to `visit`; with several
// parts only those of `share` (by position among the stored rows).
void visit_stored_rows(const SeverityMatrix& matrix, const std::vector<Index>& order,
                       const RowVisitor& visit, RowShare share);

}  // namespace cubekit
