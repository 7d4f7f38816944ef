// POP metrics (pop.hpp, docs/pop_metrics.md). Two steps: the time of a focus of interest is
// split per location into activities by the regions of the call tree (Activities), then each
// model's formulas run on those sums.
#include "cubekit/pop.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string_view>

#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"

namespace cubekit {
namespace {

// What a region does, as far as POP is concerned.
enum class Activity : uint8_t {
  kComputation,  // user code, and OpenMP constructs that do work (loop, single, task, ...)
  kOmpParallel,  // an OpenMP parallel region: computation, and the start of "time in OpenMP"
  kOmpOverhead,  // OpenMP runtime: barriers, critical, locks, flush, API calls
  kMpi,
  kMpiIo,
  kPosixIo,
  kOther,  // other parallel paradigms and service libraries (pthread, CUDA, SHMEM, libwrap...)
  // Score-P's artificial regions (the program root since Score-P 5, MEASUREMENT OFF, TRACE
  // BUFFER FLUSH): their own time is not computation, what they call is classified by itself.
  kMeasurement,
};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// OpenMP constructs whose own time is work of the program, by Score-P role.
bool omp_role_is_work(const std::string& role) {
  static const std::set<std::string> kWork = {
      "loop",      "sections", "section",  "single",      "single sblock", "master", "masked",
      "workshare", "task",     "taskloop", "task untied", "function",      "code",   "unknown"};
  return kWork.contains(role);
}

// Cube 3 reports and old profiles have no paradigm: Score-P and Scalasca name OpenMP
// constructs "!$omp <construct> @file:line".
Activity omp_by_name(std::string_view name) {
  name.remove_prefix(std::string_view("!$omp ").size());
  if (starts_with(name, "parallel")) return Activity::kOmpParallel;
  for (std::string_view work : {"for", "do", "loop", "sections", "section", "single", "master",
                                "masked", "workshare", "task"})
    if (starts_with(name, work) && !starts_with(name, "taskwait")) return Activity::kComputation;
  return Activity::kOmpOverhead;
}

Activity classify(const Region& region) {
  const std::string& p = region.paradigm;
  const std::string& name = region.name;
  if (p == "measurement" || region.role == "artificial") return Activity::kMeasurement;
  if (p == "mpi" || starts_with(name, "MPI_"))
    return starts_with(name, "MPI_File") ? Activity::kMpiIo : Activity::kMpi;
  if (p == "openmp") {
    if (region.role == "parallel") return Activity::kOmpParallel;
    if (omp_role_is_work(region.role) && !starts_with(name, "omp_") && !starts_with(name, "!$omp"))
      return Activity::kComputation;
    return starts_with(name, "!$omp") ? omp_by_name(name) : Activity::kOmpOverhead;
  }
  if (starts_with(name, "!$omp")) return omp_by_name(name);
  if (p == "io") return Activity::kPosixIo;
  if (p == "user" || p == "compiler" || p == "sampling" || p == "unknown" || p.empty())
    return Activity::kComputation;
  return Activity::kOther;
}

// Per-location sums (indexed by location column) for one focus of one report.
struct Activities {
  std::vector<double> run, comp, mpi, mpi_io, posix_io, omp, omp_comp, wait;
  // Counter totals over computation, by metric name (absent when the report lacks it).
  std::map<std::string, double> counters;
  bool has_wait_states = false;
  double comp_total() const { return std::accumulate(comp.begin(), comp.end(), 0.0); }
};

// Where a cnode's exclusive value goes, inherited down the tree: everything below an MPI or
// I/O call belongs to it; everything below a parallel region is "in OpenMP".
struct Context {
  Activity activity = Activity::kComputation;
  bool in_parallel = false;
};

Context descend(Context ctx, const Region& region) {
  const Activity own = classify(region);
  const bool inside_call = ctx.activity != Activity::kComputation &&
                           ctx.activity != Activity::kOmpParallel &&
                           ctx.activity != Activity::kMeasurement;
  if (!inside_call) ctx.activity = own;
  if (own == Activity::kOmpParallel) ctx.in_parallel = true;
  return ctx;
}

Context context_of(const Model& model, Index cnode) {
  std::vector<Index> path;
  for (Index c = cnode; c != kNoIndex; c = model.cnodes[c].parent) path.push_back(c);
  Context ctx;
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    ctx = descend(ctx, model.regions[model.cnodes[*it].region]);
  return ctx;
}

// The cnodes of the focus subtrees (each once) with their context. An explicit stack: call
// trees can be deeper than the machine stack.
std::vector<std::pair<Index, Context>> focus_cnodes(const Model& model,
                                                    const std::vector<Index>& focus) {
  std::vector<std::pair<Index, Context>> out, stack;
  std::vector<bool> seen(model.cnodes.size(), false);
  for (Index f : focus) stack.emplace_back(f, context_of(model, f));
  while (!stack.empty()) {
    const auto [c, ctx] = stack.back();
    stack.pop_back();
    if (seen[c]) continue;
    seen[c] = true;
    out.emplace_back(c, ctx);
    for (Index child : model.cnodes[c].children)
      stack.emplace_back(child, descend(ctx, model.regions[model.cnodes[child].region]));
  }
  return out;
}

// Scalasca's wait-state metrics (time waiting for another process, no data moving). Only the
// topmost of those a report has are summed: sub-metrics are inside their parents.
// clang-format off
constexpr std::array<std::string_view, 17> kWaitStates = {
    "mpi_latesender", "mpi_latereceiver", "mpi_earlyreduce", "mpi_earlyscan", "mpi_latebroadcast",
    "mpi_wait_nxn", "mpi_barrier_wait", "mpi_rma_late_post", "mpi_rma_early_wait",
    "mpi_rma_late_complete", "mpi_rma_wait_at_fence", "mpi_rma_wait_at_create",
    "mpi_rma_wait_at_free", "mpi_rma_sync_lock_competition", "mpi_rma_sync_wait_for_progress",
    "mpi_rma_comm_lock_competition", "mpi_rma_comm_wait_for_progress"};
// clang-format on

bool is_wait_state(const Metric& m) {
  return std::find(kWaitStates.begin(), kWaitStates.end(), m.uniq_name) != kWaitStates.end();
}

std::vector<Index> wait_state_metrics(const Model& model) {
  std::vector<Index> out;
  for (Index m = 0; m < model.metrics.size(); ++m) {
    if (!is_wait_state(model.metrics[m])) continue;
    bool below_another = false;
    for (Index p = model.metrics[m].parent; p != kNoIndex; p = model.metrics[p].parent)
      below_another = below_another || is_wait_state(model.metrics[p]);
    if (!below_another) out.push_back(m);
  }
  return out;
}

// Hardware counters the additional metrics use, summed over computation.
// clang-format off
constexpr std::array<std::string_view, 6> kCounters = {
    "PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_RES_STL", "stalled_cycles_backend",
    "stalled_cycles_frontend", "cycles"};
// clang-format on

void add_values(std::vector<double>& sums, const Values& values) {
  for (size_t l = 0; l < values.size() && l < sums.size(); ++l) sums[l] += values.scalar(l);
}

using FocusCnodes = std::vector<std::pair<Index, Context>>;

Index time_metric(const Report& report) {
  const std::optional<Index> time = report.model().metric_by_uniq_name("time");
  if (!time) throw LookupError(report.path() + ": no metric \"time\" (POP needs it)");
  return *time;
}

// The per-location sums, counters aside, all zero for the engine's locations.
Activities zero_activities(const MetricEngine& engine) {
  const size_t n = engine.report().model().locations.size();
  Activities a;
  for (auto* v : {&a.run, &a.comp, &a.mpi, &a.mpi_io, &a.posix_io, &a.omp, &a.omp_comp, &a.wait})
    v->assign(n, 0.0);
  return a;
}

// The sums of the focus's time per location, by activity (a.wait aside).
void add_time(MetricEngine& engine, Index time, const FocusCnodes& cnodes, Activities& a) {
  for (const auto& [c, ctx] : cnodes) {
    const Values v = engine.location_values(time, c, Flavour::kInclusive, Flavour::kExclusive);
    add_values(a.run, v);
    if (ctx.in_parallel) add_values(a.omp, v);
    switch (ctx.activity) {
      case Activity::kComputation:
      case Activity::kOmpParallel:
        add_values(a.comp, v);
        if (ctx.in_parallel) add_values(a.omp_comp, v);
        break;
      case Activity::kMpiIo:
        add_values(a.mpi_io, v);
        [[fallthrough]];
      case Activity::kMpi:
        add_values(a.mpi, v);
        break;
      case Activity::kPosixIo:
        add_values(a.posix_io, v);
        break;
      default:
        break;
    }
  }
}

void add_wait_states(MetricEngine& engine, const FocusCnodes& cnodes, Activities& a) {
  for (Index m : wait_state_metrics(engine.report().model()))
    for (const auto& [c, ctx] : cnodes)
      add_values(a.wait, engine.location_values(m, c, Flavour::kInclusive, Flavour::kExclusive));
}

// The call paths whose counter values count: those of computation.
std::vector<Index> computation_cnodes(const FocusCnodes& cnodes) {
  std::vector<Index> out;
  for (const auto& [c, ctx] : cnodes)
    if (ctx.activity == Activity::kComputation || ctx.activity == Activity::kOmpParallel)
      out.push_back(c);
  return out;
}

// Time first, then the counters, then the wait states: a report broken in several of them fails
// at the same metric however it is measured.
Activities measure(MetricEngine& engine, const std::vector<Index>& focus) {
  const Model& model = engine.report().model();
  const Index time = time_metric(engine.report());
  const FocusCnodes cnodes = focus_cnodes(model, focus);
  Activities a = zero_activities(engine);
  add_time(engine, time, cnodes, a);
  const std::vector<Index> computation = computation_cnodes(cnodes);
  for (std::string_view name : kCounters) {
    const std::optional<Index> m = model.metric_by_uniq_name(name);
    if (!m) continue;
    double& sum = a.counters[std::string(name)];
    for (Index c : computation) {
      const Values v = engine.location_values(*m, c, Flavour::kInclusive, Flavour::kExclusive);
      for (size_t l = 0; l < v.size(); ++l) sum += v.scalar(l);
    }
  }
  a.has_wait_states = !wait_state_metrics(model).empty();
  add_wait_states(engine, cnodes, a);
  return a;
}

std::vector<std::vector<double>*> time_sums(Activities& a) {
  return {&a.run, &a.comp, &a.mpi, &a.mpi_io, &a.posix_io, &a.omp, &a.omp_comp};
}

// measure() of a report split by locations: `columns` is this process's column window of it.
// The per-location sums are those of each location alone, joined in column order; the counter
// totals add each call path's values of every location, joined, in the one-process order.
Activities measure_columns(MetricEngine& columns, const Report& report,
                           const std::vector<Index>& focus, const JoinLocationRows& join) {
  const Model& model = report.model();
  const Index time = time_metric(report);
  const FocusCnodes cnodes = focus_cnodes(model, focus);
  Activities mine = zero_activities(columns), a;
  // Measured in the first row's part: in the job's step, where a failure is agreed.
  const auto sums = join(7, [&](size_t row) {
    if (row == 0) add_time(columns, time, cnodes, mine);
    return *time_sums(mine)[row];
  });
  for (size_t row = 0; row < 7; ++row) *time_sums(a)[row] = sums(row);
  const std::vector<Index> computation = computation_cnodes(cnodes);
  for (std::string_view name : kCounters) {
    const std::optional<Index> m = model.metric_by_uniq_name(name);
    if (!m) continue;
    double& sum = a.counters[std::string(name)];
    const auto values = join(computation.size(), [&](size_t k) {
      const Values v =
          columns.location_values(*m, computation[k], Flavour::kInclusive, Flavour::kExclusive);
      std::vector<double> row(v.size());
      for (size_t l = 0; l < v.size(); ++l) row[l] = v.scalar(l);
      return row;
    });
    for (size_t k = 0; k < computation.size(); ++k)
      for (double x : values(k)) sum += x;
  }
  a.has_wait_states = !wait_state_metrics(model).empty();
  a.wait = join(1, [&](size_t) {
    add_wait_states(columns, cnodes, mine);
    return mine.wait;
  })(0);
  return a;
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}
double sum_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}
double avg_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : sum_of(v) / v.size();
}

// Per process (location group), from its master thread (the lowest thread rank): what the
// process-level formulas of the hybrid models see. Averages over processes are weighted by
// the number of threads (the guide's weighted arithmetic mean): one entry per location.
struct Processes {
  std::vector<double> busy;     // per location: its process's time in OpenMP + serial comp.
  std::vector<double> outside;  // per location: its process's run time outside MPI
  std::vector<double> serial;   // per location: its process's serial computation
  std::vector<double> ideal;    // per location: its process's run time on an ideal network
  double serial_once = 0;       // Σ over processes of serial computation (not weighted)
};

Processes processes(const Model& model, const Activities& a) {
  Processes p;
  for (const LocationGroup& g : model.groups) {
    if (g.locations.empty()) continue;
    Index master = g.locations.front();
    for (Index l : g.locations)
      if (model.locations[l].rank < model.locations[master].rank) master = l;
    const uint32_t m = model.locations[master].id;
    const double serial = a.comp[m] - a.omp_comp[m];
    p.serial_once += serial;
    for (size_t t = 0; t < g.locations.size(); ++t) {
      p.busy.push_back(a.omp[m] + serial);
      p.outside.push_back(a.run[m] - a.mpi[m]);
      p.serial.push_back(serial);
      p.ideal.push_back(a.run[m] - a.wait[m] - a.mpi_io[m]);
    }
  }
  return p;
}

class ResultBuilder {
 public:
  explicit ResultBuilder(std::vector<PopValue>& out) : out_(out) {}
  void value(const char* key, const char* label, int depth, double v) {
    out_.push_back({key, label, depth, v, {}});
  }
  void missing(const char* key, const char* label, int depth, std::string why) {
    out_.push_back({key, label, depth, std::nullopt, std::move(why)});
  }
  // num / den, or missing when den is 0 (nothing to divide by).
  void ratio(const char* key, const char* label, int depth, double num, double den,
             const char* zero_note) {
    if (den > 0)
      value(key, label, depth, num / den);
    else
      missing(key, label, depth, std::string("not available: ") + zero_note);
  }
  // The same for a fraction that needs counters the report may lack (nullopt: `needs` says
  // which).
  void ratio(const char* key, const char* label, int depth,
             std::optional<std::pair<double, double>> fraction, const char* zero_note,
             const char* needs) {
    if (fraction)
      ratio(key, label, depth, fraction->first, fraction->second, zero_note);
    else
      missing(key, label, depth, std::string("not available: needs ") + needs);
  }

 private:
  std::vector<PopValue>& out_;
};

constexpr const char* kNoTime = "the focus has no time";
constexpr const char* kNoComp = "the focus has no computation time";
constexpr const char* kNoWaits =
    "not available: needs Scalasca wait-state metrics (mpi_latesender, mpi_wait_nxn, ...)";

// Serialisation and transfer efficiency split a communication efficiency `busy_max / run_max`.
void serialisation_and_transfer(ResultBuilder& out, int depth, const Activities& a, double busy_max,
                                const std::vector<double>& ideal) {
  if (!a.has_wait_states) {
    out.missing("serialisation_efficiency", "Serialisation Efficiency", depth, kNoWaits);
    out.missing("transfer_efficiency", "Transfer Efficiency", depth, kNoWaits);
    return;
  }
  out.ratio("serialisation_efficiency", "Serialisation Efficiency", depth, busy_max, max_of(ideal),
            kNoTime);
  out.ratio("transfer_efficiency", "Transfer Efficiency", depth, max_of(ideal), max_of(a.run),
            kNoTime);
}

void mpi_model(ResultBuilder& out, const Activities& a) {
  const double run = max_of(a.run), comp_max = max_of(a.comp), comp_avg = avg_of(a.comp);
  out.ratio("parallel_efficiency", "Parallel Efficiency", 1, comp_avg, run, kNoTime);
  out.ratio("load_balance_efficiency", "Load Balance Efficiency", 2, comp_avg, comp_max, kNoComp);
  out.ratio("communication_efficiency", "Communication Efficiency", 2, comp_max, run, kNoTime);
  std::vector<double> ideal(a.run.size());
  for (size_t l = 0; l < ideal.size(); ++l) ideal[l] = a.run[l] - a.wait[l] - a.mpi_io[l];
  serialisation_and_transfer(out, 3, a, comp_max, ideal);
}

// The averages both hybrid models use (see docs/pop_metrics.md for the names).
struct HybridSums {
  double run, avg_comp, avg_omp_comp, avg_busy, max_busy, avg_serial, avg_idle;
};

HybridSums hybrid_sums(const Activities& a, const Processes& p) {
  HybridSums h;
  h.run = max_of(a.run);
  h.avg_comp = avg_of(a.comp);
  h.avg_omp_comp = avg_of(a.omp_comp);
  h.avg_busy = avg_of(p.busy);
  h.max_busy = max_of(p.busy);
  h.avg_serial = avg_of(p.serial);
  // Threads idle while their master computes serially: the weighted serial computation minus
  // the serial computation the threads really did (the master's share, usually).
  h.avg_idle = h.avg_serial - (h.avg_comp - h.avg_omp_comp);
  return h;
}

void hybrid_model(ResultBuilder& out, const Activities& a, const Processes& p, bool additive) {
  const HybridSums h = hybrid_sums(a, p);
  out.ratio("parallel_efficiency", "Parallel Efficiency", 1, h.avg_comp, h.run, kNoTime);
  out.ratio("process_efficiency", "Process Efficiency", 2, h.avg_busy, h.run, kNoTime);
  if (additive)
    out.ratio("computation_load_balance_efficiency", "Computation Load Balance", 3,
              h.run - h.max_busy + h.avg_busy, h.run, kNoTime);
  else
    out.ratio("computation_load_balance_efficiency", "Computation Load Balance", 3, h.avg_busy,
              h.max_busy, kNoComp);
  out.ratio("mpi_communication_efficiency", "MPI Communication Efficiency", 3, h.max_busy, h.run,
            kNoTime);
  serialisation_and_transfer(out, 4, a, h.max_busy, p.ideal);
  const double avg_omp = h.avg_busy - h.avg_serial;
  if (additive) {
    out.ratio("thread_efficiency", "Thread Efficiency", 2, h.run - h.avg_busy + h.avg_comp, h.run,
              kNoTime);
    out.ratio("amdahl_efficiency", "Amdahl's Efficiency", 3, h.run - h.avg_idle, h.run, kNoTime);
    out.ratio("omp_region_efficiency", "OpenMP Region Efficiency", 3,
              h.run - avg_omp + h.avg_omp_comp, h.run, kNoTime);
  } else {
    out.ratio("thread_efficiency", "Thread Efficiency", 2, h.avg_comp, h.avg_busy, kNoComp);
    out.ratio("amdahl_efficiency", "Amdahl's Efficiency", 3, h.avg_comp,
              h.avg_omp_comp + h.avg_serial, kNoComp);
    out.ratio("omp_region_efficiency", "OpenMP Region Efficiency", 3, h.avg_omp_comp + h.avg_serial,
              h.avg_busy, kNoComp);
  }
}

void bsc_model(ResultBuilder& out, const Activities& a, const Processes& p) {
  const double run = max_of(a.run), avg_comp = avg_of(a.comp), max_comp = max_of(a.comp);
  const double avg_out = avg_of(p.outside), max_out = max_of(p.outside);
  out.ratio("hybrid_parallel_efficiency", "Hybrid Parallel Efficiency", 1, avg_comp, run, kNoTime);
  out.ratio("hybrid_load_balance_efficiency", "Hybrid Load Balance Efficiency", 2, avg_comp,
            max_comp, kNoComp);
  out.ratio("hybrid_communication_efficiency", "Hybrid Communication Efficiency", 2, max_comp, run,
            kNoTime);
  out.ratio("mpi_parallel_efficiency", "MPI Parallel Efficiency", 2, avg_out, run, kNoTime);
  out.ratio("mpi_load_balance_efficiency", "MPI Load Balance Efficiency", 3, avg_out, max_out,
            kNoTime);
  out.ratio("mpi_communication_efficiency", "MPI Communication Efficiency", 3, max_out, run,
            kNoTime);
  serialisation_and_transfer(out, 4, a, max_out, p.ideal);
  out.ratio("omp_parallel_efficiency", "OpenMP Parallel Efficiency", 2, avg_comp, avg_out, kNoTime);
  // (avg_comp / max_comp) / (avg_out / max_out), written so that no ratio divides by zero.
  out.ratio("omp_load_balance_efficiency", "OpenMP Load Balance Efficiency", 3, avg_comp * max_out,
            max_comp * avg_out, kNoComp);
  out.ratio("omp_communication_efficiency", "OpenMP Communication Efficiency", 3, max_comp, max_out,
            kNoTime);
}

std::optional<double> counter(const Activities& a, const char* name) {
  const auto it = a.counters.find(name);
  return it == a.counters.end() ? std::nullopt : std::optional<double>(it->second);
}

// Computation efficiency and its parts, each this report against the first of the series.
void scaling(ResultBuilder& out, const Activities& a, const Activities& ref) {
  out.ratio("computation_efficiency", "Computation Efficiency", 1, ref.comp_total(), a.comp_total(),
            kNoComp);
  const auto ins = counter(a, "PAPI_TOT_INS"), ref_ins = counter(ref, "PAPI_TOT_INS");
  const auto cyc = counter(a, "PAPI_TOT_CYC"), ref_cyc = counter(ref, "PAPI_TOT_CYC");
  using Fraction = std::optional<std::pair<double, double>>;
  out.ratio("ipc_scaling_efficiency", "IPC Scaling Efficiency", 2,
            ins && cyc && ref_ins && ref_cyc ? Fraction{{*ins * *ref_cyc, *cyc * *ref_ins}}
                                             : std::nullopt,
            "no cycles or instructions in computation", "metrics PAPI_TOT_INS and PAPI_TOT_CYC");
  out.ratio("instruction_scaling_efficiency", "Instruction Scaling Efficiency", 2,
            ins && ref_ins ? Fraction{{*ref_ins, *ins}} : std::nullopt,
            "no instructions in computation", "metric PAPI_TOT_INS");
  // (cyc / comp) / (ref_cyc / ref_comp)
  out.ratio("frequency_scaling_efficiency", "Frequency Scaling Efficiency", 2,
            cyc && ref_cyc ? Fraction{{*cyc * ref.comp_total(), a.comp_total() * *ref_cyc}}
                           : std::nullopt,
            "no cycles in computation", "metric PAPI_TOT_CYC");
}

void stalled_resources(ResultBuilder& out, const Activities& a) {
  const char* key = "stalled_resources";
  const char* label = "Stalled Resources";
  const auto papi_stl = counter(a, "PAPI_RES_STL"), papi_cyc = counter(a, "PAPI_TOT_CYC");
  const auto back = counter(a, "stalled_cycles_backend");
  const auto front = counter(a, "stalled_cycles_frontend"), cycles = counter(a, "cycles");
  if (papi_stl && papi_cyc)
    out.ratio(key, label, 0, *papi_stl, *papi_cyc, "no cycles in computation");
  else if (cycles && (back || front))
    out.ratio(key, label, 0, back.value_or(0) + front.value_or(0), *cycles,
              "no cycles in computation");
  else
    out.missing(key, label, 0,
                "not available: needs metrics PAPI_RES_STL and PAPI_TOT_CYC (or "
                "stalled_cycles_backend / stalled_cycles_frontend and cycles)");
}

// §1.3.6: I/O, IPC, stalled resources and the control metrics (run time across locations).
void additional(ResultBuilder& out, const Activities& a) {
  const double run = sum_of(a.run), posix = sum_of(a.posix_io), mpi_io = sum_of(a.mpi_io);
  out.ratio("io_efficiency", "I/O Efficiency", 0, run - posix - mpi_io, run, kNoTime);
  out.ratio("posix_io_efficiency", "POSIX I/O Efficiency", 1, run - posix, run, kNoTime);
  out.ratio("mpi_io_efficiency", "MPI I/O Efficiency", 1, run - mpi_io, run, kNoTime);
  const auto ins = counter(a, "PAPI_TOT_INS"), cyc = counter(a, "PAPI_TOT_CYC");
  out.ratio("ipc", "IPC (instructions per cycle in computation)", 0,
            ins && cyc ? std::optional<std::pair<double, double>>{{*ins, *cyc}} : std::nullopt,
            "no cycles in computation", "metrics PAPI_TOT_INS and PAPI_TOT_CYC");
  stalled_resources(out, a);
  if (a.run.empty()) return;
  out.value("min_runtime", "Minimum Run Time (s)", 0,
            *std::min_element(a.run.begin(), a.run.end()));
  out.value("avg_runtime", "Average Run Time (s)", 0, avg_of(a.run));
  out.value("max_runtime", "Maximum Run Time (s)", 0, max_of(a.run));
}

std::vector<PopValue> evaluate(const Model& model, PopModel pop_model, const Activities& a,
                               const Activities& ref) {
  std::vector<PopValue> values;
  ResultBuilder out(values);
  if (pop_model == PopModel::kMpi)
    mpi_model(out, a);
  else if (pop_model == PopModel::kBsc)
    bsc_model(out, a, processes(model, a));
  else
    hybrid_model(out, a, processes(model, a), pop_model == PopModel::kHybridAdditive);
  const size_t parallel_end = values.size();
  scaling(out, a, ref);
  // Global efficiency = parallel efficiency × computation efficiency, on top.
  PopValue global{"global_efficiency", "Global Efficiency", 0, std::nullopt, {}};
  const PopValue& parallel = values.front();
  const PopValue& computation = values[parallel_end];
  if (parallel.value && computation.value)
    global.value = *parallel.value * *computation.value;
  else
    global.missing = !parallel.value ? parallel.missing : computation.missing;
  values.insert(values.begin(), std::move(global));
  additional(out, a);
  return values;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The cnodes one focus item names: a call-path id, or every call path of a region name.
std::vector<Index> resolve_item(const Report& report, const std::string& item) {
  const Model& model = report.model();
  std::vector<Index> out;
  if (all_digits(item)) {
    std::optional<Index> c;
    if (item.size() <= 10 && std::stoull(item) <= UINT32_MAX)
      c = model.cnode_by_id(static_cast<uint32_t>(std::stoull(item)));
    if (!c) throw LookupError(report.path() + ": no call path with id " + item);
    out.push_back(*c);
    return out;
  }
  for (Index c = 0; c < model.cnodes.size(); ++c)
    if (model.regions[model.cnodes[c].region].name == item) out.push_back(c);
  if (out.empty())
    throw LookupError(report.path() + ": no call path of a region named \"" + item + "\"");
  return out;
}

// The focus groups: one with every item together, or one per item.
std::vector<std::vector<std::string>> focus_groups(const PopOptions& options) {
  if (!options.individually || options.focus.empty()) return {options.focus};
  std::vector<std::vector<std::string>> groups;
  for (const std::string& item : options.focus) groups.push_back({item});
  return groups;
}

std::vector<Index> resolve(const Report& report, const std::vector<std::string>& items) {
  if (items.empty()) return report.model().cnode_roots();
  std::vector<Index> out;
  for (const std::string& item : items) {
    const std::vector<Index> cnodes = resolve_item(report, item);
    out.insert(out.end(), cnodes.begin(), cnodes.end());
  }
  return out;
}

std::string focus_name(const Model& model, const std::vector<Index>& cnodes) {
  std::vector<std::string> names;
  for (Index c : cnodes) {
    const std::string& name = model.regions[model.cnodes[c].region].name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

PopResult result_of(const Model& model, size_t report, const std::vector<Index>& cnodes,
                    std::vector<PopValue> values) {
  PopResult result;
  result.focus = focus_name(model, cnodes);
  for (Index c : cnodes) result.call_paths.push_back(model.cnodes[c].id);
  result.report = report;
  result.values = std::move(values);
  return result;
}

}  // namespace

std::optional<PopModel> parse_pop_model(const std::string& name) {
  if (name == "mpi") return PopModel::kMpi;
  if (name == "hybrid-add") return PopModel::kHybridAdditive;
  if (name == "hybrid-mult") return PopModel::kHybridMultiplicative;
  if (name == "bsc") return PopModel::kBsc;
  return std::nullopt;
}

const PopValue* PopResult::find(const std::string& key) const {
  for (const PopValue& v : values)
    if (v.key == key) return &v;
  return nullptr;
}

std::vector<PopResult> pop_metrics(const std::vector<const Report*>& series,
                                   const PopOptions& options) {
  return pop_metrics(series, options, std::vector<bool>(series.size(), true));
}

std::vector<PopResult> pop_metrics(const std::vector<const Report*>& series,
                                   const PopOptions& options, const std::vector<bool>& wanted) {
  if (series.empty()) throw Error("POP metrics need at least one report");
  const auto measured_here = [&](size_t r) { return r == 0 || wanted.at(r); };
  std::vector<std::unique_ptr<MetricEngine>> engines(series.size());
  for (size_t r = 0; r < series.size(); ++r)
    if (measured_here(r)) engines[r] = std::make_unique<MetricEngine>(*series[r]);
  std::vector<PopResult> results;
  for (const std::vector<std::string>& items : focus_groups(options)) {
    std::vector<Activities> measured(series.size());
    std::vector<std::vector<Index>> cnodes(series.size());
    for (size_t r = 0; r < series.size(); ++r) {
      if (!measured_here(r)) continue;
      cnodes[r] = resolve(*series[r], items);
      measured[r] = measure(*engines[r], cnodes[r]);
    }
    for (size_t r = 0; r < series.size(); ++r) {
      if (!wanted[r]) continue;
      const Model& model = series[r]->model();
      results.push_back(result_of(model, r, cnodes[r],
                                  evaluate(model, options.model, measured[r], measured.front())));
    }
  }
  return results;
}

bool pop_reads_stored_metrics(const Report& report) {
  const Model& model = report.model();
  std::vector<Index> read = wait_state_metrics(model);
  for (std::string_view name : kCounters)
    if (const auto m = model.metric_by_uniq_name(name)) read.push_back(*m);
  if (const auto time = model.metric_by_uniq_name("time")) read.push_back(*time);
  return std::none_of(read.begin(), read.end(),
                      [&](Index m) { return is_derived(model.metrics[m].kind); });
}

std::vector<PopResult> pop_metrics_of_columns(const Report& report, const Report& columns,
                                              const PopOptions& options,
                                              const JoinLocationRows& join) {
  MetricEngine engine(columns);
  const Model& model = report.model();
  std::vector<PopResult> results;
  for (const std::vector<std::string>& items : focus_groups(options)) {
    const std::vector<Index> cnodes = resolve(report, items);
    const Activities a = measure_columns(engine, report, cnodes, join);
    results.push_back(result_of(model, 0, cnodes, evaluate(model, options.model, a, a)));
  }
  return results;
}

}  // namespace cubekit
