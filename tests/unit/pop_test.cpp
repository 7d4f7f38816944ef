// POP metrics (cubekit/pop.hpp) on small reports written here, every value derived by hand
// from the formulas of docs/pop_metrics.md (tools guide §1.3).
#include "cubekit/pop.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/writer.hpp"
#include "unit/small_model.hpp"
#include "unit/tar_builder.hpp"

namespace cubekit {
namespace {

struct RegionSpec {
  std::string name, paradigm, role;
  Index parent;  // kNoIndex for a root; region r is called once, by cnode r
};

struct MetricSpec {
  std::string name;
  std::vector<std::vector<double>> exclusive;  // [cnode][location column]
};

// One call path per region; `threads[p]` locations in process p, columns in that order.
Report write_report(const std::string& path, const std::vector<RegionSpec>& regions,
                    const std::vector<size_t>& threads, const std::vector<MetricSpec>& metrics) {
  auto model = std::make_shared<Model>();
  for (const MetricSpec& m : metrics)
    test::add_metric(*model, m.name, "DOUBLE", MetricKind::kExclusive);
  for (uint32_t r = 0; r < regions.size(); ++r) {
    Region region;
    region.id = r;
    region.name = region.mangled_name = regions[r].name;
    region.paradigm = regions[r].paradigm;
    region.role = regions[r].role;
    model->regions.push_back(region);
    Cnode c;
    c.id = r;
    c.region = r;
    c.parent = regions[r].parent;
    model->cnodes.push_back(c);
    if (c.parent != kNoIndex) model->cnodes[c.parent].children.push_back(r);
  }
  test::add_one_machine(*model, std::vector<uint32_t>(threads.begin(), threads.end()));
  model->finalize("pop_test");
  ReportWriter writer(path, model);
  for (Index m = 0; m < metrics.size(); ++m) {
    writer.begin_metric(m);
    for (Index c : storage_order(*model, MetricKind::kExclusive))
      writer.write_row(c, reinterpret_cast<const std::byte*>(metrics[m].exclusive[c].data()));
    writer.end_metric();
  }
  writer.finish();
  return Report::open(path);
}

// Report A: MPI only, two processes of one thread. Exclusive time [rank 0, rank 1]:
//   0 main            user   [1, 2]
//   1 work            user   [6, 3]   (child of main)
//   2 MPI_Recv        mpi    [1, 4]   (child of main; Scalasca's late sender [0, 3])
//   3 MPI_File_write  mpi    [1, 1]   (child of main)
//   4 write           io     [1, 1]   (child of main)
// run (inclusive time of main) = [10, 11]; computation (main + work) = [7, 5];
// MPI I/O [1, 1]; POSIX I/O [1, 1]; run on an ideal network = run − wait − MPI I/O = [9, 7].
const std::vector<RegionSpec> kMpiTree = {{"main", "user", "function", kNoIndex},
                                          {"work", "user", "function", 0},
                                          {"MPI_Recv", "mpi", "point2point", 0},
                                          {"MPI_File_write", "mpi", "file_io", 0},
                                          {"write", "io", "file_io", 0}};

std::vector<MetricSpec> mpi_metrics(std::vector<double> work, std::vector<double> ins = {},
                                    std::vector<double> cyc = {}) {
  std::vector<MetricSpec> out = {{"time", {{1, 2}, work, {1, 4}, {1, 1}, {1, 1}}},
                                 {"mpi_latesender", {{0, 0}, {0, 0}, {0, 3}, {0, 0}, {0, 0}}}};
  if (!ins.empty()) out.push_back({"PAPI_TOT_INS", {{0, 0}, ins, {0, 0}, {0, 0}, {0, 0}}});
  if (!cyc.empty()) out.push_back({"PAPI_TOT_CYC", {{0, 0}, cyc, {0, 0}, {0, 0}, {0, 0}}});
  return out;
}

// Report B: hybrid, two processes of two threads; columns [p0 t0, p0 t1, p1 t0, p1 t1].
//   0 main                   user                     [2, 0, 1, 0]   serial on the masters
//   1 !$omp parallel         openmp parallel          [1, 1, 1, 1]   (child of main)
//   2 !$omp for              openmp loop              [4, 3, 2, 2]   (child of 1)
//   3 !$omp implicit barrier openmp implicit barrier  [0, 1, 2, 2]   (child of 1)
//   4 MPI_Allreduce          mpi                      [1, 0, 3, 0]   (child of main)
// run = [8, 5, 9, 5] (max 9); computation = main + parallel + loop = [7, 4, 4, 3] (avg 4.5,
// max 7); in OpenMP (parallel region, inclusive) = [5, 5, 5, 5]; computation within OpenMP
// = [5, 4, 3, 3] (avg 3.75). Masters: p0 serial 7 − 5 = 2, busy (OpenMP + serial) 5 + 2 = 7,
// outside MPI 8 − 1 = 7; p1 serial 4 − 3 = 1, busy 5 + 1 = 6, outside MPI 9 − 3 = 6.
// Weighted by threads: avg busy = (2·7 + 2·6)/4 = 6.5, max busy 7, avg serial = 1.5,
// avg OpenMP = 5, idle threads = Σ serial·(threads − 1)/4 = (2 + 1)/4 = 0.75.
Report hybrid_report(const std::string& path) {
  return write_report(
      path,
      {{"main", "user", "function", kNoIndex},
       {"!$omp parallel @a.c:1", "openmp", "parallel", 0},
       {"!$omp for @a.c:2", "openmp", "loop", 1},
       {"!$omp implicit barrier @a.c:3", "openmp", "implicit barrier", 1},
       {"MPI_Allreduce", "mpi", "collective", 0}},
      {2, 2}, {{"time", {{2, 0, 1, 0}, {1, 1, 1, 1}, {4, 3, 2, 2}, {0, 1, 2, 2}, {1, 0, 3, 0}}}});
}

double value(const PopResult& r, const std::string& key) {
  const PopValue* v = r.find(key);
  if (v == nullptr) ADD_FAILURE() << "no " << key;
  if (v == nullptr || !v->value) {
    ADD_FAILURE() << key << " missing: " << (v ? v->missing : "");
    return -1;
  }
  return *v->value;
}

std::string missing(const PopResult& r, const std::string& key) {
  const PopValue* v = r.find(key);
  return v == nullptr || v->value ? "(has a value)" : v->missing;
}

constexpr double kEps = 1e-12;

class Pop : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
  test::TempDir dir_{"pop"};
};

TEST_F(Pop, MpiModelOnTheRoots) {
  const Report a = write_report(path("a.cubex"), kMpiTree, {1, 1}, mpi_metrics({6, 3}));
  const auto results = pop_metrics({&a}, {});
  ASSERT_EQ(results.size(), 1u);
  const PopResult& r = results[0];
  EXPECT_EQ(r.focus, "main");
  EXPECT_EQ(r.call_paths, std::vector<uint32_t>{0});
  EXPECT_NEAR(value(r, "parallel_efficiency"), 6.0 / 11, kEps);       // avg comp 6 / max run 11
  EXPECT_NEAR(value(r, "load_balance_efficiency"), 6.0 / 7, kEps);    // avg 6 / max comp 7
  EXPECT_NEAR(value(r, "communication_efficiency"), 7.0 / 11, kEps);  // max comp / max run
  EXPECT_NEAR(value(r, "serialisation_efficiency"), 7.0 / 9, kEps);   // max comp / max ideal
  EXPECT_NEAR(value(r, "transfer_efficiency"), 9.0 / 11, kEps);       // max ideal / max run
  EXPECT_NEAR(value(r, "computation_efficiency"), 1.0, kEps);         // the reference itself
  EXPECT_NEAR(value(r, "global_efficiency"), 6.0 / 11, kEps);
  // I/O: 21 s in all, 2 in POSIX I/O, 2 in MPI I/O.
  EXPECT_NEAR(value(r, "io_efficiency"), 17.0 / 21, kEps);
  EXPECT_NEAR(value(r, "posix_io_efficiency"), 19.0 / 21, kEps);
  EXPECT_NEAR(value(r, "mpi_io_efficiency"), 19.0 / 21, kEps);
  EXPECT_NEAR(value(r, "min_runtime"), 10, kEps);
  EXPECT_NEAR(value(r, "avg_runtime"), 10.5, kEps);
  EXPECT_NEAR(value(r, "max_runtime"), 11, kEps);
  EXPECT_EQ(missing(r, "ipc"), "not available: needs metrics PAPI_TOT_INS and PAPI_TOT_CYC");
  EXPECT_EQ(missing(r, "instruction_scaling_efficiency"),
            "not available: needs metric PAPI_TOT_INS");
  EXPECT_NE(missing(r, "stalled_resources").find("PAPI_RES_STL"), std::string::npos);
  EXPECT_EQ(r.values.front().key, "global_efficiency");  // hierarchy order, top first
}

// Score-P ≥ 5 roots the tree in an artificial program region: its own time [1, 2] is not
// computation, but what it calls is classified by itself. Computation = work = [6, 3]
// (avg 4.5, max 6), run still [10, 11].
TEST_F(Pop, ArtificialRootIsNeitherComputationNorAContainerOfMpi) {
  std::vector<RegionSpec> tree = kMpiTree;
  tree[0] = {"prog.x", "measurement", "artificial", kNoIndex};
  const Report a = write_report(path("a.cubex"), tree, {1, 1}, mpi_metrics({6, 3}));
  const PopResult r = pop_metrics({&a}, {}).at(0);
  EXPECT_NEAR(value(r, "parallel_efficiency"), 4.5 / 11, kEps);
  EXPECT_NEAR(value(r, "load_balance_efficiency"), 0.75, kEps);
  EXPECT_NEAR(value(r, "communication_efficiency"), 6.0 / 11, kEps);
}

TEST_F(Pop, MpiModelFocusAccumulatedAndIndividually) {
  const Report a = write_report(path("a.cubex"), kMpiTree, {1, 1}, mpi_metrics({6, 3}));
  PopOptions options;
  options.focus = {"work", "2"};  // a region name and a call-path id (MPI_Recv)
  auto results = pop_metrics({&a}, options);
  ASSERT_EQ(results.size(), 1u);
  // work + MPI_Recv: run [7, 7], computation [6, 3], late sender [0, 3]: ideal [7, 4].
  EXPECT_EQ(results[0].focus, "work,MPI_Recv");
  EXPECT_NEAR(value(results[0], "parallel_efficiency"), 4.5 / 7, kEps);
  EXPECT_NEAR(value(results[0], "load_balance_efficiency"), 4.5 / 6, kEps);
  EXPECT_NEAR(value(results[0], "communication_efficiency"), 6.0 / 7, kEps);
  EXPECT_NEAR(value(results[0], "serialisation_efficiency"), 6.0 / 7, kEps);
  EXPECT_NEAR(value(results[0], "transfer_efficiency"), 1.0, kEps);

  options.individually = true;
  results = pop_metrics({&a}, options);
  ASSERT_EQ(results.size(), 2u);
  // work alone: run = computation = [6, 3].
  EXPECT_NEAR(value(results[0], "parallel_efficiency"), 4.5 / 6, kEps);
  EXPECT_NEAR(value(results[0], "load_balance_efficiency"), 0.75, kEps);
  EXPECT_NEAR(value(results[0], "communication_efficiency"), 1.0, kEps);
  // MPI_Recv alone: run [1, 4], no computation, ideal [1, 1].
  EXPECT_EQ(results[1].focus, "MPI_Recv");
  EXPECT_NEAR(value(results[1], "parallel_efficiency"), 0.0, kEps);
  EXPECT_EQ(missing(results[1], "load_balance_efficiency"),
            "not available: the focus has no computation time");
  EXPECT_NEAR(value(results[1], "serialisation_efficiency"), 0.0, kEps);
  EXPECT_NEAR(value(results[1], "transfer_efficiency"), 0.25, kEps);
}

TEST_F(Pop, WithoutWaitStatesSerialisationIsMissing) {
  auto metrics = mpi_metrics({6, 3});
  metrics.pop_back();  // no mpi_latesender
  const Report a = write_report(path("a.cubex"), kMpiTree, {1, 1}, metrics);
  const PopResult r = pop_metrics({&a}, {}).at(0);
  EXPECT_NE(missing(r, "serialisation_efficiency").find("wait-state"), std::string::npos);
  EXPECT_NE(missing(r, "transfer_efficiency").find("mpi_latesender"), std::string::npos);
  EXPECT_NEAR(value(r, "communication_efficiency"), 7.0 / 11, kEps);
}

// Series of three: work [6, 3], [7, 4], [9, 9]; computation totals 12, 14, 21; counters on
// work: instructions 900, 1100, 1800 and cycles 450, 1100, 900 (IPC 2, 1, 2).
TEST_F(Pop, MpiScalingSeriesAgainstTheFirstReport) {
  const Report r1 =
      write_report(path("r1.cubex"), kMpiTree, {1, 1}, mpi_metrics({6, 3}, {600, 300}, {300, 150}));
  const Report r2 =
      write_report(path("r2.cubex"), kMpiTree, {1, 1}, mpi_metrics({7, 4}, {700, 400}, {700, 400}));
  const Report r3 =
      write_report(path("r3.cubex"), kMpiTree, {1, 1}, mpi_metrics({9, 9}, {900, 900}, {450, 450}));
  const auto results = pop_metrics({&r1, &r2, &r3}, {});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2].report, 2u);
  EXPECT_NEAR(value(results[0], "computation_efficiency"), 1.0, kEps);
  EXPECT_NEAR(value(results[1], "computation_efficiency"), 12.0 / 14, kEps);
  EXPECT_NEAR(value(results[2], "computation_efficiency"), 12.0 / 21, kEps);
  // r2: run [11, 12], computation [8, 6]: PE 7/12, GE 7/12 · 12/14 = 0.5.
  EXPECT_NEAR(value(results[1], "global_efficiency"), 0.5, kEps);
  // r3: run [13, 17], computation [10, 11]: PE 10.5/17, GE 10.5/17 · 12/21 = 6/17.
  EXPECT_NEAR(value(results[2], "global_efficiency"), 6.0 / 17, kEps);
  EXPECT_NEAR(value(results[0], "ipc"), 2.0, kEps);
  EXPECT_NEAR(value(results[1], "ipc_scaling_efficiency"), 0.5, kEps);
  EXPECT_NEAR(value(results[2], "ipc_scaling_efficiency"), 1.0, kEps);
  EXPECT_NEAR(value(results[1], "instruction_scaling_efficiency"), 900.0 / 1100, kEps);
  EXPECT_NEAR(value(results[2], "instruction_scaling_efficiency"), 0.5, kEps);
  // Frequency: cycles per second of computation against the first (450 / 12).
  EXPECT_NEAR(value(results[1], "frequency_scaling_efficiency"), (1100.0 / 14) / (450.0 / 12),
              kEps);
  EXPECT_NEAR(value(results[2], "frequency_scaling_efficiency"), (900.0 / 21) / (450.0 / 12), kEps);
}

TEST_F(Pop, HybridMultiplicative) {
  const Report b = hybrid_report(path("b.cubex"));
  PopOptions options;
  options.model = PopModel::kHybridMultiplicative;
  const PopResult r = pop_metrics({&b}, options).at(0);
  EXPECT_NEAR(value(r, "parallel_efficiency"), 4.5 / 9, kEps);  // avg comp / max run
  EXPECT_NEAR(value(r, "process_efficiency"), 6.5 / 9, kEps);   // avg busy / max run
  EXPECT_NEAR(value(r, "computation_load_balance_efficiency"), 6.5 / 7, kEps);
  EXPECT_NEAR(value(r, "mpi_communication_efficiency"), 7.0 / 9, kEps);  // max busy / run
  EXPECT_NEAR(value(r, "thread_efficiency"), 4.5 / 6.5, kEps);           // avg comp / avg busy
  // Amdahl: avg comp / (avg comp in OpenMP + avg serial) = 4.5 / (3.75 + 1.5).
  EXPECT_NEAR(value(r, "amdahl_efficiency"), 4.5 / 5.25, kEps);
  EXPECT_NEAR(value(r, "omp_region_efficiency"), 5.25 / 6.5, kEps);
  EXPECT_NEAR(value(r, "global_efficiency"), 0.5, kEps);
  EXPECT_NE(missing(r, "serialisation_efficiency").find("wait-state"), std::string::npos);
}

TEST_F(Pop, HybridAdditive) {
  const Report b = hybrid_report(path("b.cubex"));
  PopOptions options;
  options.model = PopModel::kHybridAdditive;
  const PopResult r = pop_metrics({&b}, options).at(0);
  EXPECT_NEAR(value(r, "parallel_efficiency"), 4.5 / 9, kEps);
  EXPECT_NEAR(value(r, "process_efficiency"), 6.5 / 9, kEps);
  // (max run − max busy + avg busy) / max run = (9 − 7 + 6.5) / 9.
  EXPECT_NEAR(value(r, "computation_load_balance_efficiency"), 8.5 / 9, kEps);
  EXPECT_NEAR(value(r, "mpi_communication_efficiency"), 7.0 / 9, kEps);
  // (max run − avg busy + avg comp) / max run = (9 − 6.5 + 4.5) / 9.
  EXPECT_NEAR(value(r, "thread_efficiency"), 7.0 / 9, kEps);
  EXPECT_NEAR(value(r, "amdahl_efficiency"), (9 - 0.75) / 9, kEps);  // idle threads 0.75
  // (max run − avg OpenMP + avg comp in OpenMP) / max run = (9 − 5 + 3.75) / 9.
  EXPECT_NEAR(value(r, "omp_region_efficiency"), 7.75 / 9, kEps);
}

TEST_F(Pop, HybridBsc) {
  const Report b = hybrid_report(path("b.cubex"));
  PopOptions options;
  options.model = PopModel::kBsc;
  const PopResult r = pop_metrics({&b}, options).at(0);
  EXPECT_NEAR(value(r, "hybrid_parallel_efficiency"), 4.5 / 9, kEps);
  EXPECT_NEAR(value(r, "hybrid_load_balance_efficiency"), 4.5 / 7, kEps);
  EXPECT_NEAR(value(r, "hybrid_communication_efficiency"), 7.0 / 9, kEps);
  // Outside MPI per location [7, 7, 6, 6]: avg 6.5, max 7.
  EXPECT_NEAR(value(r, "mpi_parallel_efficiency"), 6.5 / 9, kEps);
  EXPECT_NEAR(value(r, "mpi_load_balance_efficiency"), 6.5 / 7, kEps);
  EXPECT_NEAR(value(r, "mpi_communication_efficiency"), 7.0 / 9, kEps);
  EXPECT_NEAR(value(r, "omp_parallel_efficiency"), 4.5 / 6.5, kEps);
  EXPECT_NEAR(value(r, "omp_load_balance_efficiency"), (4.5 / 7) / (6.5 / 7), kEps);
  EXPECT_NEAR(value(r, "omp_communication_efficiency"), 1.0, kEps);
  EXPECT_NEAR(value(r, "global_efficiency"), 0.5, kEps);
}

TEST_F(Pop, MpiModelOnAHybridReportCountsEveryLocation) {
  const Report b = hybrid_report(path("b.cubex"));
  const PopResult r = pop_metrics({&b}, {}).at(0);
  EXPECT_NEAR(value(r, "load_balance_efficiency"), 4.5 / 7, kEps);
  EXPECT_NEAR(value(r, "communication_efficiency"), 7.0 / 9, kEps);
}

TEST_F(Pop, HybridSeriesAndIndividualFocus) {
  const Report b1 = hybrid_report(path("b1.cubex"));
  const Report b2 = hybrid_report(path("b2.cubex"));
  const Report b3 = hybrid_report(path("b3.cubex"));
  PopOptions options;
  options.model = PopModel::kHybridAdditive;
  options.focus = {"main", "!$omp for @a.c:2"};
  options.individually = true;
  const auto results = pop_metrics({&b1, &b2, &b3}, options);
  ASSERT_EQ(results.size(), 6u);  // focus-major
  EXPECT_EQ(results[3].focus, "!$omp for @a.c:2");
  EXPECT_EQ(results[4].report, 1u);
  EXPECT_NEAR(value(results[5], "computation_efficiency"), 1.0, kEps);  // same computation
  // The loop alone is all computation within OpenMP: [4, 3, 2, 2], max 4, avg 2.75.
  EXPECT_NEAR(value(results[3], "parallel_efficiency"), 2.75 / 4, kEps);
}

// Every hybrid model, accumulated and individually, on one report and on a series of three
// equal ones (a series of equal runs scales perfectly: computation efficiency 1 and every
// efficiency as on one report). Focus: main (the whole report: the values of the tests above)
// and the parallel region, where by hand: run [5, 5, 5, 5] (max 5); computation = parallel +
// loop = [5, 4, 3, 3] (avg 3.75, max 5), all of it in OpenMP; OpenMP (inclusive) 5 on every
// location; masters: serial 0, busy 5, outside MPI 5.
TEST_F(Pop, EveryHybridModelAccumulatedAndIndividuallyOnOneReportAndASeries) {
  const Report b1 = hybrid_report(path("s1.cubex"));
  const Report b2 = hybrid_report(path("s2.cubex"));
  const Report b3 = hybrid_report(path("s3.cubex"));
  struct Expected {
    PopModel model;
    std::vector<std::pair<std::string, std::pair<double, double>>> values;  // main, parallel
  };
  const std::vector<Expected> models = {
      {PopModel::kHybridMultiplicative,
       {{"parallel_efficiency", {4.5 / 9, 3.75 / 5}},
        {"process_efficiency", {6.5 / 9, 1}},
        {"computation_load_balance_efficiency", {6.5 / 7, 1}},
        {"mpi_communication_efficiency", {7.0 / 9, 1}},
        {"thread_efficiency", {4.5 / 6.5, 3.75 / 5}},
        {"amdahl_efficiency", {4.5 / 5.25, 1}},
        {"omp_region_efficiency", {5.25 / 6.5, 3.75 / 5}},
        {"global_efficiency", {0.5, 3.75 / 5}}}},
      {PopModel::kHybridAdditive,
       {{"parallel_efficiency", {4.5 / 9, 3.75 / 5}},
        {"process_efficiency", {6.5 / 9, 1}},
        {"computation_load_balance_efficiency", {8.5 / 9, 1}},
        {"mpi_communication_efficiency", {7.0 / 9, 1}},
        {"thread_efficiency", {7.0 / 9, 3.75 / 5}},
        {"amdahl_efficiency", {(9 - 0.75) / 9, 1}},
        {"omp_region_efficiency", {7.75 / 9, 3.75 / 5}}}},
      {PopModel::kBsc,
       {{"hybrid_parallel_efficiency", {4.5 / 9, 3.75 / 5}},
        {"hybrid_load_balance_efficiency", {4.5 / 7, 3.75 / 5}},
        {"hybrid_communication_efficiency", {7.0 / 9, 1}},
        {"mpi_parallel_efficiency", {6.5 / 9, 1}},
        {"mpi_load_balance_efficiency", {6.5 / 7, 1}},
        {"mpi_communication_efficiency", {7.0 / 9, 1}},
        {"omp_parallel_efficiency", {4.5 / 6.5, 3.75 / 5}},
        {"omp_load_balance_efficiency", {(4.5 / 7) / (6.5 / 7), 3.75 / 5}},
        {"omp_communication_efficiency", {1, 1}},
        {"global_efficiency", {0.5, 3.75 / 5}}}},
  };
  for (const Expected& e : models) {
    for (const bool individually : {false, true}) {
      for (const size_t reports : {size_t{1}, size_t{3}}) {
        SCOPED_TRACE(std::to_string(static_cast<int>(e.model)) +
                     (individually ? " individual" : "") + " reports " + std::to_string(reports));
        PopOptions options;
        options.model = e.model;
        options.individually = individually;
        options.focus = {"main", "!$omp parallel @a.c:1"};
        std::vector<const Report*> series = {&b1, &b2, &b3};
        series.resize(reports);
        const std::vector<PopResult> results = pop_metrics(series, options);
        // Accumulated, the two foci count as one: the parallel region lies inside main.
        ASSERT_EQ(results.size(), (individually ? 2 : 1) * reports);
        for (size_t i = 0; i < results.size(); ++i) {
          const bool parallel = individually && i >= reports;  // focus-major
          for (const auto& [key, both] : e.values)
            EXPECT_NEAR(value(results[i], key), parallel ? both.second : both.first, kEps) << key;
          if (results[i].report > 0) {
            EXPECT_NEAR(value(results[i], "computation_efficiency"), 1.0, kEps);
          }
        }
      }
    }
  }
}

TEST_F(Pop, UnknownFocusAndMissingTimeAreErrors) {
  const Report a = write_report(path("a.cubex"), kMpiTree, {1, 1}, mpi_metrics({6, 3}));
  PopOptions options;
  options.focus = {"nothere"};
  EXPECT_THROW(pop_metrics({&a}, options), LookupError);
  options.focus = {"99"};
  EXPECT_THROW(pop_metrics({&a}, options), LookupError);
  const Report no_time = write_report(path("n.cubex"), kMpiTree, {1, 1},
                                      {{"visits", {{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}}});
  EXPECT_THROW(pop_metrics({&no_time}, {}), LookupError);
  EXPECT_EQ(parse_pop_model("hybrid-mult"), PopModel::kHybridMultiplicative);
  EXPECT_FALSE(parse_pop_model("omp"));
}

}  // namespace
}  // namespace cubekit
