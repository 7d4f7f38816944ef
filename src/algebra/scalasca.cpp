// cube_remap2 -s, after CubeLib's remapper (cube4_remap2's "add scalasca metrics" step):
// 1. With OpenMP (a metric omp_time that is not VOID): outside parallel regions every worker
//    thread idles as long as its master works (omp_idle_threads, added to time); at the end of
//    a parallel region each thread idles the difference between the master's and its own
//    accumulated time in it (omp_limited_parallelism, added to omp_idle_threads and time).
// 2. Load imbalance: per call path the average exclusive execution time over the threads (in
//    parallel regions) or processes; the difference of each thread to it goes to imbalance and
//    imbalance_above / _below; call paths not visited by every thread get
//    imbalance_below_bypass, _below_singularity or _above_single.
// Values are written to the stored rows as CubeLib's set_sev / add_sev do, including its
// choices (thresholds, which threads count) so that results agree.
#include "algebra/scalasca.hpp"

#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"

namespace cubekit::algebra {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// CubeLib's Predicates: an OpenMP region (by description, module or name).
bool is_omp(const Region& r) {
  if (r.descr == "OMP" || r.descr == "pomp" || r.mod == "OMP") return true;
  return r.mod != "pomp" && r.mod != "MPI" && r.mod != "mpi" && r.mod != "EPIK" &&
         starts_with(r.name, "!$omp parallel @");
}

bool is_omp_parallel(const std::string& name) {
  return starts_with(name, "!$omp parallel @");
}

// Stored values of some metrics as dense double rows (cnode × location column), starting from
// the base report's values; what the heuristics modify.
class Rows {
 public:
  explicit Rows(const Report& base) : base_(base) {}

  // The metric's index if the report has it as a stored, non-VOID metric of one double.
  std::optional<Index> metric(const std::string& name) const {
    const Model& model = base_.model();
    const auto m = model.metric_by_uniq_name(name);
    if (!m) return std::nullopt;
    const Metric& x = model.metrics[*m];
    if (is_derived(x.kind) || x.is_void || x.ghost) return std::nullopt;
    if (x.dtype.lane_type() != LaneType::kDouble || x.dtype.lanes() != 1) return std::nullopt;
    return m;
  }

  double& at(Index metric, Index cnode, Index column) {
    return rows(metric)[size_t{cnode} * columns() + column];
  }

  // The modified metrics, as matrices in their storage order.
  std::map<Index, std::shared_ptr<const SeverityMatrix>> matrices() const {
    std::map<Index, std::shared_ptr<const SeverityMatrix>> out;
    const Model& model = base_.model();
    for (const auto& [m, values] : rows_) {
      auto matrix =
          std::make_shared<SeverityMatrix>(model.metrics[m].dtype, model.cnodes.size(), columns());
      matrix->reserve_rows(model.cnodes.size());
      for (Index c : storage_order(model, model.metrics[m].kind))
        std::memcpy(matrix->add_row(c), values.data() + size_t{c} * columns(),
                    columns() * sizeof(double));
      out.emplace(m, std::move(matrix));
    }
    return out;
  }

 private:
  size_t columns() const { return base_.model().locations.size(); }
  std::vector<double>& rows(Index metric) {
    auto it = rows_.find(metric);
    if (it != rows_.end()) return it->second;
    const Model& model = base_.model();
    std::vector<double> v(model.cnodes.size() * columns(), 0.0);
    if (const auto matrix = base_.severities(metric))
      for (Index c = 0; c < model.cnodes.size(); ++c)
        if (const std::byte* row = matrix->row(c))
          std::memcpy(v.data() + size_t{c} * columns(), row, columns() * sizeof(double));
    return rows_.emplace(metric, std::move(v)).first->second;
  }

  const Report& base_;
  std::map<Index, std::vector<double>> rows_;
};

// A report whose rows of some metrics are replaced.
class OverlaySource : public SeveritySource {
 public:
  OverlaySource(const Report& base, std::map<Index, std::shared_ptr<const SeverityMatrix>> rows)
      : base_(base), rows_(std::move(rows)) {}
  std::shared_ptr<const SeverityMatrix> load(const Model&, Index metric) const override {
    if (auto it = rows_.find(metric); it != rows_.end()) return it->second;
    return base_.severities(metric);
  }
  bool has_data(const Model&, Index metric) const override {
    return rows_.contains(metric) || base_.has_data(metric);
  }
  void visit_rows(const Model& model, Index metric, const RowVisitor& visit, RowPlacement placement,
                  RowShare share) const override {
    if (!rows_.contains(metric)) return base_.visit_rows(metric, visit, placement, share);
    SeveritySource::visit_rows(model, metric, visit, placement, share);
  }
  std::vector<MemberInfo> members() const override { return base_.members(); }
  std::optional<std::string> member_content(const std::string& name) const override {
    return base_.member_content(name);
  }

 private:
  const Report& base_;
  std::map<Index, std::shared_ptr<const SeverityMatrix>> rows_;
};

std::vector<size_t> depths(const Model& model) {
  std::vector<size_t> depth(model.cnodes.size(), 0);
  for (Index c : pre_order(model))
    if (model.cnodes[c].parent != kNoIndex) depth[c] = depth[model.cnodes[c].parent] + 1;
  return depth;
}

// The first location of the group of location column `l` ("master thread").
std::vector<Index> master_columns(const Model& model) {
  std::vector<Index> master(model.locations.size(), 0);
  for (const Location& loc : model.locations)
    master[loc.id] = model.locations[model.groups[loc.group].locations.front()].id;
  return master;
}

// Part 1: idle threads and limited parallelism.
void idle_threads(const Report& base, Rows& rows, Index time, Index idle, Index limited) {
  const Model& model = base.model();
  const size_t L = model.locations.size();
  const std::vector<size_t> depth = depths(model);
  const std::vector<Index> master = master_columns(model);
  std::vector<double> accumulated(L, 0.0);
  Index region = kNoIndex;  // the parallel region being accumulated
  size_t region_level = SIZE_MAX;
  auto close_region = [&] {
    for (Index t = 0; t < L; ++t) {
      const double idled = accumulated[master[t]] - accumulated[t];
      if (idled < 1e-10) continue;  // below the measurement threshold
      rows.at(limited, region, t) = idled;
      rows.at(idle, region, t) += idled;
      rows.at(time, region, t) += idled;
    }
    region = kNoIndex;
  };
  for (Index c : pre_order(model)) {
    if (depth[c] <= region_level) {
      region_level = is_omp(model.regions[model.cnodes[c].region]) ? depth[c] : SIZE_MAX;
      if (region != kNoIndex) close_region();
    }
    if (region_level != SIZE_MAX) {  // inside a parallel region: accumulate its time
      if (region == kNoIndex) {
        region = c;
        std::fill(accumulated.begin(), accumulated.end(), 0.0);
      }
      for (Index t = 0; t < L; ++t) accumulated[t] += rows.at(time, c, t);
      continue;
    }
    for (const LocationGroup& g : model.groups) {  // serial: workers idle
      const Index m = model.locations[g.locations.front()].id;
      const double value = rows.at(time, c, m);
      for (size_t k = 1; k < g.locations.size(); ++k) {
        const Location& worker = model.locations[g.locations[k]];
        if (worker.type != "thread") continue;
        rows.at(idle, c, worker.id) = value;
        rows.at(time, c, worker.id) += value;
      }
    }
  }
  if (region != kNoIndex) close_region();
}

struct Imbalance {
  std::optional<Index> total, above, single, below, bypass, singularity;
};

void set(Rows& rows, const std::optional<Index>& m, Index c, Index t, double v) {
  if (m) rows.at(*m, c, t) = v;
}

// Part 2: load imbalance, computed on the report with part 1's values.
void load_imbalance(const Report& report, Rows& rows, Index exec, std::optional<Index> visits,
                    const Imbalance& out, bool includes_omp,
                    const std::function<void(const std::string&)>& progress) {
  const Model& model = report.model();
  const size_t C = model.cnodes.size(), L = model.locations.size();
  std::vector<bool> parallel(C, false);  // the call path or one above it is a parallel region
  for (Index c : pre_order(model)) {
    const Cnode& n = model.cnodes[c];
    parallel[c] = is_omp_parallel(model.regions[n.region].name) ||
                  (n.parent != kNoIndex && parallel[n.parent]);
  }
  progress("      Determine numbers of void processes and threads to ignore...done.");
  size_t void_groups = 0, void_threads = 0;
  std::vector<bool> void_column(L, false);
  for (const LocationGroup& g : model.groups) {
    if (g.name.view().find("VOID") == std::string::npos) continue;
    ++void_groups;
    void_threads += g.locations.size();
    for (Index l : g.locations) void_column[model.locations[l].id] = true;
  }
  MetricEngine engine(report);
  const Values sums = engine.aggregated_values(exec, Flavour::kExclusive, Flavour::kExclusive);
  progress("      Calculate average exclusive execution time...done.");
  std::vector<double> average(C);
  for (Index c = 0; c < C; ++c) {
    const bool p = includes_omp && parallel[c];
    average[c] = sums.scalar(c) /
                 static_cast<double>(p ? L - void_threads : model.groups.size() - void_groups);
  }
  std::vector<int64_t> rank(L, 0);
  for (const Location& loc : model.locations) rank[loc.id] = loc.rank;
  for (Index c = 0; c < C; ++c) {
    const Values sev = engine.location_values(exec, c, Flavour::kExclusive, Flavour::kExclusive);
    for (Index t = 0; t < L; ++t) {
      if (void_column[t] || (!includes_omp && rank[t] != 0)) continue;
      if (!parallel[c] && rank[t] != 0) continue;  // workers only count in parallel regions
      const double diff = sev.scalar(t) - average[c];
      if (diff > 0) {
        set(rows, out.total, c, t, diff);
        set(rows, out.above, c, t, diff);
      } else if (diff < 0) {
        set(rows, out.total, c, t, -diff);
        set(rows, out.below, c, t, -diff);
      }
    }
  }
  progress("      Calculate difference to average value...done.");
  const size_t participants = L - void_threads;
  for (Index c = 0; c < C; ++c) {
    const double imbalance = average[c];
    if (imbalance == 0.0 || (includes_omp && !parallel[c])) continue;
    std::vector<int> nvisits(L, 0);
    size_t visitors = 0;
    if (visits) {
      const Values stored = stored_values(report, *visits, c);
      for (Index t = 0; t < L; ++t) {
        if (void_column[t]) continue;
        nvisits[t] = static_cast<int>(stored.scalar(t));
        if (nvisits[t] != 0) ++visitors;
      }
    }
    if (visitors == participants) continue;
    for (Index t = 0; t < L; ++t) {
      if (void_column[t]) continue;
      if (nvisits[t] == 0) set(rows, out.bypass, c, t, imbalance);
      if (visitors != 1) continue;
      if (nvisits[t] == 0)
        set(rows, out.singularity, c, t, imbalance);
      else
        set(rows, out.single, c, t, imbalance * static_cast<double>(participants - 1));
    }
  }
}

}  // namespace

Report add_scalasca_metrics(const Report& base,
                            const std::function<void(const std::string&)>& progress) {
  const Model& model = base.model();
  progress(" Add scalasca specific metrics ...");
  Rows rows(base);
  const auto omp = model.metric_by_uniq_name("omp_time");
  const bool includes_omp = omp && !model.metrics[*omp].is_void;
  if (includes_omp) {
    progress(" Add metrics \"idle threads\" and \"limited parallelism\"...done.");
    const auto time = rows.metric("time"), idle = rows.metric("omp_idle_threads"),
               limited = rows.metric("omp_limited_parallelism");
    if (time && idle && limited) idle_threads(base, rows, *time, *idle, *limited);
  } else {
    progress("done.");
  }
  progress(" Add metrics \"load imbalance\"...");
  auto model_copy = std::make_shared<Model>(model);
  Imbalance out{rows.metric("imbalance"),
                rows.metric("imbalance_above"),
                rows.metric("imbalance_above_single"),
                rows.metric("imbalance_below"),
                rows.metric("imbalance_below_bypass"),
                rows.metric("imbalance_below_singularity")};
  if (model.locations.size() == 1 && out.total) {  // one thread: no imbalance at all
    model_copy->metrics[*out.total].val = "VOID";
    model_copy->finalize(base.path());
  }
  auto exec = model.metric_by_uniq_name("comp");
  if (!exec) exec = model.metric_by_uniq_name("execution");
  // Part 2 reads part 1's values: evaluate on a report that has them.
  auto part1 = std::make_shared<OverlaySource>(base, rows.matrices());
  const Report with_part1(base.path(), model_copy, part1);
  if (exec) {
    std::optional<Index> visits;
    if (auto v = model.metric_by_uniq_name("visits"); v && !is_derived(model.metrics[*v].kind))
      visits = v;
    load_imbalance(with_part1, rows, *exec, visits, out, includes_omp, progress);
  }
  progress(" Add metrics \"imbalance due to singularities and imperfect parallelization\"...done.");
  return Report(base.path(), model_copy, std::make_shared<OverlaySource>(base, rows.matrices()));
}

}  // namespace cubekit::algebra
