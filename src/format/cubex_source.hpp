// Values of a .cubex archive: index and data members decoded on request.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/source.hpp"
#include "format/mapped_file.hpp"
#include "format/metric_data.hpp"
#include "format/tar.hpp"

namespace cubekit::format {

class CubexSource : public SeveritySource {
 public:
  CubexSource(std::shared_ptr<const MappedFile> file, TarIndex tar);
  std::shared_ptr<const SeverityMatrix> load(const Model& model, Index metric) const override;
  std::vector<MemberInfo> members() const override;
  std::optional<std::string> member_content(const std::string& name) const override;
  bool has_data(const Model& model, Index metric) const override;
  void visit_rows(const Model& model, Index metric, const RowVisitor& visit, RowPlacement placement,
                  RowShare share) const override;
  void visit_row_runs(const Model& model, Index metric, const RowRunVisitor& visit,
                      RowPlacement placement, RowShare share) const override;
  std::shared_ptr<const SeveritySource> column_window(size_t first, size_t count,
                                                      size_t columns) const override;

  // The anchor text: a view of the mapped file, or of `inflated` when it was gzipped.
  // Throws FormatError when absent.
  std::string_view anchor_text(std::string& inflated) const;
  // Gives the anchor's pages back once it has been parsed, or the bytes [from, to) of it
  // (the part a parser has passed; nothing when the anchor was inflated).
  void release_anchor(size_t from = 0, size_t to = SIZE_MAX) const;

 private:
  std::string member_name(const Metric& m, const char* suffix) const;
  // visit_rows, with the rows of plain members in runs when `runs` is set.
  void stream_rows(const Model& model, Index metric, const RowVisitor& visit,
                   const RowRunVisitor* runs, RowPlacement placement, RowShare share) const;
  // The decoded index of a metric that has data, its data member and that member's name for
  // errors ("file:0.data").
  struct StoredMetric {
    MetricIndex index;
    const TarMember* data;
    std::string data_where;
  };
  StoredMetric stored_metric(const Model& model, const Metric& m) const;
  // A stored metric without members whose type's identity is not zero, and its zero rows.
  bool zero_without_members(const Model& model, Index metric) const;
  std::shared_ptr<const SeverityMatrix> zero_rows(const Model& model, Index metric) const;
  std::span<const std::byte> member_bytes(const TarMember& m) const;
  // The member's first `size` bytes (all by default), read from the file, not the map; throws
  // FormatError naming the member when the file has fewer.
  std::vector<std::byte> member_copy(const TarMember& m, uint64_t size = UINT64_MAX) const;
  // For a plain data member, the reader of its bytes from the file (MappedFile::read: rows are
  // copied, not read through the map); empty for a compressed one. `where` names the member.
  ReadMember plain_reader(const TarMember& data, const std::string& where) const;
  // Gives back the pages of `data` below a byte count as the rows are read (every 16 MiB);
  // `released` counts what is given back already and must outlive the returned function.
  std::function<void(uint64_t)> release_behind(const TarMember& data, uint64_t& released) const;
  // Values per row in the file: those of the model's locations, or of the whole report when
  // this source is a column window of it.
  size_t row_values(const Model& model) const {
    return window_ ? columns_of_file_ : model.locations.size();
  }
  std::shared_ptr<const MappedFile> file_;
  TarIndex tar_;
  bool window_ = false;
  Columns columns_;  // of each row in the file, when window_
  size_t columns_of_file_ = 0;
};

}  // namespace cubekit::format
