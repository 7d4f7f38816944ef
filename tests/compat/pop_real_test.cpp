// POP metrics on every real profile of ../shared/data/real: the identities of each model's
// hierarchy hold to rounding, efficiencies lie in [0, 1], and what cannot be computed is
// said (docs/pop_metrics.md). Also cube_pop_metrics' outputs and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/pop.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace cubekit {
namespace {

// Skips without ../shared, except under CI=true where its absence is a failure.
bool need_shared() {
  if (!test::shared_dir().empty()) return true;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true") ADD_FAILURE() << "../shared absent under CI";
  return false;
}

std::vector<fs::path> real_profiles() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(test::shared_dir() / "data" / "real")) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".cubex" || ext == ".cube")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

constexpr double kTolerance = 1e-9;

class Identities {
 public:
  Identities(const PopResult& r, const std::string& where) : r_(r), where_(where) {}
  const PopValue* get(const char* key) const {
    const PopValue* v = r_.find(key);
    return v != nullptr && v->value ? v : nullptr;
  }
  void product(const char* whole, const char* a, const char* b) const {
    const PopValue *w = get(whole), *x = get(a), *y = get(b);
    if (w && x && y) {
      EXPECT_NEAR(*w->value, *x->value * *y->value, kTolerance) << where_ << whole;
    }
  }
  void sum(const char* whole, const char* a, const char* b) const {
    const PopValue *w = get(whole), *x = get(a), *y = get(b);
    if (w && x && y) {
      EXPECT_NEAR(*w->value, *x->value + *y->value - 1, kTolerance) << where_ << whole;
    }
  }

 private:
  const PopResult& r_;
  std::string where_;
};

void check_hierarchy(PopModel model, const PopResult& r, const std::string& where) {
  const Identities id(r, where);
  const char* pe = model == PopModel::kBsc ? "hybrid_parallel_efficiency" : "parallel_efficiency";
  id.product("global_efficiency", pe, "computation_efficiency");
  if (model == PopModel::kMpi) {
    id.product("parallel_efficiency", "load_balance_efficiency", "communication_efficiency");
    id.product("communication_efficiency", "serialisation_efficiency", "transfer_efficiency");
  } else if (model == PopModel::kBsc) {
    id.product(pe, "hybrid_load_balance_efficiency", "hybrid_communication_efficiency");
    id.product("mpi_parallel_efficiency", "mpi_load_balance_efficiency",
               "mpi_communication_efficiency");
    id.product(pe, "mpi_parallel_efficiency", "omp_parallel_efficiency");
    id.product("mpi_communication_efficiency", "serialisation_efficiency", "transfer_efficiency");
  } else {
    const bool add = model == PopModel::kHybridAdditive;
    auto both = [&](const char* w, const char* a, const char* b) {
      add ? id.sum(w, a, b) : id.product(w, a, b);
    };
    both(pe, "process_efficiency", "thread_efficiency");
    both("process_efficiency", "computation_load_balance_efficiency",
         "mpi_communication_efficiency");
    both("thread_efficiency", "amdahl_efficiency", "omp_region_efficiency");
    id.product("mpi_communication_efficiency", "serialisation_efficiency", "transfer_efficiency");
  }
  for (const PopValue& v : r.values) {
    if (!v.value) {
      EXPECT_NE(v.missing.find("not available"), std::string::npos) << where << v.key;
      continue;
    }
    if (v.key == "ipc" || v.key.ends_with("_runtime")) continue;
    EXPECT_GE(*v.value, -kTolerance) << where << v.key;
    EXPECT_LE(*v.value, 1 + kTolerance) << where << v.key;
  }
}

TEST(PopReal, HierarchyIdentitiesAndRangesOnEveryRealProfile) {
  CUBEKIT_REQUIRE_SHARED();
  size_t computed = 0;
  for (const fs::path& path : real_profiles()) {
    const Report report = Report::open(path.string());
    if (!report.model().metric_by_uniq_name("time")) {
      EXPECT_THROW(pop_metrics({&report}, {}), LookupError) << path;
      continue;
    }
    for (PopModel model : {PopModel::kMpi, PopModel::kHybridAdditive,
                           PopModel::kHybridMultiplicative, PopModel::kBsc}) {
      PopOptions options;
      options.model = model;
      for (const PopResult& r : pop_metrics({&report}, options))
        check_hierarchy(model, r,
                        path.string() + " model " + std::to_string(static_cast<int>(model)) + ": ");
      ++computed;
    }
  }
  EXPECT_GE(computed, 4u * 20);
}

// The column-window path of one report split over the processes of an MPI job
// (pop_metrics_of_columns, docs/mpi.md), run without MPI as a job of one process: its window
// is every column and joining its rows gives them back as they are. Every value and every
// "missing" must be pop_metrics' own, bit for bit (the mpi ctests check 2-5 processes).
TEST(PopReal, ColumnWindowOfEveryColumnMeasuresAsTheWholeReport) {
  CUBEKIT_REQUIRE_SHARED();
  const JoinLocationRows as_they_are = [](size_t, std::function<std::vector<double>(size_t)> part) {
    return part;
  };
  size_t compared = 0;
  for (const fs::path& path : real_profiles()) {
    const Report report = Report::open(path.string());
    if (!report.model().metric_by_uniq_name("time") || !report.reads_by_columns() ||
        !pop_reads_stored_metrics(report))
      continue;
    const Report window = report.column_window(0, report.model().locations.size());
    for (PopModel model : {PopModel::kMpi, PopModel::kHybridAdditive,
                           PopModel::kHybridMultiplicative, PopModel::kBsc}) {
      PopOptions options;
      options.model = model;
      const std::vector<PopResult> whole = pop_metrics({&report}, options);
      const std::vector<PopResult> split =
          pop_metrics_of_columns(report, window, options, as_they_are);
      ASSERT_EQ(split.size(), whole.size()) << path;
      for (size_t i = 0; i < whole.size(); ++i) {
        EXPECT_EQ(split[i].focus, whole[i].focus) << path;
        EXPECT_EQ(split[i].call_paths, whole[i].call_paths) << path;
        ASSERT_EQ(split[i].values.size(), whole[i].values.size()) << path;
        for (size_t v = 0; v < whole[i].values.size(); ++v) {
          const PopValue &a = split[i].values[v], &b = whole[i].values[v];
          EXPECT_EQ(a.key, b.key) << path;
          EXPECT_EQ(a.value, b.value) << path << " " << b.key;
          EXPECT_EQ(a.missing, b.missing) << path << " " << b.key;
        }
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 4u * 10);
}

// The Cube 3 trace analysis has Scalasca's wait states: serialisation and transfer computed.
TEST(PopReal, WaitStatesOfAScalascaTraceAnalysisAreUsed) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report =
      Report::open((test::shared_dir() / "data/real/cubelib/test16/trace.cube").string());
  const PopResult r = pop_metrics({&report}, {}).at(0);
  ASSERT_NE(r.find("serialisation_efficiency"), nullptr);
  EXPECT_TRUE(r.find("serialisation_efficiency")->value)
      << r.find("serialisation_efficiency")->missing;
  ASSERT_TRUE(r.find("transfer_efficiency")->value);
  // Processes wait (late senders, barriers): serialisation below 1.
  EXPECT_LT(*r.find("serialisation_efficiency")->value, 0.99);
}

// Extra-P's series (problem size x = 1, 10, 100, one process): computation efficiency is the
// first report's computation over each one's, and GE = PE × CompE (it may exceed 1 here: the
// problem grows, a scaling series in the POP sense keeps it fixed).
TEST(PopReal, ScalingSeriesOfRealProfiles) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path dir = test::shared_dir() / "data/real/extrap/single_parameter";
  std::vector<Report> reports;
  for (const char* x : {"1", "10", "100"})
    reports.push_back(Report::open((dir / (std::string("mm.x") + x + "y1z1.r1.cubex")).string()));
  const auto results = pop_metrics({&reports[0], &reports[1], &reports[2]}, {});
  ASSERT_EQ(results.size(), 3u);
  ASSERT_TRUE(results[0].find("computation_efficiency")->value);
  EXPECT_NEAR(*results[0].find("computation_efficiency")->value, 1.0, kTolerance);
  for (const PopResult& r : results) {
    ASSERT_TRUE(r.find("computation_efficiency")->value) << r.report;
    const Identities id(r, "single_parameter series: ");
    id.product("global_efficiency", "parallel_efficiency", "computation_efficiency");
  }
}

// Extra-P's synthetic threaded examples mark every region as MPI: no computation at all,
// which is said, not guessed.
TEST(PopReal, NoComputationIsSaid) {
  CUBEKIT_REQUIRE_SHARED();
  const Report report = Report::open(
      (test::shared_dir() / "data/real/extrap/simple_threaded/cube-example1.cubex").string());
  const PopResult r = pop_metrics({&report}, {}).at(0);
  EXPECT_EQ(r.find("load_balance_efficiency")->missing,
            "not available: the focus has no computation time");
  EXPECT_FALSE(r.find("global_efficiency")->value);
}

TEST(PopTool, JsonCsvAndTableOnTheScalascaSummary) {
  CUBEKIT_REQUIRE_SHARED();
  const std::string summary =
      (test::shared_dir() / "data/real/cubelib/examples/summary.cubex").string();
  auto json = test::run_tool("cube_pop_metrics", {"-s", "json", summary});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const char* key :
       {"\"global_efficiency\": ", "\"parallel_efficiency\": ", "\"load_balance_efficiency\": ",
        "\"communication_efficiency\": ", "\"computation_efficiency\": ",
        "\"serialisation_efficiency\": null", "\"missing\": {", "\"call_paths\": [0]"})
    EXPECT_NE(json.out.find(key), std::string::npos) << key << '\n' << json.out;
  auto hybrid = test::run_tool("cube_pop_metrics", {"-a", "hybrid-add", "-s", "json", summary});
  ASSERT_EQ(hybrid.exit_code, 0) << hybrid.err;
  // summary.cubex: MPI only (one thread per process), so thread efficiency is 1.
  for (const char* key : {"\"process_efficiency\": 0.9", "\"thread_efficiency\": 1,",
                          "\"amdahl_efficiency\": 1,", "\"omp_region_efficiency\": 1,"})
    EXPECT_NE(hybrid.out.find(key), std::string::npos) << key << '\n' << hybrid.out;
  auto csv = test::run_tool("cube_pop_metrics", {"-s", "csv", summary, summary});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("report,focus,call_paths,global_efficiency,parallel_efficiency,", 0), 0u)
      << csv.out;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 3);  // header + two reports
  auto table = test::run_tool("cube_pop_metrics", {summary});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("\n  Global Efficiency"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\n      Load Balance Efficiency"), std::string::npos) << table.out;
}

TEST(PopTool, BadInputExitsOneWithAMessage) {
  auto none = test::run_tool("cube_pop_metrics", {"/nonexistent/a.cubex"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("/nonexistent/a.cubex"), std::string::npos) << none.err;
  auto model = test::run_tool("cube_pop_metrics", {"-a", "omp", "x.cubex"});
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_NE(model.err.find("unknown POP analysis \"omp\""), std::string::npos) << model.err;
  auto no_report = test::run_tool("cube_pop_metrics", {"-i"});
  EXPECT_EQ(no_report.exit_code, 1);
  auto help = test::run_tool("cube_pop_metrics", {"-?", "hybrid-mult"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Process Efficiency x Thread Efficiency"), std::string::npos);
  if (!need_shared()) return;
  const std::string summary =
      (test::shared_dir() / "data/real/cubelib/examples/summary.cubex").string();
  auto focus = test::run_tool("cube_pop_metrics", {"-c", "no_such_region", summary});
  EXPECT_EQ(focus.exit_code, 1);
  EXPECT_NE(focus.err.find("no call path of a region named \"no_such_region\""), std::string::npos)
      << focus.err;
}

}  // namespace
}  // namespace cubekit
