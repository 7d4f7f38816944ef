// Reports the server has open: each opened on its first request, kept while the sizes of the
// open files fit the cache, closed least recently used first. Also bounds what one request may
// decode (413) and what all requests decode together (503).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/computed_once.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/call_graph.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/flat_profile.hpp"
#include "cubekit/pop.hpp"
#include "cubekit/report.hpp"

namespace cubekit::server {

// What a values question names: a metric by unique name or as a CubePL expression, and the
// metric-tree and call-tree flavours.
struct MetricQuery {
  std::string metric;
  Flavour metric_flavour = Flavour::kInclusive;
  Flavour call_flavour = Flavour::kInclusive;
};

// Memory that requests decoding values hold at the same time, and what caches keep between
// requests. A request's claim comes first: when it does not fit, the caches are asked to give
// theirs back (the reclaimer) before the request is refused.
class DecodeBudget {
 public:
  DecodeBudget(uint64_t per_request, uint64_t total) : per_request_(per_request), total_(total) {}
  class Claim {
   public:
    Claim(DecodeBudget* owner, uint64_t bytes) : owner_(owner), bytes_(bytes) {}
    Claim(Claim&& other) noexcept : owner_(other.owner_), bytes_(other.bytes_) {
      other.owner_ = nullptr;
    }
    Claim& operator=(Claim&& other) noexcept {
      if (this != &other) {
        release();
        owner_ = std::exchange(other.owner_, nullptr);
        bytes_ = other.bytes_;
      }
      return *this;
    }
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim() { release(); }

   private:
    void release() noexcept;
    DecodeBudget* owner_;
    uint64_t bytes_;
  };
  // HttpError 413 above the per-request limit, 503 when the total is in use.
  Claim claim(uint64_t bytes);
  // For memory that caches keep between requests: nothing when the total would be exceeded
  // (the cache then does without), never an error.
  std::optional<Claim> try_claim(uint64_t bytes);
  uint64_t in_use();
  // Called (without the budget's lock) when a request's claim does not fit; it drops cached
  // memory, whose claims then go back, and the claim is tried once more.
  void set_reclaimer(std::function<void()> reclaim) { reclaim_ = std::move(reclaim); }

 private:
  bool fits(uint64_t bytes) const { return bytes <= total_ - std::min(total_, in_use_); }

  uint64_t per_request_, total_, in_use_ = 0;
  std::mutex mutex_;
  std::function<void()> reclaim_;
};

// One open report, its metric engines and the aggregated values already asked for.
//
// Ownership: requests may run on one OpenReport at once. Everything they share (the engines,
// cached answers) is handed out as shared_ptr, so a cache may drop an entry while a request
// still uses it; the memory goes when the last user is done. Memory the caches keep between
// requests (engines' cached rows, cached answers) holds a claim on the decode budget, and is
// not kept when the budget cannot hold it.
class OpenReport {
 public:
  OpenReport(Report report, std::string name, DecodeBudget& budget);
  const Model& model() const { return report_.model(); }
  const std::string& name() const { return name_; }  // relative path, for messages

  // One value per cnode (indexed like Model::cnodes), summed over all locations; cached.
  std::shared_ptr<const std::vector<double>> aggregated(const MetricQuery& q);
  // Decodes aggregated(q) in advance and keeps it, only with memory the budget has free
  // (try_claim): false when the budget refuses (not prepared, never an error of a request).
  bool prepare_aggregated(const MetricQuery& q);
  // Whether aggregated(q) is kept.
  bool has_aggregated(const MetricQuery& q);
  // One value per location (indexed by location id) for one cnode.
  std::vector<double> per_location(const MetricQuery& q, Index cnode);
  // Flat profile: per region (indexed like Model::regions) the exclusive and inclusive values
  // (cubekit/flat_profile.hpp).
  // `inclusive` is exclusive ⊕ subroutines in the metric's own sense (the larger of the two for
  // a MAXDOUBLE metric, not the sum). Where a region has no value (cubekit/flat_profile.hpp:
  // nothing adds to it, of a type such as MIN/MAXDOUBLE), its no_* flag is set and the number
  // is the empty ⊕ (±DBL_MAX), which no answer may show as a measurement.
  struct RegionValues {
    std::vector<double> exclusive, subroutines, inclusive;
    std::vector<bool> no_exclusive, no_subroutines;
  };
  RegionValues flat(const MetricQuery& q);
  // The call graph's regions and calls (cubekit/call_graph.hpp), the same for every metric:
  // computed on first use and kept.
  std::shared_ptr<const CallGraphShape> call_graph_shape();
  // What adds to each region's subroutines in a flat profile (cubekit/flat_profile.hpp), the
  // same for every metric: computed on first use and kept when it holds at most
  // kMaxFlatShapeEntries call paths (null: larger, each flat profile finds its own).
  std::shared_ptr<const FlatProfileShape> flat_profile_shape();
  // Each call path's region path ("main/foo/bar", a region met twice below one parent "#2",
  // "#3", ...: unique): how /diff matches the call paths of two reports. Held as each call
  // path's last step, its label, and the call path of each (caller, label): the paths
  // themselves grow as the square of the depth (a recursion 100,000 calls deep: 20 GB).
  // Computed on first use and kept (a diff of 100,000 call paths asked for again for each few
  // rows of a viewer).
  struct RegionPaths {
    struct Step {
      Index caller;  // kNoIndex: a root
      std::string_view label;
      bool operator==(const Step&) const = default;
    };
    struct StepHash {
      size_t operator()(const Step& s) const {
        return std::hash<std::string_view>()(s.label) ^ (size_t{s.caller} * 0x9e3779b97f4a7c15u);
      }
    };
    std::vector<std::string> label;                      // by call path
    std::unordered_map<Step, Index, StepHash> cnode_of;  // views of label
    // "main/foo/bar" of call path `cnode` of `model` (the model the labels were made of).
    std::string path(const Model& model, Index cnode) const;
  };
  std::shared_ptr<const RegionPaths> region_paths();
  // How this report's call paths match another's by region path (/diff): for each call path of
  // this one, the other's call path of the same path (kNoIndex: none), and the other's call
  // paths that none of this one's matches, in order. Kept for the last kMaxMatchingsKept other
  // reports (a diff tab compares with one report again and again: 100,000 hash look-ups of
  // long paths per question otherwise), each with the other's region paths it was made from.
  struct Matching {
    std::shared_ptr<const RegionPaths> other_paths;
    std::vector<Index> in_other;
    std::vector<Index> only_in_other;
  };
  std::shared_ptr<const Matching> matching(OpenReport& other);
  // Whether the matching with `other` (as it is now) is kept.
  bool has_matching(OpenReport& other);
  // POP metrics (cubekit/pop.hpp) of this report alone for one question (model, focus,
  // individually), kept (at most kMaxPopKept questions, a few hundred bytes each): the viewer's
  // POP tab asks the same question at each visit of a call path, and one for the whole tree of
  // 100,000 call paths takes 70-120 ms. Requests asking one at once compute it once. Throws
  // cubekit::Error as pop_metrics does (not kept).
  std::shared_ptr<const std::vector<PopResult>> pop(const PopOptions& options);
  // Starts, on a thread of its own, call_graph_shape(), flat_profile_shape(), region_paths()
  // and then pop() of the
  // MPI model at the first call-tree root (the question of the viewer's POP tab with the first
  // call path selected; decoded only with memory the budget has free, try_claim): the viewer asks
  // for them in clicks soon after the report opens (the shape: 12 ms of CPU for 100,000 call paths,
  // 60-140 ms of that click under load; the flat profile's: 70 % of a flat profile's 40-100 ms; the
  // region paths: most of a first /diff's 165 ms; POP: 120 ms), and the report's first paint leaves
  // a core idle meanwhile. The thread runs at a lower priority (5 nicer than the server) so that
  // requests come first. Started once (ReportCache::get() asks, /diff's report B and
  // prepare_diff() do not: a partner needs none of it until the user opens it).
  void start_background_work();
  // Whether call_graph_shape() has been computed (and is kept).
  bool has_call_graph_shape();
  // Whether pop(options) is kept.
  bool has_pop(const PopOptions& options);
  // Display name of the metric a query names (the expression itself for expressions).
  std::string metric_name(const std::string& metric);
  // The report itself, for library calls that take reports (POP metrics); whoever decodes
  // through it claims the budget first (claim_cells).
  const Report& report() const { return report_; }
  // Claims the decode budget for `matrices` matrices of doubles of this report's size.
  DecodeBudget::Claim claim_cells(uint64_t matrices);
  // Expression engines kept for later requests (at most kMaxExpressionEngines).
  size_t cached_expression_engines();
  // Gives back what the caches hold between requests (cached answers, engines' rows); the
  // engines themselves stay, as compiling them again costs more than they hold.
  void drop_caches();

  static constexpr size_t kMaxExpressionEngines = 16;
  static constexpr size_t kMaxPopKept = 64;
  static constexpr size_t kMaxMatchingsKept = 4;
  static constexpr size_t kMaxFlatShapeEntries = size_t{8} << 20;  // 32 MiB of call paths

 private:
  // An engine and the budget its caches hold between requests.
  struct EngineSlot {
    explicit EngineSlot(std::shared_ptr<MetricEngine> e) : engine(std::move(e)) {}
    std::shared_ptr<MetricEngine> engine;
    std::mutex mutex;  // guards held
    std::optional<DecodeBudget::Claim> held;
    // After a request used the engine: its caches hold a claim on the budget, or are dropped.
    void settle(DecodeBudget& budget);
    // The caches go and their claim returns (the budget's reclaimer).
    void drop_caches();
  };
  struct Target {
    std::shared_ptr<EngineSlot> slot;  // keeps the engine alive while the request uses it
    Index metric;
    MetricEngine& engine() const { return *slot->engine; }
  };
  struct CachedAnswer {
    std::shared_ptr<const Values> values;
    DecodeBudget::Claim held;
  };
  Target target(const std::string& metric);  // HttpError 400 for a bad expression
  std::shared_ptr<EngineSlot> expression_slot(const std::string& expression);
  // Who decodes: a request claims the budget (413, 503, the caches asked to give theirs back);
  // a preparation in advance takes only memory that is free and does without otherwise (its
  // result is then null, and a request that waited for it decodes itself).
  enum class Claimant { kRequest, kPreparation };
  std::optional<DecodeBudget::Claim> claim_for(Claimant who, uint64_t bytes);
  // aggregated() as the engine gives it (typed), cached: what is derived from it (the flat
  // profile) then does not wait for the engine while it decodes something else.
  // Requests asking for one answer at once compute it once.
  std::shared_ptr<const Values> aggregated_values(const MetricQuery& q,
                                                  Claimant who = Claimant::kRequest);
  // One answer decoded, with the budget's claim to keep it (none: the budget is needed
  // elsewhere, not kept).
  struct Decoded {
    std::shared_ptr<const Values> values;
    std::optional<DecodeBudget::Claim> held;
  };
  Decoded decode_aggregated(const MetricQuery& q, Claimant who);
  uint64_t decode_bytes(const Target& t);
  using PopAnswer = std::shared_ptr<const std::vector<PopResult>>;
  PopAnswer pop(const PopOptions& options, Claimant who);
  std::shared_ptr<EngineSlot> base_slot();

  Report report_;
  std::string name_;
  DecodeBudget& budget_;
  // What one request (or the background thread) computes while the others asking for it wait
  // for its result instead of computing it beside it (on a loaded machine, the background
  // thread, the diff tab's preparation and its click would each build the paths).
  core::OnceValue<std::shared_ptr<const CallGraphShape>> call_graph_shape_;
  core::OnceValue<std::shared_ptr<const FlatProfileShape>> flat_profile_shape_;  // null: large
  core::OnceValue<std::shared_ptr<const RegionPaths>> region_paths_;
  std::mutex mutex_;  // guards the members below, not the engines (they lock themselves)
  std::shared_ptr<EngineSlot> base_;
  // Engines of CubePL expressions, most recently used first; an entry is dropped only when no
  // request holds its slot.
  std::list<std::pair<std::string, std::shared_ptr<EngineSlot>>> expression_engines_;
  std::map<std::string, CachedAnswer> aggregated_;
  core::KeyedOnce<std::string, std::shared_ptr<const Values>> computing_aggregated_;
  // Most recently used first; by the other report's region paths (a reopened report has new
  // ones, so an entry never answers for another file's call paths).
  std::list<std::shared_ptr<const Matching>> matchings_;
  core::KeyedOnce<const RegionPaths*, std::shared_ptr<const Matching>> computing_matching_;
  std::map<std::string, PopAnswer> pop_kept_;
  core::KeyedOnce<std::string, PopAnswer> computing_pop_;
  // Declared last, so destroyed first: waits for the thread, which uses the members above.
  std::once_flag background_started_;
  std::future<void> background_work_;
};

// The question start_background_work() asks pop() in advance: the MPI model, the focus the
// id of the first call-tree root (as the viewer's POP tab asks with that call path selected).
PopOptions first_root_pop_question(const Model& model);

class ReportCache {
 public:
  ReportCache(uint64_t capacity_bytes, DecodeBudget& budget)
      : capacity_(capacity_bytes), budget_(budget) {}
  // The open report of a resolved file, opened now if needed. Library errors about the file
  // become HttpError 422 with the message (naming `name`, the path relative to the root).
  // Starts the report's background work (OpenReport::start_background_work) unless told not
  // to: /diff's report B needs none of it (its region paths it computes itself).
  std::shared_ptr<OpenReport> get(const std::filesystem::path& file, const std::string& name,
                                  bool start_background = true);
  // Every open report drops its caches (the decode budget's reclaimer).
  void drop_caches();
  // Prepares in advance, on a thread of its own (5 nicer than the server), what /diff of `a`
  // with the report `file` asks for: opens it, only when it fits the capacity beside the
  // reports open (it never closes one, `a` included), decodes both reports' aggregated(q) with
  // memory the budget has free, and matches their call paths. The viewer asks it when a report
  // opens, for the report it most likely compares with. One preparation at a time: false when
  // one is still running (nothing started). Its errors are no one's: a request asking for the
  // same later gets them.
  bool prepare_diff(std::shared_ptr<OpenReport> a, const std::filesystem::path& file,
                    const std::string& name, const MetricQuery& q);
  // Waits for the preparation running, if any (tests).
  void wait_for_preparation();
  // Whether the report of `file` is open (kept in the cache).
  bool holds(const std::filesystem::path& file);

 private:
  struct Entry {
    std::filesystem::path file;
    uint64_t size;
    std::shared_ptr<OpenReport> report;
  };
  // Opens the file (outside the lock; get() waits for no other then).
  Entry open(const std::filesystem::path& file, const std::string& name);
  // The report of `file` as prepare_diff() opens it: null when it does not fit beside the open
  // reports. Kept as the least recently used (the first to go), not making room.
  std::shared_ptr<OpenReport> open_if_it_fits(const std::filesystem::path& file,
                                              const std::string& name);
  // Adds an opened report as the most recently used, closing the least recently used ones
  // beyond the capacity (under mutex_).
  void add(Entry entry);
  uint64_t capacity_;
  DecodeBudget& budget_;
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  // Files being opened, by whoever asked first: what the others asking meanwhile wait for.
  core::KeyedOnce<std::filesystem::path, std::shared_ptr<OpenReport>> opening_;
  // Declared last, so destroyed first: waits for the thread, which uses the members above.
  std::shared_future<void> preparing_;  // guarded by mutex_
};

}  // namespace cubekit::server
