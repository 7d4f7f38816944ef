#include "format/cubex_source.hpp"

#include "cubekit/error.hpp"
#include "format/compression.hpp"
#include "format/metric_data.hpp"

namespace cubekit::format {

CubexSource::CubexSource(std::shared_ptr<const MappedFile> file, TarIndex tar)
    : file_(std::move(file)), tar_(std::move(tar)) {}

std::span<const std::byte> CubexSource::member_bytes(const TarMember& m) const {
  return file_->bytes().subspan(m.offset, m.size);
}

std::string CubexSource::anchor_text() const {
  const TarMember* anchor = tar_.find("anchor.xml");
  if (anchor == nullptr)
    throw FormatError(file_->path() + ": no member 'anchor.xml' in the archive");
  const auto bytes = member_bytes(*anchor);
  if (is_gzip(bytes)) return gunzip(bytes, file_->path() + ":anchor.xml");
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
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

std::shared_ptr<const SeverityMatrix> CubexSource::load(const Model& model, Index metric) const {
  if (!has_data(model, metric)) return nullptr;
  const Metric& m = model.metrics[metric];
  const std::string index_name = member_name(m, ".index");
  const std::string data_name = member_name(m, ".data");
  const MetricIndex index = decode_index(member_bytes(*tar_.find(index_name)), model.cnodes.size(),
                                         file_->path() + ":" + index_name);
  return decode_data(member_bytes(*tar_.find(data_name)), index, storage_order(model, m.kind),
                     m.dtype, model.locations.size(), file_->path() + ":" + data_name);
}

std::optional<std::string> CubexSource::member_content(const std::string& name) const {
  const TarMember* m = tar_.find(name);
  if (m == nullptr) return std::nullopt;
  const auto bytes = member_bytes(*m);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::vector<MemberInfo> CubexSource::members() const {
  std::vector<MemberInfo> out;
  for (const TarMember& m : tar_.members()) out.push_back({m.name, m.size});
  return out;
}

}  // namespace cubekit::format
