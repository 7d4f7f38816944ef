#include "server/report_cache.hpp"

#include <system_error>

#include "cubekit/error.hpp"
#include "cubekit/flat_profile.hpp"
#include "server/http_error.hpp"

namespace cubekit::server {

DecodeBudget::Claim::~Claim() {
  if (!owner_) return;
  std::lock_guard lock(owner_->mutex_);
  owner_->in_use_ -= bytes_;
}

DecodeBudget::Claim DecodeBudget::claim(uint64_t bytes) {
  if (bytes > per_request_)
    throw HttpError(413, "the values asked for need " + std::to_string(bytes) +
                             " bytes in memory, more than the server's limit of " +
                             std::to_string(per_request_) + " per request");
  std::lock_guard lock(mutex_);
  if (in_use_ + bytes > total_)
    throw HttpError(503, "the server is busy decoding other values; try again shortly");
  in_use_ += bytes;
  return Claim(this, bytes);
}

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

// JSON numbers are doubles. A UINT64 that wrapped below zero (an exclusive value of a
// non-monotonic counter) rounds to 2^64 as a double; CubeLib's tools then print x86's
// conversion back to an integer, 0, and so does the API (docs/server.md).
std::vector<double> as_doubles(const Values& v) {
  constexpr double k2to64 = 18446744073709551616.0;
  const bool wraps = v.type().kind() == TypeKind::kUInt64;
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    out[i] = v.scalar(i);
    if (wraps && out[i] >= k2to64) out[i] = 0;
  }
  return out;
}

std::string flavour_key(const MetricQuery& q) {
  return std::string(q.metric_flavour == Flavour::kInclusive ? "i" : "e") +
         (q.call_flavour == Flavour::kInclusive ? "i" : "e") + "|" + q.metric;
}

constexpr size_t kMaxExpressionEngines = 16;
constexpr size_t kMaxAggregatedCached = 256;

}  // namespace

OpenReport::OpenReport(Report report, std::string name, DecodeBudget& budget)
    : report_(std::move(report)), name_(std::move(name)), budget_(budget) {}

MetricEngine& OpenReport::engine() {
  // Built on first use: compiling a report's derived metrics is not free, and the tree alone
  // does not need it.
  if (!engine_) {
    try {
      engine_ = std::make_unique<MetricEngine>(report_);
    } catch (const Error& e) {
      throw HttpError(422, name_ + ": " + e.what());
    }
  }
  return *engine_;
}

OpenReport::Target OpenReport::target(const std::string& metric) {
  std::lock_guard lock(mutex_);
  if (metric.empty()) throw HttpError(400, "parameter 'metric' is missing");
  MetricEngine& base = engine();
  if (const auto m = model().metric_by_uniq_name(metric)) return {&base, *m};
  auto found = expression_engines_.find(metric);
  if (found == expression_engines_.end()) {
    if (expression_engines_.size() >= kMaxExpressionEngines) expression_engines_.clear();
    try {
      auto engine = std::make_unique<MetricEngine>(
          report_, std::vector<AdHocMetric>{{"New Metric1", metric}});
      found = expression_engines_.emplace(metric, std::move(engine)).first;
    } catch (const Error& e) {
      throw HttpError(400, "metric '" + metric +
                               "' is neither a metric of the report nor a valid CubePL "
                               "expression: " +
                               e.what());
    }
  }
  return {found->second.get(), static_cast<Index>(model().metrics.size())};
}

std::string OpenReport::metric_name(const std::string& metric) {
  const Target t = target(metric);
  return t.engine->metric(t.metric).uniq_name;
}

// What decoding a metric costs: one value per call path and location. Derived metrics are
// evaluated as doubles from their operands; counted as two such matrices (an estimate).
DecodeBudget::Claim OpenReport::claim(const Target& t) {
  const Metric& m = t.engine->metric(t.metric);
  const uint64_t cells = uint64_t{model().cnodes.size()} * model().locations.size();
  const uint64_t bytes = is_derived(m.kind) ? cells * 16 : cells * m.dtype.memory_size();
  return budget_.claim(bytes);
}

DecodeBudget::Claim OpenReport::claim_cells(uint64_t matrices) {
  const uint64_t cells = uint64_t{model().cnodes.size()} * model().locations.size();
  return budget_.claim(matrices * cells * sizeof(double));
}

std::shared_ptr<const Values> OpenReport::aggregated_values(const MetricQuery& q) {
  const std::string key = flavour_key(q);
  {
    std::lock_guard lock(mutex_);
    if (auto it = aggregated_.find(key); it != aggregated_.end()) return it->second;
  }
  const Target t = target(q.metric);
  const DecodeBudget::Claim claimed = claim(t);
  auto values = std::make_shared<const Values>(
      t.engine->aggregated_values(t.metric, q.metric_flavour, q.call_flavour));
  std::lock_guard lock(mutex_);
  if (aggregated_.size() >= kMaxAggregatedCached) aggregated_.clear();
  aggregated_.emplace(key, values);
  return values;
}

// Converted on each request: one number per call path, a fraction of writing them as JSON.
std::shared_ptr<const std::vector<double>> OpenReport::aggregated(const MetricQuery& q) {
  return std::make_shared<const std::vector<double>>(as_doubles(*aggregated_values(q)));
}

std::vector<double> OpenReport::per_location(const MetricQuery& q, Index cnode) {
  const Target t = target(q.metric);
  const DecodeBudget::Claim claimed = claim(t);
  return as_doubles(t.engine->location_values(t.metric, cnode, q.metric_flavour, q.call_flavour));
}

// From the call paths' exclusive values, which the call tree view has usually asked for already.
OpenReport::RegionValues OpenReport::flat(const MetricQuery& q) {
  MetricQuery exclusive = q;
  exclusive.call_flavour = Flavour::kExclusive;
  const FlatProfile p = flat_profile(model(), *aggregated_values(exclusive));
  return {as_doubles(p.exclusive), as_doubles(p.subroutines)};
}

std::shared_ptr<OpenReport> ReportCache::get(const std::filesystem::path& file,
                                             const std::string& name) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->file == file) {
      entries_.splice(entries_.begin(), entries_, it);
      return it->report;
    }
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  std::shared_ptr<OpenReport> report;
  try {
    report = std::make_shared<OpenReport>(Report::open(file.string()), name, budget_);
  } catch (const Error& e) {
    throw HttpError(422, replace_all(e.what(), file.string(), name));
  }
  entries_.push_front({file, ec ? 0 : size, report});
  // Requests still holding an evicted report keep it alive until they finish.
  uint64_t total = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    total += it->size;
    if (it != entries_.begin() && total > capacity_) {
      total -= it->size;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return report;
}

}  // namespace cubekit::server
