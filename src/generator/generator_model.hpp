// Internals of the profile generator (cubekit/generator.hpp): the counter-based hash every
// random choice comes from, and the definitions (metrics, regions, call tree, system tree)
// together with the facts the value model needs about them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cubekit/generator.hpp"
#include "cubekit/model.hpp"

namespace cubekit::generator {

// splitmix64's finaliser: a bijection on 64 bits with good avalanche.
inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
// A hash of several keys (seed, purpose, cnode, location, …): no state, any order.
inline uint64_t hash(uint64_t a, uint64_t b) {
  return mix(a ^ mix(b));
}
inline uint64_t hash(uint64_t a, uint64_t b, uint64_t c) {
  return hash(hash(a, b), c);
}
inline uint64_t hash(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return hash(hash(a, b, c), d);
}
// Uniform in [0, 1) from the top 53 bits.
inline double unit(uint64_t h) {
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// What a region does, which decides its values.
enum class RegionKind : uint8_t {
  kMain,
  kFunction,
  kLoop,           // user-instrumented loop
  kOmpParallel,    // !$omp parallel
  kOmpLoop,        // !$omp do
  kOmpBarrier,     // !$omp barrier / implicit barrier
  kMpiSend,        // point-to-point, sending
  kMpiRecv,        // point-to-point, receiving
  kMpiCollective,  // moves data both ways
  kMpiBarrier,
  kMpiWait,  // completion, communicator queries: no bytes
  kGpuKernel,
};

bool is_mpi(RegionKind kind);
bool moves_bytes(RegionKind kind);

// The locations a call path's own (exclusive) activity happens on: the master thread of every
// rank (outside parallel regions; MPI is funneled), every CPU thread (inside parallel regions)
// or the GPU streams (kernels).
enum class Scope : uint8_t { kMaster, kAllThreads, kGpu };
inline constexpr size_t kScopes = 3;

struct Definitions {
  std::shared_ptr<Model> model;
  std::vector<RegionKind> region_kind;  // per region index
  std::vector<Scope> scope;             // per cnode index
  // The options' shape, so that a location's rank and thread follow from its id.
  size_t processes = 0, threads = 0, gpus = 0, nodes = 0;
  // Metric indices (kNoIndex when absent).
  struct {
    Index visits, time, min_time, max_time, bytes_sent, bytes_received;
    Index tot_ins = kNoIndex, fp_ops = kNoIndex;
    Index first_extra = kNoIndex;  // all_types: the extra metrics follow in a fixed order
  } metric;
};

// Checks the options (throws Error naming the option) and builds every definition.
Definitions build_definitions(const GeneratorOptions& options);

// The extra metrics of `all_types`, in the order build_definitions adds them.
enum class Extra : uint8_t {
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kComplex,
  kRate,
  kTauAtomic,
  kHistogram,
  kNDoubles,
};
inline constexpr size_t kExtras = 12;
inline constexpr uint32_t kHistogramBins = 8;
inline constexpr uint32_t kNDoublesLanes = 4;

}  // namespace cubekit::generator
