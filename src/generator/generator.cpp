// Values of a generated profile, streamed row by row through ReportWriter.
//
// How inclusive rows are produced without holding C × L values
// ------------------------------------------------------------
// INCLUSIVE rows come parents first (children-first storage order), so the row of a cnode
// needs the sums over its whole subtree before any of that subtree has been produced. Instead
// of buffering, the exclusive values are made low-rank:
//
//   excl(c, l) = own(c) × profile[class(c)](l)
//
// own(c) is the cnode's own work (deterministic pseudo-random from the seed, heavy-tailed,
// scaled by what its region is) and class(c) one of K = 3 scopes × 4 imbalance patterns. A
// profile is an L-vector: zero outside the scope (master threads, all CPU threads, GPU
// streams), otherwise a per-rank / per-thread / per-node imbalance pattern times per-location
// noise. Then
//
//   incl(c, l) = Σ_k S_k(c) × profile[k](l),   S_k(c) = Σ own(x) over x in subtree(c), class k
//
// and S is precomputed once per cnode by one bottom-up pass (stored sparsely: only the classes
// present in the subtree, usually one or two). Memory is O(C × classes present + K × L), time
// O(rows × L × classes present); rows can be produced in any order, as the writer requires.
// incl(c) − Σ incl(children) = own(c) × profile(l) ≥ 0 up to rounding, and exactly for the
// integer PAPI counters, whose own work and profiles are integers.
//
// Everything else per (cnode, location) — visits, min/max time, bytes, the extra types — is a
// closed-form function of hash(seed, purpose, cnode, location) and of the values above.
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <numbers>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/writer.hpp"
#include "generator/generator_model.hpp"

namespace cubekit {

using generator::Definitions;
using generator::Extra;
using generator::hash;
using generator::RegionKind;
using generator::Scope;
using generator::unit;

namespace {

constexpr size_t kPatterns = 4;
constexpr size_t kClasses = generator::kScopes * kPatterns;
static_assert(kClasses <= 16, "class masks are 16 bits");
constexpr double kRunSeconds = 300;            // inclusive time of the root, master thread, about
constexpr double kWorkPerSecond = 1e6;         // integer work units per second of own time
constexpr double kInstructionsPerUnit = 2000;  // ≈ 2 GIPS for a profile of 1
constexpr uint64_t kMostVisits = 100'000'000;
constexpr int64_t kTimeStamp = 1'577'836'800;  // 2020-01-01, for every archive member

// Purposes, so that each quantity draws from its own stream.
enum Purpose : uint64_t {
  kOwnTime = 1,
  kClass,
  kVisitFactor,
  kVisitNoise,
  kLocationNoise,
  kNodeSpeed,
  kHotRank,
  kSpread,
  kBytesPresent,
  kMessageSize,
  kIpc,
  kFpShare,
  kExtra,
};

// ---- per-cnode facts -------------------------------------------------------------------------

// Own work by region kind: functions that call others keep little for themselves.
double own_factor(RegionKind kind, bool leaf) {
  switch (kind) {
    case RegionKind::kMain:
      return 0.02;
    case RegionKind::kFunction:
      return leaf ? 1.0 : 0.15;
    case RegionKind::kLoop:
      return leaf ? 1.0 : 0.1;
    case RegionKind::kOmpParallel:
      return 0.03;
    case RegionKind::kOmpLoop:
      return leaf ? 1.2 : 0.2;
    case RegionKind::kOmpBarrier:
      return 0.3;
    case RegionKind::kMpiSend:
    case RegionKind::kMpiRecv:
      return 0.15;
    case RegionKind::kMpiCollective:
      return 0.4;
    case RegionKind::kMpiBarrier:
      return 0.3;
    case RegionKind::kMpiWait:
      return 0.25;
    case RegionKind::kGpuKernel:
      return 1.5;
  }
  return 1.0;
}

bool is_waiting(RegionKind kind) {
  return kind == RegionKind::kOmpBarrier || kind == RegionKind::kMpiBarrier ||
         kind == RegionKind::kMpiCollective || kind == RegionKind::kMpiWait;
}

// Imbalance pattern of a cnode: waiting regions mostly mirror the compute imbalance.
size_t pattern_of(RegionKind kind, uint64_t h) {
  const double u = unit(h);
  if (is_waiting(kind) && u < 0.8) return 3;
  return u < 0.4 ? 0 : u < 0.8 ? 1 : 2;
}

// About N(0, 1) from four uniforms (Irwin–Hall), enough for a lognormal spread.
double normalish(uint64_t h) {
  double s = 0;
  for (int i = 0; i < 4; ++i) s += unit(h = generator::mix(h));
  return (s - 2.0) * std::sqrt(3.0);
}

uint64_t visit_factor(RegionKind kind, uint64_t h) {
  if (kind == RegionKind::kOmpBarrier || kind == RegionKind::kOmpLoop) return 1;
  if (generator::is_mpi(kind)) return 1 + h % 40;
  if (unit(h) < 0.7) return 1;
  return 2 + (h >> 8) % 10;
}

class ValueModel {
 public:
  ValueModel(const GeneratorOptions& o, const Definitions& d);

  // False when the row of `cnode` is surely all identity (saves producing it).
  bool may_have_data(Index metric, Index cnode) const;
  // The row of `cnode` in memory layout (DataType::memory_size() per location).
  void fill_row(Index metric, Index cnode, std::byte* row);

 private:
  struct Place {
    size_t rank, thread, node;
    bool gpu;
  };
  Place place(size_t l) const {
    const size_t per_process = d_.threads + d_.gpus;
    const size_t rank = l / per_process, slot = l % per_process;
    return {rank, slot, rank / (d_.processes / d_.nodes), slot >= d_.threads};
  }
  RegionKind kind(Index c) const { return d_.region_kind[d_.model->cnodes[c].region]; }
  const double* profile(size_t k) const { return profile_.data() + k * locations_; }
  const uint64_t* counter_profile(size_t k) const {
    return counter_profile_.data() + k * locations_;
  }

  void make_profiles();
  void make_cnode_facts();
  void make_subtree_sums();
  template <class T>
  std::vector<T> subtree_sums(const std::vector<T>& own) const;

  double profile_value(size_t k, size_t l) const;
  uint64_t visits(Index c, size_t l) const;
  bool has_bytes(Index c) const;
  uint64_t message_size(Index c, size_t l) const;
  void min_max_time(Index c, size_t l, double incl, uint64_t v, double& lo, double& hi) const;

  void inclusive_time_row(Index c, double* out) const;
  void inclusive_counter_row(const std::vector<uint64_t>& sums, Index c, uint64_t* out) const;
  void fill_extra(Extra e, Index c, std::byte* row);
  void fill_message_stats(Index c, size_t l, uint64_t v, double* out) const;
  void fill_histogram(Index c, size_t l, uint64_t v, double incl, double* out) const;

  const GeneratorOptions& o_;
  const Definitions& d_;
  size_t locations_;
  std::vector<double> profile_;             // kClasses × L
  std::vector<uint64_t> counter_profile_;   // kClasses × L: instructions per work unit
  std::vector<uint8_t> class_;              // per cnode
  std::vector<double> own_time_;            // per cnode, seconds for a profile of 1
  std::vector<uint64_t> own_ins_, own_fp_;  // per cnode, work units
  std::vector<uint64_t> visits_;            // per cnode, on each location in scope
  // Subtree sums per class present: mask of classes and offset of the first sum.
  std::vector<uint16_t> mask_;
  std::vector<uint32_t> offset_;
  std::vector<double> time_sum_;
  std::vector<uint64_t> ins_sum_, fp_sum_;
  std::vector<double> scratch_;  // one row of inclusive times
};

ValueModel::ValueModel(const GeneratorOptions& o, const Definitions& d)
    : o_(o), d_(d), locations_(d.model->locations.size()), scratch_(locations_) {
  make_profiles();
  make_cnode_facts();
  make_subtree_sums();
}

double ValueModel::profile_value(size_t k, size_t l) const {
  const Scope scope = static_cast<Scope>(k / kPatterns);
  const Place p = place(l);
  const bool in_scope = scope == Scope::kGpu          ? p.gpu
                        : scope == Scope::kAllThreads ? !p.gpu
                                                      : !p.gpu && p.thread == 0;
  if (!in_scope) return 0;
  const uint64_t seed = o_.seed;
  const double rank_pos = d_.processes > 1 ? double(p.rank) / double(d_.processes - 1) : 0;
  const double thread_pos =
      d_.threads > 1 && !p.gpu ? double(p.thread) / double(d_.threads - 1) : 0;
  double f = 1;
  switch (k % kPatterns) {
    case 1:  // compute grows with the rank (domain decomposition imbalance)
      f = (0.75 + 0.5 * rank_pos) * (1 + 0.2 * thread_pos);
      break;
    case 2:  // a few slow ranks
      f = hash(seed, kHotRank, p.rank) % 7 == 0 ? 2.2 : 0.9;
      break;
    case 3:  // waiting: the ranks and threads with less work wait longer
      f = (1.6 - 1.2 * rank_pos) * (1.3 - 0.5 * thread_pos);
      break;
  }
  const double node_speed = 1 + 0.08 * unit(hash(seed, kNodeSpeed, p.node));
  const double noise = 1 + 0.06 * (unit(hash(seed, kLocationNoise, k, l)) - 0.5);
  return f * node_speed * noise;
}

void ValueModel::make_profiles() {
  profile_.resize(kClasses * locations_);
  counter_profile_.resize(kClasses * locations_);
  for (size_t k = 0; k < kClasses; ++k) {
    // Instructions per work unit differ by pattern; GPUs count no CPU instructions.
    const bool gpu = static_cast<Scope>(k / kPatterns) == Scope::kGpu;
    for (size_t l = 0; l < locations_; ++l) {
      const double g = profile_value(k, l);
      profile_[k * locations_ + l] = g;
      counter_profile_[k * locations_ + l] =
          gpu ? 0 : static_cast<uint64_t>(std::llround(g * kInstructionsPerUnit));
    }
  }
}

void ValueModel::make_cnode_facts() {
  const Model& m = *d_.model;
  const size_t n = m.cnodes.size();
  class_.resize(n);
  own_time_.resize(n);
  visits_.resize(n);
  double total = 0;
  for (Index c = 0; c < n; ++c) {
    const RegionKind k = kind(c);
    const uint64_t h = hash(o_.seed, kOwnTime, c);
    class_[c] = static_cast<uint8_t>(static_cast<size_t>(d_.scope[c]) * kPatterns +
                                     pattern_of(k, hash(o_.seed, kClass, c)));
    total += own_time_[c] =
        own_factor(k, m.cnodes[c].children.empty()) * std::exp(1.2 * normalish(h));
    // Parents precede children (pre-order), so the parent's visits are known.
    const Index parent = m.cnodes[c].parent;
    const uint64_t base = parent == kNoIndex ? 1 : visits_[parent];
    visits_[c] =
        std::min<uint64_t>(base * visit_factor(k, hash(o_.seed, kVisitFactor, c)), kMostVisits);
  }
  for (double& t : own_time_) t *= kRunSeconds / total;
  if (!o_.papi && !o_.all_types) return;  // no counters, no FLOP rate
  own_ins_.resize(n);
  own_fp_.resize(n);
  for (Index c = 0; c < n; ++c) {
    const RegionKind k = kind(c);
    const bool computes = k == RegionKind::kFunction || k == RegionKind::kLoop ||
                          k == RegionKind::kOmpLoop || k == RegionKind::kMain;
    const double ipc = computes ? 1 + unit(hash(o_.seed, kIpc, c)) : 0.4;
    const double fp_share = computes ? 0.05 + 0.55 * unit(hash(o_.seed, kFpShare, c)) : 0;
    own_ins_[c] = std::max<uint64_t>(1, std::llround(own_time_[c] * kWorkPerSecond * ipc));
    own_fp_[c] = std::llround(static_cast<double>(own_ins_[c]) * fp_share);
  }
}

void ValueModel::make_subtree_sums() {
  const Model& m = *d_.model;
  const size_t n = m.cnodes.size();
  mask_.resize(n);
  offset_.resize(n);
  // Children come after their parent in pre-order: walking backwards sees them first.
  for (Index c = static_cast<Index>(n); c-- > 0;) {
    uint16_t mask = static_cast<uint16_t>(1u << class_[c]);
    for (Index child : m.cnodes[c].children) mask |= mask_[child];
    mask_[c] = mask;
  }
  uint32_t next = 0;
  for (Index c = 0; c < n; ++c) {
    offset_[c] = next;
    next += static_cast<uint32_t>(std::popcount(mask_[c]));
  }
  time_sum_ = subtree_sums(own_time_);
  if (o_.papi) {
    ins_sum_ = subtree_sums(own_ins_);
    fp_sum_ = subtree_sums(own_fp_);
  }
}

// Per cnode and class present in its subtree, the sum of `own` over the subtree's cnodes of
// that class, at offset_[c] onwards in class order.
template <class T>
std::vector<T> ValueModel::subtree_sums(const std::vector<T>& own) const {
  const Model& m = *d_.model;
  const size_t n = m.cnodes.size();
  std::vector<T> sums(n == 0 ? 0 : offset_[n - 1] + std::popcount(mask_[n - 1]));
  for (Index c = static_cast<Index>(n); c-- > 0;) {
    T dense[kClasses] = {};
    dense[class_[c]] = own[c];
    for (Index child : m.cnodes[c].children) {
      size_t at = offset_[child];
      for (unsigned bits = mask_[child]; bits != 0; bits &= bits - 1, ++at)
        dense[std::countr_zero(bits)] += sums[at];
    }
    size_t at = offset_[c];
    for (unsigned bits = mask_[c]; bits != 0; bits &= bits - 1, ++at)
      sums[at] = dense[std::countr_zero(bits)];
  }
  return sums;
}

uint64_t ValueModel::visits(Index c, size_t l) const {
  if (profile(class_[c])[l] == 0) return 0;  // out of scope: no own time, no visits
  const uint64_t v = visits_[c];
  if (!generator::is_mpi(kind(c))) return v;
  return v + hash(o_.seed, kVisitNoise, c, l) % (v / 8 + 1);
}

bool ValueModel::has_bytes(Index c) const {
  return generator::moves_bytes(kind(c)) && unit(hash(o_.seed, kBytesPresent, c)) >= o_.sparsity;
}

// Bytes per visit: 8 B … 512 KiB per call path, halved on every other rank (boundary ranks).
uint64_t ValueModel::message_size(Index c, size_t l) const {
  const uint64_t base = uint64_t{8} << (hash(o_.seed, kMessageSize, c) % 17);
  return place(l).rank % 2 == 0 ? base : base / 2 + 8;
}

// Minimum and maximum inclusive duration of one visit, around the mean.
void ValueModel::min_max_time(Index c, size_t l, double incl, uint64_t v, double& lo,
                              double& hi) const {
  if (v == 1) {
    lo = hi = incl;
    return;
  }
  const uint64_t h = hash(o_.seed, kSpread, c, l);
  const double mean = incl / static_cast<double>(v);
  lo = mean * (0.3 + 0.6 * unit(h));
  hi = mean * (1 + 0.9 * unit(generator::mix(h)));  // ≤ 1.9 × mean ≤ incl, as v ≥ 2
}

void ValueModel::inclusive_time_row(Index c, double* out) const {
  std::fill(out, out + locations_, 0.0);
  size_t at = offset_[c];
  for (unsigned bits = mask_[c]; bits != 0; bits &= bits - 1, ++at) {
    const double* g = profile(std::countr_zero(bits));
    const double s = time_sum_[at];
    for (size_t l = 0; l < locations_; ++l) out[l] += s * g[l];
  }
}

void ValueModel::inclusive_counter_row(const std::vector<uint64_t>& sums, Index c,
                                       uint64_t* out) const {
  std::fill(out, out + locations_, uint64_t{0});
  size_t at = offset_[c];
  for (unsigned bits = mask_[c]; bits != 0; bits &= bits - 1, ++at) {
    const uint64_t* h = counter_profile(std::countr_zero(bits));
    const uint64_t s = sums[at];
    for (size_t l = 0; l < locations_; ++l) out[l] += s * h[l];
  }
}

bool ValueModel::may_have_data(Index metric, Index c) const {
  const auto& id = d_.metric;
  const RegionKind k = kind(c);
  if (metric == id.bytes_sent)
    return has_bytes(c) && (k == RegionKind::kMpiSend || k == RegionKind::kMpiCollective);
  if (metric == id.bytes_received)
    return has_bytes(c) && (k == RegionKind::kMpiRecv || k == RegionKind::kMpiCollective);
  if (id.first_extra == kNoIndex || metric < id.first_extra) return true;
  switch (static_cast<Extra>(metric - id.first_extra)) {
    case Extra::kUInt16:
      return generator::moves_bytes(k) && d_.processes > 1;
    case Extra::kTauAtomic:
      return has_bytes(c);
    case Extra::kInt16:
    case Extra::kInt32:
      return k == RegionKind::kFunction;
    case Extra::kInt64:
      return d_.scope[c] == Scope::kAllThreads;
    default:
      return true;
  }
}

template <class T>
T* lanes(std::byte* row) {
  return reinterpret_cast<T*>(row);
}

void ValueModel::fill_row(Index metric, Index c, std::byte* row) {
  const auto& id = d_.metric;
  const size_t n = locations_;
  if (metric == id.visits) {
    auto* out = lanes<uint64_t>(row);
    for (size_t l = 0; l < n; ++l) out[l] = visits(c, l);
  } else if (metric == id.time) {
    inclusive_time_row(c, lanes<double>(row));
  } else if (metric == id.min_time || metric == id.max_time) {
    const bool min = metric == id.min_time;
    auto* out = lanes<double>(row);
    inclusive_time_row(c, scratch_.data());
    for (size_t l = 0; l < n; ++l) {
      const uint64_t v = visits(c, l);
      double lo = DBL_MAX, hi = -DBL_MAX;  // the identities: no visit, no duration
      if (v > 0) min_max_time(c, l, scratch_[l], v, lo, hi);
      out[l] = min ? lo : hi;
    }
  } else if (metric == id.bytes_sent || metric == id.bytes_received) {
    auto* out = lanes<uint64_t>(row);
    for (size_t l = 0; l < n; ++l) out[l] = visits(c, l) * message_size(c, l);
  } else if (metric == id.tot_ins) {
    inclusive_counter_row(ins_sum_, c, lanes<uint64_t>(row));
  } else if (metric == id.fp_ops) {
    inclusive_counter_row(fp_sum_, c, lanes<uint64_t>(row));
  } else {
    fill_extra(static_cast<Extra>(metric - id.first_extra), c, row);
  }
}

// The extra metrics of all_types: plausible values wherever the location visited the cnode.
void ValueModel::fill_extra(Extra e, Index c, std::byte* row) {
  const DataType type = d_.model->metrics[d_.metric.first_extra + static_cast<Index>(e)].dtype;
  const size_t n = locations_;
  set_identity(type, row, n);
  const uint64_t key = hash(o_.seed, kExtra, static_cast<uint64_t>(e), c);
  const double* g = profile(class_[c]);
  const uint64_t partners = std::min<uint64_t>(d_.processes - 1, 65535);
  if (e == Extra::kHistogram) inclusive_time_row(c, scratch_.data());
  for (size_t l = 0; l < n; ++l) {
    const uint64_t v = visits(c, l);
    if (v == 0) continue;
    const uint64_t h = hash(key, l);
    const double excl = own_time_[c] * g[l];
    switch (e) {
      case Extra::kInt8:
        lanes<int8_t>(row)[l] = static_cast<int8_t>(int(h % 9) - 4);
        break;
      case Extra::kUInt8:
        lanes<uint8_t>(row)[l] = static_cast<uint8_t>(
            d_.scope[c] == Scope::kAllThreads ? std::min<size_t>(d_.threads, 255) : 1);
        break;
      case Extra::kInt16:
        lanes<int16_t>(row)[l] = static_cast<int16_t>(int(h % 2001) - 1000);
        break;
      case Extra::kUInt16:
        if (generator::moves_bytes(kind(c)) && partners > 0)
          lanes<uint16_t>(row)[l] = static_cast<uint16_t>(
              kind(c) == RegionKind::kMpiCollective ? partners
                                                    : 1 + h % std::min<uint64_t>(partners, 8));
        break;
      case Extra::kInt32:
        lanes<int32_t>(row)[l] = static_cast<int32_t>(int64_t(h % (1u << 21)) - (1 << 20));
        break;
      case Extra::kUInt32:
        lanes<uint32_t>(row)[l] =
            static_cast<uint32_t>(std::min<uint64_t>(v * (h % 50), UINT32_MAX));
        break;
      case Extra::kInt64:
        lanes<int64_t>(row)[l] = static_cast<int64_t>(h % 4);
        break;
      case Extra::kComplex: {
        const double angle = 2 * std::numbers::pi * unit(key);
        lanes<double>(row)[2 * l] = excl * std::cos(angle);
        lanes<double>(row)[2 * l + 1] = excl * std::sin(angle);
        break;
      }
      case Extra::kRate:
        lanes<double>(row)[2 * l] = static_cast<double>(own_fp_[c] * counter_profile(class_[c])[l]);
        lanes<double>(row)[2 * l + 1] = excl;
        break;
      case Extra::kTauAtomic:
        fill_message_stats(c, l, v, lanes<double>(row) + 5 * l);
        break;
      case Extra::kHistogram:
        fill_histogram(c, l, v, scratch_[l],
                       lanes<double>(row) + (2 + generator::kHistogramBins) * l);
        break;
      case Extra::kNDoubles:
        for (uint32_t i = 0; i < generator::kNDoublesLanes; ++i)
          lanes<double>(row)[generator::kNDoublesLanes * l + i] =
              excl * (30 + 60 * unit(hash(o_.seed, kExtra, place(l).node, i)));
        break;
    }
  }
}

// TAU_ATOMIC (count, min, max, sum, sum of squares) of the message sizes of a call path.
void ValueModel::fill_message_stats(Index c, size_t l, uint64_t v, double* out) const {
  if (!has_bytes(c)) return;
  const double size = static_cast<double>(message_size(c, l)), count = static_cast<double>(v);
  out[0] = count;
  out[1] = size / 2;
  out[2] = size * 1.5;
  out[3] = count * size;
  out[4] = count * size * size * 1.08;  // variance 0.08 × mean²
}

// HISTOGRAM(n) (min, max, n counts) of the inclusive durations of the visits: a bell over
// [min_time, max_time] holding every visit.
void ValueModel::fill_histogram(Index c, size_t l, uint64_t v, double incl, double* out) const {
  min_max_time(c, l, incl, v, out[0], out[1]);
  const uint32_t bins = generator::kHistogramBins;
  double weight[generator::kHistogramBins], total = 0;
  for (uint32_t i = 0; i < bins; ++i) {
    const double x = (i + 0.5 - bins / 2.0) / (bins / 4.0);
    total += weight[i] = std::exp(-x * x);
  }
  uint64_t placed = 0;
  for (uint32_t i = 0; i < bins; ++i) {
    const auto count = static_cast<uint64_t>(static_cast<double>(v) * weight[i] / total);
    out[2 + i] = static_cast<double>(count);
    placed += count;
  }
  out[2 + bins / 2] += static_cast<double>(v - placed);
}

void check_writable(const std::string& path) {
  if (path.empty()) throw IoError("generator: no output file given");
}

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// Bytes of one location's values over the metrics present in (about) every row.
uint64_t dense_cell_bytes(const GeneratorOptions& o) {
  uint64_t bytes = 4 * 8;  // visits, time, min_time, max_time
  if (o.papi) bytes += 2 * 8;
  // INT8, UINT8, INT16 and INT32 (functions: about half the rows), UINT32, INT64 (parallel
  // regions: about half), COMPLEX, RATE, HISTOGRAM(8), NDOUBLES(4).
  if (o.all_types) bytes += 1 + 1 + 1 + 2 + 4 + 4 + 16 + 16 + 8 * (2 + 8) + 8 * 4;
  return bytes;
}

}  // namespace

size_t generated_locations(const GeneratorOptions& o) {
  const size_t per_process = o.threads_per_process + o.gpu_streams_per_process;
  size_t n = 1;
  for (const size_t f : {o.machines, o.nodes_per_machine, o.processes_per_node, per_process}) {
    if (f != 0 && n > SIZE_MAX / 2 / f) return SIZE_MAX / 2;  // beyond any limit: refused later
    n *= f;
  }
  return n;
}

uint64_t estimated_data_bytes(const GeneratorOptions& o) {
  const double cells =
      static_cast<double>(o.call_paths) * static_cast<double>(generated_locations(o));
  // Communicating MPI leaves are about 6% of the call paths: bytes, and with all_types the
  // partner count and message statistics.
  const double sparse = 0.06 * (1 - o.sparsity) * (16 + (o.all_types ? 2 + 36 : 0));
  return static_cast<uint64_t>(cells * (static_cast<double>(dense_cell_bytes(o)) + sparse));
}

GeneratorOptions fit_to_size(GeneratorOptions o, uint64_t bytes, bool keep_call_paths) {
  constexpr size_t kFewest = 1000, kMost = 1'000'000;
  auto per_call_path = [&] {
    GeneratorOptions one = o;
    one.call_paths = 1;
    return std::max<uint64_t>(1, estimated_data_bytes(one));
  };
  if (!keep_call_paths)
    o.call_paths = std::clamp<size_t>(static_cast<size_t>(bytes / per_call_path()), kFewest, kMost);
  // Call paths at their bounds (or fixed): scale the ranks per node.
  const double ratio = static_cast<double>(bytes) / static_cast<double>(estimated_data_bytes(o));
  if (ratio > 1.1 || ratio < 0.9)
    o.processes_per_node =
        std::max<size_t>(1, std::llround(static_cast<double>(o.processes_per_node) * ratio));
  return o;
}

std::shared_ptr<const Model> generated_model(const GeneratorOptions& options) {
  return generator::build_definitions(options).model;
}

GeneratedReport generate_report(const std::string& path, const GeneratorOptions& options) {
  check_writable(path);
  const Definitions d = generator::build_definitions(options);
  const Model& model = *d.model;
  ValueModel values(options, d);
  WriteOptions write;
  write.compress = options.compress;
  write.mtime = kTimeStamp;  // the same options give the same bytes
  ReportWriter writer(path, d.model, write);
  const std::vector<Index> pre = storage_order(model, MetricKind::kExclusive);
  const std::vector<Index> wide = storage_order(model, MetricKind::kInclusive);
  std::vector<uint64_t> row;  // 64-bit words keep every lane type aligned
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const Metric& metric = model.metrics[m];
    row.assign((metric.dtype.memory_size() * model.locations.size() + 7) / 8, 0);
    auto* bytes = reinterpret_cast<std::byte*>(row.data());
    writer.begin_metric(m);
    for (const Index c : metric.kind == MetricKind::kExclusive ? pre : wide) {
      if (options.definitions_only || !values.may_have_data(m, c)) continue;
      values.fill_row(m, c, bytes);
      writer.write_row(c, bytes);
    }
    writer.end_metric();
  }
  writer.finish();
  return {model.cnodes.size(), model.locations.size(), model.metrics.size(), file_size(path)};
}

}  // namespace cubekit
