// The definitions of a generated profile: what Score-P would declare for an MPI + OpenMP code
// (cube-format.md §9.2). Every choice comes from a seeded sequence, so the same options give
// the same definitions.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>

#include "cubekit/error.hpp"
#include "generator/generator_model.hpp"
#include "io/metric_definition.hpp"

namespace cubekit::generator {

bool is_mpi(RegionKind kind) {
  return kind >= RegionKind::kMpiSend && kind <= RegionKind::kMpiWait;
}

bool moves_bytes(RegionKind kind) {
  return kind == RegionKind::kMpiSend || kind == RegionKind::kMpiRecv ||
         kind == RegionKind::kMpiCollective;
}

namespace {

constexpr size_t kMaxCallPaths = 10'000'000;
constexpr size_t kMaxDepth = 1000;
constexpr size_t kMaxFanout = 10'000;
constexpr size_t kMaxLocations = 1u << 22;
constexpr uint64_t kSaturated = uint64_t{1} << 62;

// A sequence for the one-time, sequential choices (the tree); values use hash() instead.
class Sequence {
 public:
  explicit Sequence(uint64_t seed) : state_(mix(seed ^ 0x7A3C5E1F2B4D6E8AULL)) {}
  uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ULL); }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  double unit() { return generator::unit(next()); }

 private:
  uint64_t state_;
};

// Most cnodes a subtree rooted at each depth can hold: capacity[d] = 1 + fanout × capacity[d+1].
std::vector<uint64_t> capacities(size_t depth, size_t fanout) {
  std::vector<uint64_t> cap(depth + 1, 0);
  for (size_t d = depth; d-- > 0;)
    cap[d] = cap[d + 1] >= kSaturated / fanout ? kSaturated : 1 + fanout * cap[d + 1];
  return cap;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw Error("generator options: " + message);
}

void check(const GeneratorOptions& o) {
  require(o.call_paths >= 1 && o.call_paths <= kMaxCallPaths,
          "call paths must be between 1 and " + std::to_string(kMaxCallPaths));
  require(o.depth >= 1 && o.depth <= kMaxDepth,
          "depth must be between 1 and " + std::to_string(kMaxDepth));
  require(o.fanout >= 1 && o.fanout <= kMaxFanout,
          "fanout must be between 1 and " + std::to_string(kMaxFanout));
  require(o.machines >= 1 && o.nodes_per_machine >= 1 && o.processes_per_node >= 1 &&
              o.threads_per_process >= 1,
          "machines, nodes, processes and threads must be at least 1");
  require(generated_locations(o) <= kMaxLocations,
          "at most " + std::to_string(kMaxLocations) + " locations");
  require(o.sparsity >= 0 && o.sparsity <= 1, "sparsity must be between 0 and 1");
  const uint64_t room = capacities(o.depth, o.fanout)[0];
  require(o.call_paths <= room, std::to_string(o.call_paths) + " call paths do not fit in depth " +
                                    std::to_string(o.depth) + " and fanout " +
                                    std::to_string(o.fanout) + " (at most " + std::to_string(room) +
                                    ")");
}

// ---- metrics -------------------------------------------------------------------------------

struct ExtraMetric {
  const char *uniq_name, *disp_name;
  DataType type;
  const char *uom, *descr;
};

// The metrics --all-types adds, all EXCLUSIVE.
const std::vector<ExtraMetric>& extra_metrics() {
  static const std::vector<ExtraMetric> metrics = {
      {"priority_delta", "Task priority change", TypeKind::kInt8, "",
       "Change of task priority (INT8)"},
      {"team_size", "OpenMP team size", TypeKind::kUInt8, "threads",
       "Threads in the executing team (UINT8)"},
      {"numa_balance", "NUMA balance", TypeKind::kInt16, "pages",
       "Pages migrated to (+) or away from (-) the local NUMA domain (INT16)"},
      {"mpi_partners", "MPI partners", TypeKind::kUInt16, "ranks",
       "Distinct communication partners (UINT16)"},
      {"heap_delta", "Heap change", TypeKind::kInt32, "KiB",
       "Memory allocated minus memory freed (INT32)"},
      {"page_faults", "Page faults", TypeKind::kUInt32, "#", "Minor page faults (UINT32)"},
      {"task_migration_loss", "task_migration_loss", TypeKind::kInt64, "",
       "Number of tasks that migrated away (INT64)"},
      {"phase", "Phase", TypeKind::kComplex, "sec",
       "Time as a phasor of the visit's position in the time step (COMPLEX)"},
      {"flop_rate", "FLOP rate", TypeKind::kRate, "FLOP/s",
       "Floating point operations per second of exclusive time (RATE)"},
      {"message_size", "Message size", TypeKind::kTauAtomic, "bytes",
       "Statistics of the message sizes (TAU_ATOMIC)"},
      {"visit_durations", "Visit durations", DataType(TypeKind::kHistogram, kHistogramBins), "occ",
       "Histogram of the inclusive durations of the visits"},
      {"energy", "Energy", DataType(TypeKind::kNDoubles, kNDoublesLanes), "J",
       "Energy of the four packages of the node (NDOUBLES(4))"},
  };
  return metrics;
}

void add_metrics(const GeneratorOptions& o, Definitions& d) {
  Model& m = *d.model;
  using K = MetricKind;
  auto& ids = d.metric;
  ids.visits = add_metric(m, "visits", "Visits", TypeKind::kUInt64, K::kExclusive, "occ",
                          "Number of visits");
  ids.time = add_metric(m, "time", "Time", TypeKind::kDouble, K::kInclusive, "sec",
                        "Total CPU allocation time");
  ids.min_time = add_metric(m, "min_time", "Minimum Inclusive Time", TypeKind::kMinDouble,
                            K::kExclusive, "sec", "Minimum inclusive CPU allocation time");
  ids.max_time = add_metric(m, "max_time", "Maximum Inclusive Time", TypeKind::kMaxDouble,
                            K::kExclusive, "sec", "Maximum inclusive CPU allocation time");
  ids.bytes_sent = add_metric(m, "bytes_sent", "bytes_sent", TypeKind::kUInt64, K::kExclusive,
                              "bytes", "Number of bytes sent");
  ids.bytes_received = add_metric(m, "bytes_received", "bytes_received", TypeKind::kUInt64,
                                  K::kExclusive, "bytes", "Number of bytes received");
  if (o.papi) {
    ids.tot_ins = add_metric(m, "PAPI_TOT_INS", "PAPI_TOT_INS", TypeKind::kUInt64, K::kInclusive,
                             "#", "Instructions completed");
    ids.fp_ops = add_metric(m, "PAPI_FP_OPS", "PAPI_FP_OPS", TypeKind::kUInt64, K::kInclusive, "#",
                            "Floating point operations");
  }
  if (!o.all_types) return;
  // One metric of each remaining data type, in the order of Extra.
  ids.first_extra = static_cast<Index>(m.metrics.size());
  for (const ExtraMetric& x : extra_metrics())
    add_metric(m, x.uniq_name, x.disp_name, x.type, K::kExclusive, x.uom, x.descr);
}

// ---- regions -------------------------------------------------------------------------------

constexpr std::array<std::string_view, 18> kVerbs = {
    "compute", "update",    "solve",   "exchange", "apply",    "assemble",
    "interp",  "reduce",    "init",    "copy",     "pack",     "unpack",
    "eval",    "integrate", "project", "smooth",   "restrict", "prolong"};
constexpr std::array<std::string_view, 18> kNouns = {
    "flux",     "halo",     "rhs",     "pressure", "velocity", "boundary",
    "jacobian", "residual", "mesh",    "stencil",  "matrix",   "vector",
    "forces",   "energy",   "density", "grid",     "faces",    "cells"};
constexpr std::array<std::string_view, 8> kSpecialFunctions = {
    "solver_step", "timestep",     "initialize", "finalize",
    "read_input",  "write_output", "checkpoint", "setup_domain"};

struct MpiFunction {
  std::string_view name, role;
  RegionKind kind;
};
constexpr std::array<MpiFunction, 14> kMpiFunctions = {{
    {"MPI_Send", "point2point", RegionKind::kMpiSend},
    {"MPI_Isend", "point2point", RegionKind::kMpiSend},
    {"MPI_Recv", "point2point", RegionKind::kMpiRecv},
    {"MPI_Irecv", "point2point", RegionKind::kMpiRecv},
    {"MPI_Sendrecv", "point2point", RegionKind::kMpiCollective},
    {"MPI_Allreduce", "all2all", RegionKind::kMpiCollective},
    {"MPI_Alltoall", "all2all", RegionKind::kMpiCollective},
    {"MPI_Allgather", "all2all", RegionKind::kMpiCollective},
    {"MPI_Bcast", "one2all", RegionKind::kMpiCollective},
    {"MPI_Reduce", "all2one", RegionKind::kMpiCollective},
    {"MPI_Barrier", "barrier", RegionKind::kMpiBarrier},
    {"MPI_Wait", "function", RegionKind::kMpiWait},
    {"MPI_Waitall", "function", RegionKind::kMpiWait},
    {"MPI_Comm_rank", "function", RegionKind::kMpiWait},
}};

struct Pool {
  Index first = 0;
  size_t size = 0;
};

struct Catalog {
  Pool main, functions, loops, omp_parallel, omp_loops, omp_barriers, mpi, kernels;
};

class RegionMaker {
 public:
  explicit RegionMaker(Definitions& d) : d_(d) {}

  Index add(std::string name, std::string paradigm, std::string role, std::string mod,
            int64_t begin, int64_t end, RegionKind kind) {
    Region r;
    r.id = static_cast<uint32_t>(d_.model->regions.size());
    r.mangled_name = kind == RegionKind::kFunction ? name + "_" : name;
    r.name = std::move(name);
    r.paradigm = std::move(paradigm);
    r.role = std::move(role);
    r.mod = std::move(mod);
    r.begin = begin;
    r.end = end;
    d_.model->regions.push_back(std::move(r));
    d_.region_kind.push_back(kind);
    return static_cast<Index>(d_.model->regions.size() - 1);
  }

  // n regions made by make(i); returns the pool they form.
  template <class Make>
  Pool pool(size_t n, Make make) {
    Pool p{static_cast<Index>(d_.model->regions.size()), n};
    for (size_t i = 0; i < n; ++i) make(i);
    return p;
  }

 private:
  Definitions& d_;
};

std::string source_file(size_t i) {
  return std::string(kNouns[i % kNouns.size()]) + ".f90";
}

// Unique per i: the file cycles fastest, the line grows with the cycle.
int64_t source_line(size_t i) {
  return 12 + static_cast<int64_t>(i / kNouns.size()) * 41;
}

std::string function_name(size_t i) {
  if (i < kSpecialFunctions.size()) return std::string(kSpecialFunctions[i]);
  i -= kSpecialFunctions.size();
  const size_t combos = kVerbs.size() * kNouns.size();
  std::string name = std::string(kVerbs[i % kVerbs.size()]) + "_" +
                     std::string(kNouns[(i / kVerbs.size()) % kNouns.size()]);
  if (i >= combos) name += "_" + std::to_string(i / combos);
  return name;
}

std::string omp_construct(std::string_view what, size_t i) {
  return "!$omp " + std::string(what) + " @" + source_file(i) + ":" +
         std::to_string(source_line(i));
}

Catalog add_regions(const GeneratorOptions& o, Definitions& d) {
  RegionMaker make(d);
  Catalog c;
  // Enough functions that a path and a sibling list never exhaust them, few enough that they
  // repeat across call paths as in real codes.
  const size_t functions =
      std::max(o.depth + o.fanout + 32, std::min<size_t>(o.call_paths / 12, 50'000));
  const size_t constructs = std::max<size_t>(8, functions / 4);
  c.main = make.pool(1, [&](size_t) {
    make.add("main", "compiler", "function", "main.c", 10, 220, RegionKind::kMain);
  });
  c.functions = make.pool(functions, [&](size_t i) {
    const int64_t begin = source_line(i);
    make.add(function_name(i), "compiler", "function", "src/" + source_file(i), begin,
             begin + 15 + static_cast<int64_t>(i % 23), RegionKind::kFunction);
  });
  c.loops = make.pool(constructs, [&](size_t i) {
    make.add(function_name(i) + "_loop", "user", "loop", "src/" + source_file(i), source_line(i),
             source_line(i) + 9, RegionKind::kLoop);
  });
  c.omp_parallel = make.pool(constructs, [&](size_t i) {
    make.add(omp_construct("parallel", i), "openmp", "parallel", "src/" + source_file(i),
             source_line(i), source_line(i) + 30, RegionKind::kOmpParallel);
  });
  c.omp_loops = make.pool(constructs, [&](size_t i) {
    make.add(omp_construct("do", i), "openmp", "loop", "src/" + source_file(i), source_line(i) + 2,
             source_line(i) + 20, RegionKind::kOmpLoop);
  });
  c.omp_barriers = make.pool(constructs, [&](size_t i) {
    const bool implicit = i % 2 == 0;
    make.add(omp_construct(implicit ? "implicit barrier" : "barrier", i), "openmp",
             implicit ? "implicit barrier" : "barrier", "src/" + source_file(i),
             source_line(i) + 21, source_line(i) + 21, RegionKind::kOmpBarrier);
  });
  c.mpi = make.pool(kMpiFunctions.size(), [&](size_t i) {
    const MpiFunction& f = kMpiFunctions[i];
    make.add(std::string(f.name), "mpi", std::string(f.role), "MPI", -1, -1, f.kind);
  });
  c.kernels = make.pool(o.gpu_streams_per_process > 0 ? 24 : 0, [&](size_t i) {
    make.add(
        "void " + function_name(i + kSpecialFunctions.size()) + "_kernel<double>(double*, int)",
        "cuda", "function", "", -1, -1, RegionKind::kGpuKernel);
  });
  return c;
}

// ---- call tree -----------------------------------------------------------------------------

// Grows the tree depth first with a budget of cnodes per subtree, so the total hits the target
// exactly: a node splits its budget among 1..fanout children (unevenly, as real call trees
// are), never giving a child more than its depth can hold.
class CallTreeBuilder {
 public:
  CallTreeBuilder(const GeneratorOptions& o, Definitions& d, const Catalog& c)
      : o_(o), d_(d), catalog_(c), seq_(o.seed), capacity_(capacities(o.depth, o.fanout)) {}

  void build() {
    const Index root = add_cnode(kNoIndex, catalog_.main.first, Scope::kMaster);
    path_.push_back(catalog_.main.first);
    grow(root, 0, o_.call_paths, Context{});
  }

 private:
  struct Context {
    bool in_parallel = false;  // inside an OpenMP parallel region
    bool in_omp_loop = false;
  };

  Index add_cnode(Index parent, Index region, Scope scope) {
    Model& m = *d_.model;
    Cnode c;
    c.region = region;
    c.parent = parent;
    const Index self = static_cast<Index>(m.cnodes.size());
    m.cnodes.push_back(std::move(c));
    if (parent != kNoIndex) m.cnodes[parent].children.push_back(self);
    d_.scope.push_back(scope);
    return self;
  }

  void grow(Index node, size_t depth, uint64_t budget, Context context) {
    if (budget <= 1) return;
    const std::vector<uint64_t> shares = split(budget - 1, capacity_[depth + 1]);
    std::vector<Index> siblings;
    for (const uint64_t share : shares) {
      const Index region = pick_region(share == 1, depth + 1, context, siblings);
      const RegionKind kind = d_.region_kind[region];
      Context inner = context;
      inner.in_parallel |= kind == RegionKind::kOmpParallel;
      inner.in_omp_loop |= kind == RegionKind::kOmpLoop;
      const Scope scope = kind == RegionKind::kGpuKernel ? Scope::kGpu
                          : inner.in_parallel            ? Scope::kAllThreads
                                                         : Scope::kMaster;
      const Index child = add_cnode(node, region, scope);
      siblings.push_back(region);
      path_.push_back(region);
      grow(child, depth + 1, share, inner);
      path_.pop_back();
    }
  }

  // `rem` cnodes over k children (1 ≤ k ≤ fanout), each share in [1, cap].
  std::vector<uint64_t> split(uint64_t rem, uint64_t cap) {
    const uint64_t k_min = (rem + cap - 1) / cap;
    const uint64_t k_max = std::min<uint64_t>(o_.fanout, rem);
    // Single-child chains exist but are not the rule.
    const uint64_t k_low = std::max<uint64_t>(k_min, std::min<uint64_t>(k_max, 2));
    const size_t k = static_cast<size_t>(k_low + seq_.below(k_max - k_low + 1));
    std::vector<double> weight(k);
    double total = 0;
    for (double& w : weight) total += w = std::pow(seq_.unit() + 1e-3, 2.0);  // uneven
    std::vector<uint64_t> share(k, 1);
    uint64_t extra = rem - k, given = 0;
    for (size_t i = 0; i < k; ++i) {
      const auto want = static_cast<uint64_t>(static_cast<double>(extra) * weight[i] / total);
      share[i] += std::min(want, cap - 1);
      given += share[i] - 1;
    }
    for (size_t i = 0; given < extra; i = (i + 1) % k) {  // rounding and capping leftovers
      const uint64_t more = std::min(cap - share[i], extra - given);
      share[i] += more;
      given += more;
    }
    return share;
  }

  RegionKind pick_kind(bool leaf, size_t depth, Context c) {
    const double u = seq_.unit();
    if (c.in_parallel) {
      if (leaf)
        return u < 0.25                     ? RegionKind::kOmpBarrier
               : u < 0.55 && !c.in_omp_loop ? RegionKind::kOmpLoop
                                            : RegionKind::kFunction;
      return u < 0.35 && !c.in_omp_loop ? RegionKind::kOmpLoop : RegionKind::kFunction;
    }
    if (leaf) {
      if (u < 0.4) return RegionKind::kMpiWait;  // stands for the whole MPI pool
      if (u < 0.55 && o_.gpu_streams_per_process > 0) return RegionKind::kGpuKernel;
      return RegionKind::kFunction;
    }
    if (u < 0.25 && depth >= 2 && o_.threads_per_process > 1) return RegionKind::kOmpParallel;
    if (u < 0.4) return RegionKind::kLoop;
    return RegionKind::kFunction;
  }

  const Pool& pool_of(RegionKind kind) const {
    switch (kind) {
      case RegionKind::kLoop:
        return catalog_.loops;
      case RegionKind::kOmpParallel:
        return catalog_.omp_parallel;
      case RegionKind::kOmpLoop:
        return catalog_.omp_loops;
      case RegionKind::kOmpBarrier:
        return catalog_.omp_barriers;
      case RegionKind::kGpuKernel:
        return catalog_.kernels;
      case RegionKind::kFunction:
        return catalog_.functions;
      default:
        return catalog_.mpi;
    }
  }

  // No region twice on a path (recursion-free) nor twice among siblings.
  bool usable(Index region, const std::vector<Index>& siblings) const {
    return std::find(path_.begin(), path_.end(), region) == path_.end() &&
           std::find(siblings.begin(), siblings.end(), region) == siblings.end();
  }

  Index pick_region(bool leaf, size_t depth, Context c, const std::vector<Index>& siblings) {
    const Pool& pool = pool_of(pick_kind(leaf, depth, c));
    for (int attempt = 0; attempt < 8; ++attempt) {
      const Index r = pool.first + static_cast<Index>(seq_.below(pool.size));
      if (usable(r, siblings)) return r;
    }
    // The function pool outnumbers depth + fanout, so a scan always finds one.
    const Pool& f = catalog_.functions;
    const size_t start = seq_.below(f.size);
    for (size_t i = 0; i < f.size; ++i) {
      const Index r = f.first + static_cast<Index>((start + i) % f.size);
      if (usable(r, siblings)) return r;
    }
    throw Error("generator: no usable region (internal error)");
  }

  const GeneratorOptions& o_;
  Definitions& d_;
  const Catalog& catalog_;
  Sequence seq_;
  std::vector<uint64_t> capacity_;
  std::vector<Index> path_;  // regions from the root to the node being grown
};

// Score-P numbers call paths as the program first enters them, which is not the tree's
// pre-order. Imitated by a depth-first numbering that visits the children of about half the
// nodes in a rotated order.
void assign_cnode_ids(uint64_t seed, Model& m) {
  std::vector<Index> stack(1, 0);
  uint32_t next = 0;
  std::vector<Index> rotated;
  while (!stack.empty()) {
    const Index c = stack.back();
    stack.pop_back();
    m.cnodes[c].id = next++;
    const auto& kids = m.cnodes[c].children;
    if (kids.empty()) continue;
    const uint64_t h = hash(seed, 0xC0DE, c);
    const size_t shift = h % 2 == 0 ? 0 : (h >> 1) % kids.size();
    rotated.assign(kids.begin() + shift, kids.end());
    rotated.insert(rotated.end(), kids.begin(), kids.begin() + shift);
    stack.insert(stack.end(), rotated.rbegin(), rotated.rend());
  }
}

// ---- system tree ---------------------------------------------------------------------------

void add_system(const GeneratorOptions& o, Definitions& d) {
  Model& m = *d.model;
  const size_t per_process = o.threads_per_process + o.gpu_streams_per_process;
  Topology topo;
  topo.name = "Process x Thread";
  topo.dims = {{"Process", static_cast<int64_t>(d.processes), false},
               {"Thread", static_cast<int64_t>(per_process), false}};
  for (size_t machine = 0; machine < o.machines; ++machine) {
    SystemNode mach;
    mach.id = static_cast<uint32_t>(m.system_nodes.size());
    mach.name = "machine cluster" + std::to_string(machine);
    mach.class_name = "machine";
    mach.attrs = {{"platform", "Linux"}};
    const Index mach_index = static_cast<Index>(m.system_nodes.size());
    m.system_nodes.push_back(std::move(mach));
    for (size_t node = 0; node < o.nodes_per_machine; ++node) {
      const size_t node_number = machine * o.nodes_per_machine + node;
      SystemNode n;
      n.id = static_cast<uint32_t>(m.system_nodes.size());
      n.name = "node n" + std::to_string(1000 + node_number);
      n.class_name = "node";
      n.parent = mach_index;
      const Index node_index = static_cast<Index>(m.system_nodes.size());
      m.system_nodes[mach_index].children.push_back(node_index);
      m.system_nodes.push_back(std::move(n));
      for (size_t p = 0; p < o.processes_per_node; ++p) {
        const size_t rank = node_number * o.processes_per_node + p;
        LocationGroup g;
        g.id = static_cast<uint32_t>(m.groups.size());
        g.name = "MPI Rank " + std::to_string(rank);
        g.rank = static_cast<int64_t>(rank);
        g.node = node_index;
        const Index group_index = static_cast<Index>(m.groups.size());
        m.system_nodes[node_index].groups.push_back(group_index);
        for (size_t t = 0; t < per_process; ++t) {
          Location l;
          l.id = static_cast<uint32_t>(m.locations.size());
          const bool gpu = t >= o.threads_per_process;
          const size_t stream = t - o.threads_per_process;
          l.name = gpu      ? "CUDA[" + std::to_string(rank) + ":" + std::to_string(stream) + "]"
                   : t == 0 ? "Master thread"
                            : "OMP thread " + std::to_string(t);
          l.type = gpu ? "gpu" : "thread";
          l.rank = static_cast<int64_t>(t);
          l.group = group_index;
          g.locations.push_back(static_cast<Index>(m.locations.size()));
          const int64_t coord[] = {static_cast<int64_t>(rank), static_cast<int64_t>(t)};
          topo.add_coord(Topology::Owner::kLocation, l.id, coord);
          m.locations.push_back(std::move(l));
        }
        m.groups.push_back(std::move(g));
      }
    }
  }
  m.topologies.push_back(std::move(topo));
}

}  // namespace

Definitions build_definitions(const GeneratorOptions& o) {
  check(o);
  Definitions d;
  d.model = std::make_shared<Model>();
  d.nodes = o.machines * o.nodes_per_machine;
  d.processes = d.nodes * o.processes_per_node;
  d.threads = o.threads_per_process;
  d.gpus = o.gpu_streams_per_process;
  Model& m = *d.model;
  m.version = "4.4";
  m.attrs = {{"CubePL Version", "1.1"},
             {"Creator", "cubekit generate (seed " + std::to_string(o.seed) + ")"},
             {"CUBE_CT_AGGR", "SUM"},
             {"CLUSTERING", "OFF"}};
  add_metrics(o, d);
  const Catalog catalog = add_regions(o, d);
  m.cnodes.reserve(o.call_paths);
  d.scope.reserve(o.call_paths);
  CallTreeBuilder(o, d, catalog).build();
  assign_cnode_ids(o.seed, m);
  add_system(o, d);
  m.finalize("generate");
  return d;
}

}  // namespace cubekit::generator
