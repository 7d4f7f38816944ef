#include "cubekit/report.hpp"

#include <mutex>

#include "cubekit/error.hpp"
#include "format/anchor.hpp"
#include "format/compression.hpp"
#include "format/cube3.hpp"
#include "format/cubex_source.hpp"
#include "format/mapped_file.hpp"
#include "format/tar.hpp"

namespace cubekit {

// One slot per metric; each has its own lock so that different metrics decode in parallel.
struct Report::Cache {
  struct Slot {
    std::mutex lock;
    std::shared_ptr<const SeverityMatrix> values;
    bool loaded = false;
    int row_questions = 0;  // answered without decoding (severities_for_rows)
  };
  explicit Cache(size_t n) : slots(n) {}
  std::vector<Slot> slots;
};

Report::Report(std::string path, std::shared_ptr<const Model> model,
               std::shared_ptr<const SeveritySource> source)
    : path_(std::move(path)),
      model_(std::move(model)),
      source_(std::move(source)),
      cache_(std::make_shared<Cache>(model_->metrics.size())) {}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

bool looks_like_xml(std::span<const std::byte> bytes) {
  size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  return i < bytes.size() && bytes[i] == std::byte{'<'};
}

// Hands over the rows of `metric` from its decoded values when the cache holds them (none when
// it is known to have no data); false when the cache knows neither and the source must be read.
bool visit_decoded_rows(const Model& model, Index metric, const SeverityMatrix* decoded,
                        bool no_data, const RowVisitor& visit, RowShare share) {
  if (no_data) return true;
  if (decoded == nullptr) return false;
  visit_stored_rows(*decoded, storage_order(model, model.metrics[metric].kind), visit, share);
  return true;
}

}  // namespace

Report Report::open(const std::string& path) {
  auto file = std::make_shared<const format::MappedFile>(path);
  const auto bytes = file->bytes();
  const bool cube3_name = ends_with(path, ".cube") || ends_with(path, ".cube.gz");
  if (!format::looks_like_tar(bytes) &&
      (cube3_name || format::is_gzip(bytes) || looks_like_xml(bytes))) {
    format::Cube3Document doc = format::read_cube3(bytes, path);
    return Report(path, std::move(doc.model), std::move(doc.source));
  }
  format::TarIndex tar = format::TarIndex::scan(bytes, path);
  auto source = std::make_shared<format::CubexSource>(file, std::move(tar));
  std::string inflated;
  const std::string_view anchor = source->anchor_text(inflated);
  format::ReleaseRange release;  // a mapped anchor's pages go as the parser passes them
  if (anchor.data() != inflated.data())
    release = [&](size_t from, size_t to) { source->release_anchor(from, to); };
  auto model = std::make_shared<Model>(format::parse_anchor(anchor, path + ":anchor.xml", release));
  source->release_anchor();
  return Report(path, std::move(model), std::move(source));
}

bool Report::has_data(Index metric) const {
  return source_->has_data(*model_, metric);
}

std::shared_ptr<const SeverityMatrix> Report::severities(Index metric) const {
  if (metric >= cache_->slots.size())
    throw LookupError(path_ + ": no metric at index " + std::to_string(metric));
  Cache::Slot& slot = cache_->slots[metric];
  std::lock_guard<std::mutex> guard(slot.lock);
  if (!slot.loaded) {
    slot.values = source_->load(*model_, metric);
    slot.loaded = true;
  }
  return slot.values;
}

std::shared_ptr<const SeverityMatrix> Report::severities_for_rows(Index metric) const {
  // A viewer asks for one call path now and then; a tool walks all of them. Four streamed
  // passes cost about what one decode does.
  constexpr int kStreamedQuestions = 4;
  if (metric >= cache_->slots.size())
    throw LookupError(path_ + ": no metric at index " + std::to_string(metric));
  {
    Cache::Slot& slot = cache_->slots[metric];
    std::lock_guard<std::mutex> guard(slot.lock);
    if (!slot.loaded && slot.row_questions < kStreamedQuestions) {
      ++slot.row_questions;
      return nullptr;
    }
  }
  return severities(metric);
}

Report::CachedRows Report::cached_rows(Index metric) const {
  if (metric >= cache_->slots.size())
    throw LookupError(path_ + ": no metric at index " + std::to_string(metric));
  Cache::Slot& slot = cache_->slots[metric];
  std::lock_guard<std::mutex> guard(slot.lock);
  if (!slot.loaded) return {};
  return {slot.values, slot.values == nullptr};
}

void Report::visit_rows(Index metric, const RowVisitor& visit, RowPlacement placement,
                        RowShare share) const {
  const CachedRows cached = cached_rows(metric);
  if (!visit_decoded_rows(*model_, metric, cached.values.get(), cached.none, visit, share))
    source_->visit_rows(*model_, metric, visit, placement, share);
}

void Report::visit_row_runs(Index metric, const RowRunVisitor& visit, RowPlacement placement,
                            RowShare share) const {
  const CachedRows cached = cached_rows(metric);
  const RowVisitor one_row = [&](Index c, const std::byte* row) { visit(&c, 1, row, 0); };
  if (!visit_decoded_rows(*model_, metric, cached.values.get(), cached.none, one_row, share))
    source_->visit_row_runs(*model_, metric, visit, placement, share);
}

Report Report::column_window(size_t first, size_t count) const {
  const size_t columns = model_->locations.size();
  if (first > columns || count > columns - first)
    throw LookupError(path_ + ": columns " + std::to_string(first) + " to " +
                      std::to_string(first + count) + " asked, the report has " +
                      std::to_string(columns));
  auto source = source_->column_window(first, count, columns);
  if (source == nullptr) throw Error(path_ + ": only a .cubex report can be read by columns");
  return Report(path_, std::make_shared<const Model>(cubekit::column_window(*model_, first, count)),
                std::move(source));
}

bool Report::reads_by_columns() const {
  return source_->column_window(0, 0, 0) != nullptr;
}

void Report::drop(Index metric) const {
  if (metric >= cache_->slots.size()) return;
  Cache::Slot& slot = cache_->slots[metric];
  std::lock_guard<std::mutex> guard(slot.lock);
  slot.values.reset();
  slot.loaded = false;
}

}  // namespace cubekit
