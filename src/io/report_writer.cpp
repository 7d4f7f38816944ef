#include <cstring>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/writer.hpp"
#include "format/anchor_writer.hpp"
#include "format/byte_order.hpp"
#include "format/compression.hpp"
#include "format/mapped_file.hpp"
#include "format/metric_data.hpp"
#include "format/tar_writer.hpp"

namespace cubekit {

namespace {

constexpr std::string_view kDataMarker = "CUBEX.DATA";
constexpr std::string_view kZDataMarker = "ZCUBEX.DATA";

std::string member_stem(const Metric& m) {
  return (m.ghost ? "ghost_" : "") + std::to_string(m.id);
}

}  // namespace

struct ReportWriter::State {
  std::shared_ptr<const Model> model;
  WriteOptions options;
  format::TarWriter tar;
  // Position of each cnode in the two row orders.
  std::vector<uint32_t> pre_position, children_first_position;
  // The metric being written.
  Index metric = kNoIndex;
  DataType type;
  size_t disk_row = 0;
  const std::vector<uint32_t>* position = nullptr;
  std::vector<uint32_t> positions;  // rows written, ascending
  std::vector<uint64_t> sub_index;  // ZCUBEX: 3 words per position
  std::vector<std::byte> disk, identity, packed;

  State(std::string path, std::shared_ptr<const Model> m, WriteOptions o)
      : model(std::move(m)), options(o), tar(std::move(path), o.mtime) {}
  void finish_sub_index();
};

// The sub-index as CubeLib's writer leaves it (cube-format.md §6.3): one entry per stored row,
// entry k with start_uncompressed = k · row size, right before the blocks. Room was reserved for
// every cnode; the unused entries are cut out, which moves the blocks but not their offsets
// (start_compressed counts from the end of the sub-index). pyCubexR reads the blocks in
// sub-index order from there, ignoring start_compressed, so no gap may remain.
void ReportWriter::State::finish_sub_index() {
  const uint64_t rows = positions.size();
  for (uint64_t k = 0; k < rows; ++k) sub_index[3 * k] = k * disk_row;
  std::byte count[8];
  format::store<uint64_t>(count, rows, format::kHostOrder);  // host order, like the probe
  tar.patch(11, count, 8);
  tar.patch(19, sub_index.data(), rows * 3 * 8);
  tar.erase(19 + rows * 24, (sub_index.size() / 3 - rows) * 24);
}

namespace {

std::vector<uint32_t> inverse(const std::vector<Index>& order) {
  std::vector<uint32_t> pos(order.size());
  for (uint32_t p = 0; p < order.size(); ++p) pos[order[p]] = p;
  return pos;
}

}  // namespace

ReportWriter::ReportWriter(std::string path, std::shared_ptr<const Model> model,
                           WriteOptions options)
    : state_(std::make_unique<State>(std::move(path), std::move(model), options)) {
  State& s = *state_;
  s.pre_position = inverse(pre_order(*s.model));
  s.children_first_position = inverse(children_first_order(*s.model));
  std::string anchor = format::anchor_xml(*s.model);
  // A member of a multiple of 512 bytes meets CubeLib's extra-zero-block rule (§2.6); one more
  // newline keeps the anchor readable by both CubeLib and standard tar readers.
  if (anchor.size() % 512 == 0) anchor.push_back('\n');
  s.tar.add("anchor.xml", anchor);
  for (uint32_t id : s.model->empty_member_metric_ids)
    for (const char* suffix : {".data", ".index"}) s.tar.add(std::to_string(id) + suffix, "");
}

ReportWriter::~ReportWriter() = default;

void ReportWriter::add_member(const std::string& name, std::string_view bytes) {
  if (state_->metric != kNoIndex)
    throw Error(state_->tar.path() + ": add_member while metric data is being written");
  // Same padding care as the anchor: a misc member of a multiple of 512 bytes would end in a
  // lone zero block for standard tar readers. Such members cannot grow, so they go as they are
  // (CubeLib reads them; GNU tar may stop there, which loses nothing after the last member).
  state_->tar.add(name, bytes);
}

void ReportWriter::begin_metric(Index metric) {
  State& s = *state_;
  const Model& model = *s.model;
  if (metric >= model.metrics.size())
    throw LookupError(s.tar.path() + ": no metric at index " + std::to_string(metric));
  const Metric& m = model.metrics[metric];
  if (is_derived(m.kind) || m.is_void)
    throw Error(s.tar.path() + ": metric '" + m.uniq_name + "' stores no data (derived or VOID)");
  s.metric = metric;
  s.type = m.dtype;
  s.disk_row = m.dtype.disk_size() * model.locations.size();
  s.position = m.kind == MetricKind::kExclusive ? &s.pre_position : &s.children_first_position;
  s.positions.clear();
  s.disk.assign(s.disk_row, std::byte{0});
  s.identity.assign(m.dtype.memory_size() * model.locations.size(), std::byte{0});
  set_identity(m.dtype, s.identity.data(), model.locations.size());
  const uint64_t rows = model.cnodes.size();
  if (s.options.compress) {
    s.sub_index.assign(rows * 3, 0);
    const uint64_t bound = format::zlib_deflate_bound(s.disk_row);
    s.packed.resize(bound);
    s.tar.begin_member(member_stem(m) + ".data", 19 + rows * 24 + rows * bound + 1);
    s.tar.append(kZDataMarker.data(), kZDataMarker.size());
    std::byte count[8];
    format::store<uint64_t>(count, rows, format::kHostOrder);
    s.tar.append(count, 8);
    std::vector<std::byte> zeros(rows * 24);
    s.tar.append(zeros.data(), zeros.size());  // sub-index, filled in at end_metric
  } else {
    s.tar.begin_member(member_stem(m) + ".data", 10 + rows * s.disk_row + 1);
    s.tar.append(kDataMarker.data(), kDataMarker.size());
  }
}

void ReportWriter::write_row(Index cnode, const std::byte* values) {
  State& s = *state_;
  if (s.metric == kNoIndex) throw Error(s.tar.path() + ": write_row outside begin/end_metric");
  if (cnode >= s.position->size())
    throw LookupError(s.tar.path() + ": no cnode at index " + std::to_string(cnode));
  const uint32_t p = (*s.position)[cnode];
  if (!s.positions.empty() && p <= s.positions.back())
    throw Error(s.tar.path() + ": metric '" + s.model->metrics[s.metric].uniq_name +
                "': rows must come in storage order (cnode " +
                std::to_string(s.model->cnodes[cnode].id) + " is out of order)");
  // A row of no locations is the identity (and memcmp must not see its null pointers).
  if (s.options.skip_identity_rows &&
      (s.identity.empty() || std::memcmp(values, s.identity.data(), s.identity.size()) == 0))
    return;
  // Rows whose memory layout is the file's go to the file as they are: no staging copy.
  const std::byte* disk = values;
  if (!format::row_layout_is_native(s.type, format::kHostOrder)) {
    format::encode_row(s.type, values, s.disk.data(), s.model->locations.size());
    disk = s.disk.data();
  }
  if (s.options.compress) {
    const size_t n = format::zlib_deflate(
        {disk, s.disk_row}, s.packed,
        s.tar.path() + ": " + member_stem(s.model->metrics[s.metric]) + ".data");
    // Entry k describes the k-th stored row, as CubeLib's reader finds it: through the sparse
    // index (cnode → k), then by start_uncompressed = k · row size.
    const uint64_t base = 19 + uint64_t{s.model->cnodes.size()} * 24;
    const size_t k = s.positions.size();
    s.sub_index[3 * k + 1] = s.tar.member_size() - base;
    s.sub_index[3 * k + 2] = n;
    s.tar.append(s.packed.data(), n);
  } else {
    s.tar.append(disk, s.disk_row);
  }
  s.positions.push_back(p);
}

void ReportWriter::end_metric() {
  State& s = *state_;
  if (s.metric == kNoIndex) throw Error(s.tar.path() + ": end_metric without begin_metric");
  const Metric& m = s.model->metrics[s.metric];
  if (s.options.compress) s.finish_sub_index();
  // A data member of a multiple of 512 bytes gets one spare byte: readers ignore bytes after the
  // last row, and no reader then meets a lone zero block (cube-format.md §2.6).
  if (s.tar.member_size() % 512 == 0) {
    const std::byte spare{0};
    s.tar.append(&spare, 1);
  }
  s.tar.end_member();
  s.tar.add(member_stem(m) + ".index", format::encode_sparse_index(s.positions));
  s.metric = kNoIndex;
}

void ReportWriter::finish() {
  if (state_->metric != kNoIndex) end_metric();
  state_->tar.finish();
}

namespace {

// Members the writer produces itself: the anchor and the data of metrics that have data.
// Everything else (misc data, members of VOID metrics, orphans) is copied byte for byte.
bool written_member(const Report& report, const std::string& name) {
  if (name == "anchor.xml") return true;
  const Model& model = report.model();
  for (Index m = 0; m < model.metrics.size(); ++m)
    for (const char* suffix : {".data", ".index"})
      if (name == member_stem(model.metrics[m]) + suffix) return report.has_data(m);
  return false;
}

}  // namespace

void write_report(const Report& report, const std::string& path, WriteOptions options) {
  write_report(report, std::make_shared<const Model>(report.model()), path, options);
}

void write_report(const Report& report, std::shared_ptr<const Model> model, const std::string& path,
                  WriteOptions options) {
  format::refuse_overwriting(report.path(), path);
  const Model& in = report.model();
  if (model->metrics.size() != in.metrics.size() || model->cnodes.size() != in.cnodes.size() ||
      model->locations.size() != in.locations.size())
    throw Error(path + ": the definitions do not fit the values of " + report.path());
  ReportWriter writer(path, model, options);
  for (const MemberInfo& member : report.members())
    if (!written_member(report, member.name))
      writer.add_member(member.name, *report.member_content(member.name));
  for (Index m = 0; m < model->metrics.size(); ++m) {
    if (!report.has_data(m)) continue;
    const auto values = report.severities(m);
    writer.begin_metric(m);
    for (Index c : storage_order(*model, model->metrics[m].kind))
      if (const std::byte* row = values->row(c)) writer.write_row(c, row);
    writer.end_metric();
    report.drop(m);
  }
  writer.finish();
}

}  // namespace cubekit
