#include "server/report_cache.hpp"

#include <chrono>
#include <system_error>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/flat_profile.hpp"
#include "server/http_error.hpp"

namespace cubekit::server {

void DecodeBudget::Claim::release() noexcept {
  if (!owner_) return;
  std::lock_guard lock(owner_->mutex_);
  owner_->in_use_ -= bytes_;
  owner_ = nullptr;
}

DecodeBudget::Claim DecodeBudget::claim(uint64_t bytes) {
  if (bytes > per_request_)
    throw HttpError(413, "the values asked for need " + std::to_string(bytes) +
                             " bytes in memory, more than the server's limit of " +
                             std::to_string(per_request_) + " per request");
  for (int attempt = 0; attempt < 2; ++attempt) {
    {
      std::lock_guard lock(mutex_);
      if (fits(bytes)) {
        in_use_ += bytes;
        return Claim(this, bytes);
      }
    }
    if (attempt == 0 && reclaim_) reclaim_();
  }
  throw HttpError(503, "the server is busy decoding other values; try again shortly");
}

std::optional<DecodeBudget::Claim> DecodeBudget::try_claim(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (!fits(bytes)) return std::nullopt;
  in_use_ += bytes;
  return Claim(this, bytes);
}

uint64_t DecodeBudget::in_use() {
  std::lock_guard lock(mutex_);
  return in_use_;
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

constexpr size_t kMaxAggregatedCached = 256;

}  // namespace

OpenReport::OpenReport(Report report, std::string name, DecodeBudget& budget)
    : report_(std::move(report)), name_(std::move(name)), budget_(budget) {}

std::shared_ptr<OpenReport::EngineSlot> OpenReport::base_slot() {
  // Built on first use: compiling a report's derived metrics is not free, and the tree alone
  // does not need it.
  if (!base_) {
    try {
      base_ = std::make_shared<EngineSlot>(std::make_shared<MetricEngine>(report_));
    } catch (const Error& e) {
      throw HttpError(422, name_ + ": " + e.what());
    }
  }
  return base_;
}

// Called with mutex_ held. A full list drops its least recently used entry that no request
// holds; when every entry is in use, the new engine serves this request alone.
std::shared_ptr<OpenReport::EngineSlot> OpenReport::expression_slot(const std::string& expression) {
  for (auto it = expression_engines_.begin(); it != expression_engines_.end(); ++it)
    if (it->first == expression) {
      expression_engines_.splice(expression_engines_.begin(), expression_engines_, it);
      return it->second;
    }
  std::shared_ptr<EngineSlot> slot;
  try {
    slot = std::make_shared<EngineSlot>(std::make_shared<MetricEngine>(
        report_, std::vector<AdHocMetric>{{"New Metric1", expression}}));
  } catch (const Error& e) {
    throw HttpError(400, "metric '" + expression +
                             "' is neither a metric of the report nor a valid CubePL "
                             "expression: " +
                             e.what());
  }
  for (auto it = expression_engines_.end();
       expression_engines_.size() >= kMaxExpressionEngines && it != expression_engines_.begin();) {
    --it;
    if (it->second.use_count() == 1) it = expression_engines_.erase(it);
  }
  if (expression_engines_.size() < kMaxExpressionEngines)
    expression_engines_.emplace_front(expression, slot);
  return slot;
}

OpenReport::Target OpenReport::target(const std::string& metric) {
  if (metric.empty()) throw HttpError(400, "parameter 'metric' is missing");
  std::lock_guard lock(mutex_);
  std::shared_ptr<EngineSlot> base = base_slot();
  if (const auto m = model().metric_by_uniq_name(metric)) return {std::move(base), *m};
  return {expression_slot(metric), static_cast<Index>(model().metrics.size())};
}

void OpenReport::drop_caches() {
  std::vector<std::shared_ptr<EngineSlot>> slots;
  {
    std::lock_guard lock(mutex_);
    aggregated_.clear();  // requests holding an answer keep it
    if (base_) slots.push_back(base_);
    for (const auto& entry : expression_engines_) slots.push_back(entry.second);
  }
  for (const auto& slot : slots) slot->drop_caches();
}

size_t OpenReport::cached_expression_engines() {
  std::lock_guard lock(mutex_);
  return expression_engines_.size();
}

void OpenReport::EngineSlot::settle(DecodeBudget& budget) {
  std::lock_guard lock(mutex);
  held.reset();
  held = budget.try_claim(engine->cached_bytes());
  if (!held) engine->forget_derived_values();
}

void OpenReport::EngineSlot::drop_caches() {
  std::lock_guard lock(mutex);
  held.reset();
  engine->forget_derived_values();
}

std::string OpenReport::metric_name(const std::string& metric) {
  const Target t = target(metric);
  return t.engine().metric(t.metric).uniq_name;
}

// What decoding a metric costs: one value per call path and location. Derived metrics are
// evaluated as doubles from their operands; counted as two such matrices (an estimate).
uint64_t OpenReport::decode_bytes(const Target& t) {
  const Metric& m = t.engine().metric(t.metric);
  const uint64_t cells = uint64_t{model().cnodes.size()} * model().locations.size();
  return is_derived(m.kind) ? cells * 16 : cells * m.dtype.memory_size();
}

std::optional<DecodeBudget::Claim> OpenReport::claim_for(Claimant who, uint64_t bytes) {
  if (who == Claimant::kRequest) return budget_.claim(bytes);
  return budget_.try_claim(bytes);
}

DecodeBudget::Claim OpenReport::claim_cells(uint64_t matrices) {
  const uint64_t cells = uint64_t{model().cnodes.size()} * model().locations.size();
  return budget_.claim(matrices * cells * sizeof(double));
}

// A request computing the same answer now (a viewer's click asks for one metric in several
// requests at once) is waited for instead of decoding the metric a second time beside it.
std::shared_ptr<const Values> OpenReport::aggregated_values(const MetricQuery& q, Claimant who) {
  const std::string key = flavour_key(q);
  std::shared_ptr<const Values> values = computing_aggregated_.get(
      mutex_, key,
      [&]() -> std::optional<std::shared_ptr<const Values>> {
        if (auto it = aggregated_.find(key); it != aggregated_.end()) return it->second.values;
        return std::nullopt;
      },
      [&] { return decode_aggregated(q, who); },
      [&](Decoded decoded) {
        if (!decoded.held) return decoded.values;  // not kept (or not decoded): budget needed
        if (aggregated_.size() >= kMaxAggregatedCached) aggregated_.clear();  // holders keep theirs
        aggregated_.emplace(key, CachedAnswer{decoded.values, std::move(*decoded.held)});
        return decoded.values;
      });
  // A preparation the budget refused answers nothing: a request that waited for it decodes.
  if (!values && who == Claimant::kRequest) return aggregated_values(q, who);
  return values;
}

bool OpenReport::prepare_aggregated(const MetricQuery& q) {
  return aggregated_values(q, Claimant::kPreparation) != nullptr;
}

bool OpenReport::has_aggregated(const MetricQuery& q) {
  std::lock_guard lock(mutex_);
  return aggregated_.count(flavour_key(q)) != 0;
}

// Decodes and aggregates one answer, with the budget's claim to keep it if the budget allows.
OpenReport::Decoded OpenReport::decode_aggregated(const MetricQuery& q, Claimant who) {
  const Target t = target(q.metric);
  std::shared_ptr<const Values> values;
  {
    const std::optional<DecodeBudget::Claim> claimed = claim_for(who, decode_bytes(t));
    if (!claimed) return {};
    values = std::make_shared<const Values>(
        t.engine().aggregated_values(t.metric, q.metric_flavour, q.call_flavour));
  }
  t.slot->settle(budget_);
  std::optional<DecodeBudget::Claim> held =
      budget_.try_claim(uint64_t{values->size()} * values->stride());
  return {std::move(values), std::move(held)};
}

std::shared_ptr<const std::vector<double>> OpenReport::aggregated(const MetricQuery& q) {
  return std::make_shared<const std::vector<double>>(as_doubles(*aggregated_values(q)));
}

std::vector<double> OpenReport::per_location(const MetricQuery& q, Index cnode) {
  const Target t = target(q.metric);
  std::vector<double> out;
  {
    const DecodeBudget::Claim claimed = budget_.claim(decode_bytes(t));
    out = as_doubles(t.engine().location_values(t.metric, cnode, q.metric_flavour, q.call_flavour));
  }
  t.slot->settle(budget_);
  return out;
}

namespace {

// Each call path's label and the call path of each (caller, label) (OpenReport::region_paths()).
std::shared_ptr<const OpenReport::RegionPaths> build_region_paths(const Model& m) {
  auto paths = std::make_shared<OpenReport::RegionPaths>();
  paths->label.resize(m.cnodes.size());
  std::unordered_map<std::string_view, int> seen;
  auto name_children = [&](const std::vector<Index>& kids) {
    seen.clear();
    for (Index k : kids) {
      const std::string& name = m.regions[m.cnodes[k].region].name;
      const int n = kids.size() > 1 ? ++seen[name] : 1;
      paths->label[k] = n > 1 ? name + "#" + std::to_string(n) : name;
    }
  };
  name_children(m.cnode_roots());
  for (Index c = 0; c < m.cnodes.size(); ++c) name_children(m.cnodes[c].children);
  paths->cnode_of.reserve(m.cnodes.size());
  for (Index c = 0; c < m.cnodes.size(); ++c)
    paths->cnode_of.emplace(OpenReport::RegionPaths::Step{m.cnodes[c].parent, paths->label[c]}, c);
  return paths;
}

}  // namespace

// Computed once, the others (the background thread, requests) waiting for its result.
std::shared_ptr<const FlatProfileShape> OpenReport::flat_profile_shape() {
  return flat_profile_shape_.get([&] {
    std::optional<FlatProfileShape> computed =
        cubekit::flat_profile_shape(model(), kMaxFlatShapeEntries);
    std::shared_ptr<const FlatProfileShape> shape;
    if (computed) shape = std::make_shared<const FlatProfileShape>(std::move(*computed));
    return shape;
  });
}

// A few MB for 100,000 call paths, outside the decode budget like the model itself.
std::shared_ptr<const CallGraphShape> OpenReport::call_graph_shape() {
  return call_graph_shape_.get(
      [&] { return std::make_shared<const CallGraphShape>(cubekit::call_graph_shape(model())); });
}

std::string OpenReport::RegionPaths::path(const Model& model, Index cnode) const {
  std::vector<Index> steps;  // the call path, its caller, ..., its root
  for (Index c = cnode; c != kNoIndex; c = model.cnodes[c].parent) steps.push_back(c);
  std::string text;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    text.append(it == steps.rbegin() ? "" : "/").append(label[*it]);
  return text;
}

std::shared_ptr<const OpenReport::RegionPaths> OpenReport::region_paths() {
  return region_paths_.get([&] { return build_region_paths(model()); });
}

namespace {

// Work done in advance runs 5 below the server's own priority (this thread only), so that
// requests come first.
void lower_this_threads_priority() {
#ifdef __linux__
  const auto thread = static_cast<id_t>(syscall(SYS_gettid));
  setpriority(PRIO_PROCESS, thread, std::min(getpriority(PRIO_PROCESS, thread) + 5, 19));
#endif
}

}  // namespace

void OpenReport::start_background_work() {
  std::call_once(background_started_, [this] {
    background_work_ = std::async(std::launch::async, [this] {
      lower_this_threads_priority();
      // What cannot be computed is an error for the request that asks for it, not here.
      try {
        call_graph_shape();
        flat_profile_shape();
        region_paths();
      } catch (const std::exception&) {
      }
      try {
        pop(first_root_pop_question(model()), Claimant::kPreparation);
      } catch (const std::exception&) {
      }
    });
  });
}

bool OpenReport::has_call_graph_shape() {
  return call_graph_shape_.peek().has_value();
}

namespace {

// How `ours` call paths (of `model`) match `theirs` by region path (OpenReport::matching()):
// step by step from the roots, a call path's partner the one below its caller's partner with
// the same label.
std::shared_ptr<const OpenReport::Matching> match(
    const Model& model, const OpenReport::RegionPaths& ours,
    std::shared_ptr<const OpenReport::RegionPaths> theirs) {
  auto m = std::make_shared<OpenReport::Matching>();
  m->in_other.assign(ours.label.size(), kNoIndex);
  std::vector<bool> matched(theirs->label.size());
  for (Index c : pre_order(model)) {  // a caller's partner is known before its callees'
    const Index caller = model.cnodes[c].parent;
    if (caller != kNoIndex && m->in_other[caller] == kNoIndex) continue;
    const Index their_caller = caller == kNoIndex ? kNoIndex : m->in_other[caller];
    if (const auto it = theirs->cnode_of.find({their_caller, ours.label[c]});
        it != theirs->cnode_of.end()) {
      m->in_other[c] = it->second;
      matched[it->second] = true;
    }
  }
  for (Index c = 0; c < matched.size(); ++c)
    if (!matched[c]) m->only_in_other.push_back(c);
  m->other_paths = std::move(theirs);
  return m;
}

}  // namespace

// Computed outside mutex_; requests asking at once wait for the first one's. The key, the
// other's region paths, stays alive while its matching is computed (`theirs` holds it).
std::shared_ptr<const OpenReport::Matching> OpenReport::matching(OpenReport& other) {
  const std::shared_ptr<const RegionPaths> theirs = other.region_paths();
  return computing_matching_.get(
      mutex_, theirs.get(),
      [&]() -> std::optional<std::shared_ptr<const Matching>> {
        for (auto it = matchings_.begin(); it != matchings_.end(); ++it)
          if ((*it)->other_paths == theirs) {
            matchings_.splice(matchings_.begin(), matchings_, it);
            return matchings_.front();
          }
        return std::nullopt;
      },
      [&] { return match(model(), *region_paths(), theirs); },
      [&](std::shared_ptr<const Matching> m) {
        matchings_.push_front(m);
        if (matchings_.size() > kMaxMatchingsKept) matchings_.pop_back();
        return m;
      });
}

bool OpenReport::has_matching(OpenReport& other) {
  const std::optional<std::shared_ptr<const RegionPaths>> theirs = other.region_paths_.peek();
  if (!theirs) return false;
  std::lock_guard lock(mutex_);
  for (const auto& kept : matchings_)
    if (kept->other_paths == *theirs) return true;
  return false;
}

namespace {

// The key of a POP question of one report.
std::string pop_key(const PopOptions& o) {
  std::string key = std::to_string(static_cast<int>(o.model)) + (o.individually ? "i" : "t");
  for (const std::string& item : o.focus) key += "," + item;
  return key;
}

}  // namespace

PopOptions first_root_pop_question(const Model& model) {
  PopOptions options;
  for (const Cnode& c : model.cnodes)
    if (c.parent == kNoIndex) {
      options.focus = {std::to_string(c.id)};
      break;
    }
  return options;
}

bool OpenReport::has_pop(const PopOptions& options) {
  std::lock_guard lock(mutex_);
  return pop_kept_.count(pop_key(options)) != 0;
}

std::shared_ptr<const std::vector<PopResult>> OpenReport::pop(const PopOptions& options) {
  return pop(options, Claimant::kRequest);
}

// Computed as aggregated_values() is: once, the others asking meanwhile wait for its answer.
OpenReport::PopAnswer OpenReport::pop(const PopOptions& options, Claimant who) {
  const std::string key = pop_key(options);
  PopAnswer answer = computing_pop_.get(
      mutex_, key,
      [&]() -> std::optional<PopAnswer> {
        if (auto it = pop_kept_.find(key); it != pop_kept_.end()) return it->second;
        return std::nullopt;
      },
      [&]() -> PopAnswer {
        const uint64_t cells = uint64_t{model().cnodes.size()} * model().locations.size();
        // Time per location and call path.
        const auto claimed = claim_for(who, 2 * cells * sizeof(double));
        if (!claimed) return nullptr;  // a preparation the budget refused
        return std::make_shared<const std::vector<PopResult>>(pop_metrics({&report_}, options));
      },
      [&](PopAnswer computed) {
        if (!computed) return computed;
        if (pop_kept_.size() >= kMaxPopKept) pop_kept_.clear();  // holders keep theirs
        pop_kept_.emplace(key, computed);
        return computed;
      });
  if (!answer && who == Claimant::kRequest) return pop(options, who);  // as aggregated_values()
  return answer;
}

// From the call paths' exclusive values, which the call tree view has usually asked for already.
OpenReport::RegionValues OpenReport::flat(const MetricQuery& q) {
  MetricQuery exclusive = q;
  exclusive.call_flavour = Flavour::kExclusive;
  const std::shared_ptr<const Values> values = aggregated_values(exclusive);
  const std::shared_ptr<const FlatProfileShape> shape = flat_profile_shape();
  const FlatProfile p =
      shape ? flat_profile(model(), *shape, *values) : flat_profile(model(), *values);
  Values inclusive = p.exclusive;
  plus_rows(inclusive.type(), inclusive.data(), p.subroutines.data(), inclusive.size());
  return {as_doubles(p.exclusive), as_doubles(p.subroutines), as_doubles(inclusive), p.no_exclusive,
          p.no_subroutines};
}

// The file is opened outside the lock: a report being opened (170 ms for 100,000 call paths)
// does not hold up the requests for the reports already open; those asking for the same file
// meanwhile wait for it (its error, if any, is theirs too).
std::shared_ptr<OpenReport> ReportCache::get(const std::filesystem::path& file,
                                             const std::string& name, bool start_background) {
  std::shared_ptr<OpenReport> report = opening_.get(
      mutex_, file,
      [&]() -> std::optional<std::shared_ptr<OpenReport>> {
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
          if (it->file == file) {
            entries_.splice(entries_.begin(), entries_, it);
            return it->report;
          }
        return std::nullopt;
      },
      [&] { return open(file, name); },
      [&](Entry opened) {
        std::shared_ptr<OpenReport> report = opened.report;
        add(std::move(opened));
        return report;
      });
  // Here, not when opened: a report prepare_diff() opened starts it when a request asks for it.
  if (start_background) report->start_background_work();
  return report;
}

ReportCache::Entry ReportCache::open(const std::filesystem::path& file, const std::string& name) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  std::shared_ptr<OpenReport> report;
  try {
    report = std::make_shared<OpenReport>(Report::open(file.string()), name, budget_);
  } catch (const Error& e) {
    throw HttpError(422, replace_all(e.what(), file.string(), name));
  }
  return {file, ec ? 0 : size, std::move(report)};
}

// Requests still holding an evicted report keep it alive until they finish.
void ReportCache::add(Entry entry) {
  entries_.push_front(std::move(entry));
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
}

std::shared_ptr<OpenReport> ReportCache::open_if_it_fits(const std::filesystem::path& file,
                                                         const std::string& name) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  const auto open_size = [&] {  // under mutex_
    uint64_t total = 0;
    for (const Entry& e : entries_) total += e.size;
    return total;
  };
  const auto find = [&]() -> std::optional<std::shared_ptr<OpenReport>> {
    for (const Entry& e : entries_)
      if (e.file == file) return e.report;  // as it stands: preparing is no use of it
    return std::nullopt;
  };
  {
    std::lock_guard lock(mutex_);
    if (auto open = find()) return *open;
    if (!ec && open_size() + size > capacity_) return nullptr;
  }
  return opening_.get(
      mutex_, file, find, [&] { return open(file, name); },
      [&](Entry opened) {
        std::shared_ptr<OpenReport> report = opened.report;
        if (open_size() + opened.size <= capacity_) entries_.push_back(std::move(opened));
        return report;
      });
}

bool ReportCache::prepare_diff(std::shared_ptr<OpenReport> a, const std::filesystem::path& file,
                               const std::string& name, const MetricQuery& q) {
  std::lock_guard lock(mutex_);
  if (preparing_.valid() &&
      preparing_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return false;
  preparing_ = std::async(std::launch::async, [this, a = std::move(a), file, name, q] {
                 lower_this_threads_priority();
                 try {
                   const std::shared_ptr<OpenReport> b = open_if_it_fits(file, name);
                   if (!b) return;
                   // A's values last: the clicks right after the first paint ask A's engine,
                   // which a decode of this thread (5 nicer) would hold meanwhile.
                   b->prepare_aggregated(q);
                   a->matching(*b);
                   a->prepare_aggregated(q);
                 } catch (const std::exception&) {
                 }
               }).share();
  return true;
}

void ReportCache::wait_for_preparation() {
  std::shared_future<void> running;
  {
    std::lock_guard lock(mutex_);
    running = preparing_;
  }
  if (running.valid()) running.wait();
}

bool ReportCache::holds(const std::filesystem::path& file) {
  std::lock_guard lock(mutex_);
  for (const Entry& e : entries_)
    if (e.file == file) return true;
  return false;
}

void ReportCache::drop_caches() {
  std::vector<std::shared_ptr<OpenReport>> reports;
  {
    std::lock_guard lock(mutex_);
    for (const Entry& e : entries_) reports.push_back(e.report);
  }
  for (const auto& r : reports) r->drop_caches();
}

}  // namespace cubekit::server
