// CubePL evaluation speed (issue 4): values per second per core of a derived metric computed
// over every call path and location of a generated report, on one thread.
//
// BM_PrederivedRatio: PREDERIVED_EXCLUSIVE `metric::time(e) / metric::visits(e)` (time per
// visit), the typical Score-P derived metric; one iteration builds a fresh MetricEngine (so
// nothing derived is cached) and asks for the aggregated values of every call path, which
// evaluates the expression for all C × L (call path, location) points. The stored inputs are
// decoded before timing: this measures CubePL, not decoding.
//
// BM_PlainRowPass: the floor for BM_PrederivedRatio: one pass summing the same stored rows
// its operands come from (time as doubles, visits as integers, every call path), in the same
// run (bench/cubepl.sh prints the ratio). Values = C × L as above.
//
// BM_ScorepSpecHierarchy: the generated report remapped with Score-P's scorep.spec (38
// PREDERIVED_EXCLUSIVE and 10 POSTDERIVED metrics that sort time into MPI, OpenMP, ... by
// region name and paradigm; from ../shared, skipped without it); one iteration evaluates every
// derived metric over every call path and location. Values = derived metrics × C × L.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "cubekit/derived.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/remap.hpp"
#include "cubekit/report.hpp"

namespace {

using cubekit::Index;

// A report made from a generated one (2,000 call paths × 256 locations) by `make(input, path)`:
// written once per process, removed at exit, every stored metric decoded up front.
class BenchReport {
 public:
  using Make = std::function<void(const cubekit::Report& input, const std::string& path)>;
  BenchReport(const std::string& tag, const Make& make) {
    const std::string base = "/tmp/cubekit_cubepl_bench_" + std::to_string(getpid()) + "_" + tag;
    generated_ = base + "_in.cubex";
    path_ = base + ".cubex";
    cubekit::GeneratorOptions o;
    o.call_paths = 2000;
    o.nodes_per_machine = 4;
    o.processes_per_node = 16;
    o.threads_per_process = 4;
    cubekit::generate_report(generated_, o);
    make(cubekit::Report::open(generated_), path_);
    report_ = std::make_unique<cubekit::Report>(cubekit::Report::open(path_));
    for (Index i = 0; i < report_->model().metrics.size(); ++i) report_->severities(i);
  }
  ~BenchReport() {
    std::remove(generated_.c_str());
    std::remove(path_.c_str());
  }
  const cubekit::Report& report() const { return *report_; }
  Index metric(const std::string& name) const {
    return *report_->model().metric_by_uniq_name(name);
  }

 private:
  std::string generated_, path_;
  std::unique_ptr<cubekit::Report> report_;
};

// The generated report with PREDERIVED_EXCLUSIVE time_per_visit = time(e) / visits(e) added.
const BenchReport& ratio_report() {
  static const BenchReport r("ratio", [](const cubekit::Report& in, const std::string& path) {
    cubekit::derive_metric(in,
                           {"time_per_visit", "metric::time(e) / metric::visits(e)", "",
                            cubekit::MetricKind::kPrederivedExclusive},
                           path);
  });
  return r;
}

template <class T>
T load(const std::byte* row, size_t i) {
  T v;
  std::memcpy(&v, row + i * sizeof(T), sizeof(T));
  return v;
}

void BM_PrederivedRatio(benchmark::State& state) {
  const BenchReport& r = ratio_report();
  const cubekit::Model& model = r.report().model();
  const Index ratio = r.metric("time_per_visit");
  {  // The value of the busiest leaf, by hand from the stored metrics: a wrong engine must not
     // look fast.
    const Index time = *model.metric_by_uniq_name("time"),
                visits = *model.metric_by_uniq_name("visits");
    const auto ex = cubekit::Flavour::kExclusive;
    cubekit::MetricEngine engine(r.report());
    const cubekit::Values all = engine.aggregated_values(ratio, cubekit::Flavour::kInclusive, ex);
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      const cubekit::Values t = engine.location_values(time, c, ex, ex);
      const cubekit::Values v = engine.location_values(visits, c, ex, ex);
      double expect = 0;
      for (size_t l = 0; l < model.locations.size(); ++l)
        // CubePL's x / 0 is ±DBL_MAX (cubepl.md §5), so sums may overflow to ±inf.
        expect += v.scalar(l) != 0  ? t.scalar(l) / v.scalar(l)
                  : t.scalar(l) > 0 ? DBL_MAX
                                    : -DBL_MAX;
      const double got = all.scalar(c);
      if (got != expect && !(std::abs(got - expect) <= 1e-9 * std::abs(expect))) {
        state.SkipWithError("time_per_visit differs from time / visits");
        return;
      }
    }
  }
  for (auto _ : state) {
    cubekit::MetricEngine engine(r.report());
    benchmark::DoNotOptimize(engine.aggregated_values(ratio, cubekit::Flavour::kInclusive,
                                                      cubekit::Flavour::kExclusive));
  }
  state.SetItemsProcessed(
      static_cast<int64_t>(state.iterations() * model.cnodes.size() * model.locations.size()));
  state.counters["call_paths"] = static_cast<double>(model.cnodes.size());
  state.counters["locations"] = static_cast<double>(model.locations.size());
}
BENCHMARK(BM_PrederivedRatio)->Unit(benchmark::kMillisecond);

void BM_PlainRowPass(benchmark::State& state) {
  const cubekit::Report& report = ratio_report().report();
  const cubekit::Model& model = report.model();
  const auto time = report.severities(*model.metric_by_uniq_name("time"));
  const auto visits = report.severities(*model.metric_by_uniq_name("visits"));
  const size_t L = model.locations.size();
  for (auto _ : state) {
    double seconds = 0;
    uint64_t count = 0;
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      if (const std::byte* row = time->row(c))
        for (size_t l = 0; l < L; ++l) seconds += load<double>(row, l);
      if (const std::byte* row = visits->row(c))
        for (size_t l = 0; l < L; ++l) count += load<uint64_t>(row, l);
    }
    benchmark::DoNotOptimize(seconds);
    benchmark::DoNotOptimize(count);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * model.cnodes.size() * L));
}
BENCHMARK(BM_PlainRowPass)->Unit(benchmark::kMillisecond);

void BM_ScorepSpecHierarchy(benchmark::State& state) {
  const std::filesystem::path spec =
      std::filesystem::path(CUBEKIT_SHARED_DIR) / "data/real/cubelib/remap/scorep.spec";
  if (!std::filesystem::exists(spec)) {
    state.SkipWithError("../shared absent: no scorep.spec");
    return;
  }
  // The generated report remapped with scorep.spec, derived metrics kept.
  static const BenchReport r("spec", [&](const cubekit::Report& in, const std::string& path) {
    std::ifstream file(spec);
    std::stringstream text;
    text << file.rdbuf();
    const cubekit::RemapSpec parsed = cubekit::parse_remap_spec(text.str(), spec.string());
    cubekit::remap_report(in, &parsed, {}, path);
  });
  const cubekit::Model& model = r.report().model();
  std::vector<Index> derived;
  for (Index m = 0; m < model.metrics.size(); ++m)
    if (cubekit::is_derived(model.metrics[m].kind)) derived.push_back(m);
  for (auto _ : state) {
    cubekit::MetricEngine engine(r.report());
    for (Index m : derived)
      benchmark::DoNotOptimize(
          engine.aggregated_values(m, cubekit::Flavour::kInclusive, cubekit::Flavour::kExclusive));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * derived.size() *
                                               model.cnodes.size() * model.locations.size()));
  state.counters["derived_metrics"] = static_cast<double>(derived.size());
}
BENCHMARK(BM_ScorepSpecHierarchy)->Unit(benchmark::kMillisecond);

}  // namespace
