#include "format/cubex_source.hpp"

#include <algorithm>
#include <cstring>
#include <list>
#include <mutex>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/parallel.hpp"
#include "format/compression.hpp"
#include "format/metric_data.hpp"

namespace cubekit::format {

CubexSource::CubexSource(std::shared_ptr<const MappedFile> file, TarIndex tar)
    : file_(std::move(file)), tar_(std::move(tar)) {}

std::span<const std::byte> CubexSource::member_bytes(const TarMember& m) const {
  return file_->bytes().subspan(m.offset, m.size);
}

std::string_view CubexSource::anchor_text(std::string& inflated) const {
  const TarMember* anchor = tar_.find("anchor.xml");
  if (anchor == nullptr)
    throw FormatError(file_->path() + ": no member 'anchor.xml' in the archive");
  const auto bytes = member_bytes(*anchor);
  if (is_gzip(bytes)) {
    inflated = gunzip(bytes, file_->path() + ":anchor.xml");
    return inflated;
  }
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

void CubexSource::release_anchor(size_t from, size_t to) const {
  const TarMember* anchor = tar_.find("anchor.xml");
  if (anchor == nullptr || from >= anchor->size) return;
  file_->release(anchor->offset + from, std::min<uint64_t>(to, anchor->size) - from);
}

std::string CubexSource::member_name(const Metric& m, const char* suffix) const {
  return (m.ghost ? "ghost_" : "") + std::to_string(m.id) + suffix;
}

bool CubexSource::has_data(const Model& model, Index metric) const {
  const Metric& m = model.metrics[metric];
  if (m.is_void || is_derived(m.kind)) return false;
  return tar_.find(member_name(m, ".index")) != nullptr &&
         tar_.find(member_name(m, ".data")) != nullptr;
}

// CubeLib reads a stored metric whose members are missing (Score-P leaves them out for metrics
// without data) as zero everywhere: its values start zeroed, not at the type's identity. Where
// the two differ (MIN/MAXDOUBLE, TAU_ATOMIC, HISTOGRAM: 0 where the identity prints "-"), such
// a metric has a zero row at every call path.
bool CubexSource::zero_without_members(const Model& model, Index metric) const {
  const Metric& m = model.metrics[metric];
  return !m.is_void && !is_derived(m.kind) && !identity_is_zero(m.dtype) &&
         !has_data(model, metric);
}

std::shared_ptr<const SeverityMatrix> CubexSource::zero_rows(const Model& model,
                                                             Index metric) const {
  const Metric& m = model.metrics[metric];
  auto matrix =
      std::make_shared<SeverityMatrix>(m.dtype, model.cnodes.size(), model.locations.size());
  matrix->reserve_rows(model.cnodes.size());
  for (Index c = 0; c < model.cnodes.size(); ++c)
    std::memset(matrix->add_row(c), 0, matrix->row_bytes());
  return matrix;
}

std::vector<std::byte> CubexSource::member_copy(const TarMember& m, uint64_t size) const {
  std::vector<std::byte> copy(std::min(size, m.size));
  if (file_->read(m.offset, copy) != copy.size())
    throw FormatError(file_->path() + ":" + m.name +
                      ": the file ends within the member (was it cut short while read?)");
  return copy;
}

ReadMember CubexSource::plain_reader(const TarMember& data, const std::string& where) const {
  // The marker is read, not looked at through the map: a file cut short since it was opened
  // is an error.
  const std::vector<std::byte> head = member_copy(data, 10);
  if (head.size() < 10 || std::memcmp(head.data(), "CUBEX.DATA", 10) != 0) return {};
  return [this, &data, where](uint64_t offset, std::span<std::byte> into) {
    if (file_->read(data.offset + offset, into) != into.size())
      throw FormatError(where + ": the file ends within the rows at byte " +
                        std::to_string(offset) + " of the member (was it cut short while read?)");
  };
}

CubexSource::StoredMetric CubexSource::stored_metric(const Model& model, const Metric& m) const {
  const std::string index_name = member_name(m, ".index");
  return {decode_index(member_copy(*tar_.find(index_name)), model.cnodes.size(),
                       file_->path() + ":" + index_name),
          tar_.find(member_name(m, ".data")), file_->path() + ":" + member_name(m, ".data")};
}

std::function<void(uint64_t)> CubexSource::release_behind(const TarMember& data,
                                                          uint64_t& released) const {
  // Rows are read front to back: give back the pages behind us every 16 MiB, so that reading a
  // metric keeps about one chunk of the file resident, not the whole member.
  constexpr uint64_t kChunk = 16u << 20;
  return [this, &data, &released](uint64_t below) {
    if (below < released + kChunk) return;
    file_->release(data.offset + released, below - released);
    released = below;
  };
}

std::shared_ptr<const SeverityMatrix> CubexSource::load(const Model& model, Index metric) const {
  if (zero_without_members(model, metric)) return zero_rows(model, metric);
  if (!has_data(model, metric)) return nullptr;
  const Metric& m = model.metrics[metric];
  const StoredMetric stored = stored_metric(model, m);
  const TarMember& data = *stored.data;
  // The decoded copy is what stays in memory: the file's pages go as the rows are decoded,
  // each share of the rows giving back what lies behind it.
  const auto bytes = member_bytes(data);
  const ReadMember read = plain_reader(data, stored.data_where);
  std::mutex mutex;
  std::list<uint64_t> released;  // one counter per share, stable addresses
  const ReleaseBehind release = [&](uint64_t share_start) {
    std::lock_guard lock(mutex);
    released.push_back(share_start);
    return release_behind(data, released.back());
  };
  auto matrix = decode_data(bytes, stored.index, storage_order(model, m.kind), m.dtype,
                            row_values(model), stored.data_where, release, available_threads(),
                            uint64_t{64} << 20, columns_, read);
  file_->release(data.offset, data.size);
  return matrix;
}

std::optional<std::string> CubexSource::member_content(const std::string& name) const {
  const TarMember* m = tar_.find(name);
  if (m == nullptr) return std::nullopt;
  const auto bytes = member_bytes(*m);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void CubexSource::visit_rows(const Model& model, Index metric, const RowVisitor& visit,
                             RowPlacement placement, RowShare share) const {
  stream_rows(model, metric, visit, nullptr, placement, share);
}

void CubexSource::visit_row_runs(const Model& model, Index metric, const RowRunVisitor& visit,
                                 RowPlacement placement, RowShare share) const {
  stream_rows(
      model, metric, [&](Index c, const std::byte* row) { visit(&c, 1, row, 0); }, &visit,
      placement, share);
}

void CubexSource::stream_rows(const Model& model, Index metric, const RowVisitor& visit,
                              const RowRunVisitor* runs, RowPlacement placement,
                              RowShare share) const {
  if (zero_without_members(model, metric)) {
    visit_stored_rows(*zero_rows(model, metric), storage_order(model, model.metrics[metric].kind),
                      visit, share);
    return;
  }
  if (!has_data(model, metric)) return;
  const Metric& m = model.metrics[metric];
  const StoredMetric stored = stored_metric(model, m);
  const MetricIndex& index = stored.index;
  const TarMember& data = *stored.data;
  const auto bytes = member_bytes(data);
  if (const ReadMember read = plain_reader(data, stored.data_where)) {
    stream_data(bytes, index, storage_order(model, m.kind), m.dtype, row_values(model),
                stored.data_where, placement, visit, {}, share, columns_, runs, read);
    return;
  }
  // Compressed rows of several shares interleave in the member: a share of those gives its
  // pages back only at the end.
  uint64_t released = 0;
  std::function<void(uint64_t)> done_below;
  if (share.parts == 1) done_below = release_behind(data, released);
  stream_data(bytes, index, storage_order(model, m.kind), m.dtype, row_values(model),
              stored.data_where, placement, visit, done_below, share, columns_, runs);
  if (share.parts == 1) file_->release(data.offset, data.size);
}

std::shared_ptr<const SeveritySource> CubexSource::column_window(size_t first, size_t count,
                                                                 size_t columns) const {
  auto window = std::make_shared<CubexSource>(file_, tar_);
  window->window_ = true;
  window->columns_ = {first, count};
  window->columns_of_file_ = columns;
  return window;
}

std::vector<MemberInfo> CubexSource::members() const {
  std::vector<MemberInfo> out;
  for (const TarMember& m : tar_.members()) out.push_back({m.name, m.size});
  return out;
}

}  // namespace cubekit::format
