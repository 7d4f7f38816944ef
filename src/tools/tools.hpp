// Entry points of the command-line tools; each parses its options, calls the library, prints.
#pragma once

#include <cstddef>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/pop.hpp"
#include "cubekit/report.hpp"
#include "cubekit/report_algebra.hpp"
#include "cubekit/row_folds.hpp"

namespace cubekit::tools {

int dump_main(int argc, char** argv);
int cube3to4_main(int argc, char** argv);
int cube4to3_main(int argc, char** argv);
int generate_main(int argc, char** argv);
int model_main(int argc, char** argv);
int derive_main(int argc, char** argv);
int remap2_main(int argc, char** argv);
int serve_main(int argc, char** argv);
int pop_metrics_main(int argc, char** argv);
int diff_main(int argc, char** argv);
int merge_main(int argc, char** argv);
int mean_main(int argc, char** argv);
int cmp_main(int argc, char** argv);
int calltree_main(int argc, char** argv);
int stat_main(int argc, char** argv);
int is_empty_main(int argc, char** argv);
int nodeview_main(int argc, char** argv);
int rank_main(int argc, char** argv);
int tau2cube_main(int argc, char** argv);
int topoassist_main(int argc, char** argv);
int info_main(int argc, char** argv);
int exclusify_main(int argc, char** argv);
int cut_main(int argc, char** argv);
int clean_main(int argc, char** argv);
int part_main(int argc, char** argv);
int canonize_main(int argc, char** argv);
int commoncalltree_main(int argc, char** argv);
int regioninfo_main(int argc, char** argv);
int test_main(int argc, char** argv);
int sanity_main(int argc, char** argv);
int export_peri_main(int argc, char** argv);
int import_peri_main(int argc, char** argv);
int inclusify_main(int argc, char** argv);

// -o NAME, -c (reduce the system trees) and -C (collapse them; overrides -c), as the algebra
// and transformation tools take them.
struct OutputAndSystem {
  std::string output;
  bool reduce = false, collapse = false;
  // Takes -o, -c and -C; other options are left to the caller.
  void take(char option, const char* argument);
  // Their rules, for a tool's OptionTable.
  static std::vector<OptionRule> rules();
  SystemUnification system() const;
};

// Shared by the report-writing algebra tools (algebra.cpp).
// `output`, with ".cubex" appended unless it ends so.
std::string report_name(const std::string& output);
// Writes `text` to standard output at once (CubeLib's progress lines).
void say(const std::string& text);
// The lines CubeLib's tools that compare several reports (cube_test, cube_info) print while
// they merge them ("INFO::Start operation \"MERGE\" with 0-th cube..." ...).
void say_cubelib_merge(size_t reports);
// Opens each of `paths` (the tools that compare reports); throws Error.
std::vector<Report> open_reports(const std::vector<std::string>& paths);
std::vector<const Report*> report_pointers(const std::vector<Report>& reports);
// Opens `path`, with CubeLib's "Reading <path> ... done." around it when `announce`.
Report read_report(const std::string& path, bool announce);

// ---- Tools in an MPI job (job.cpp, docs/mpi.md); alone, each does the one-process thing ----

// Whether this process writes the tool's output files (false on the ranks of a job but 0).
bool job_writes_files();
// Runs body(i) for every file in order (exit code: the highest of them). In a job of several ranks
// the files are spread over the ranks, and what each body writes to std::cout, std::cerr and `out`
// is written by rank 0 in file order: the same bytes as alone.
int for_each_file_in_order(const std::vector<std::string>& files, std::ostream& out,
                           const std::function<int(size_t)>& body);
// pop_metrics (pop.hpp); in a job every rank measures its share of the series (one report: its
// run of the locations, when the report allows; the results then are rank 0's alone).
std::vector<PopResult> pop_metrics_in_job(const std::vector<const Report*>& series,
                                          const PopOptions& options);
// model_series (perf_model.hpp); in a job every rank reads its share of the reports and fits its
// share of the models, and every rank gets all models.
SeriesModels model_series_in_job(const Series& series, const SeriesOptions& options);
// write_combination (report_algebra.hpp); in a job every rank reads its share of the inputs and
// rank 0 writes.
void write_combination_in_job(const std::vector<const Report*>& inputs,
                              const std::vector<InputMapping>& maps,
                              std::shared_ptr<const Model> definitions, Combination how,
                              const std::string& path);

// One report split over the ranks by its locations (docs/mpi.md). Whether this process is one
// of several ranks of a job (alone, or on one rank, nothing is split).
bool job_splits_reports();
// This rank's run [first, end) of `items` consecutive items; alone all of them.
struct ItemRun {
  size_t first = 0, end = 0;
};
ItemRun share_in_job(size_t items);
// Runs `step` on every rank and agrees whether it failed anywhere (then rank 0 throws the
// lowest failing rank's Error, the others end quietly); alone just runs it.
void agreed_in_job(const std::function<void()>& step);
// Rows made in parts, one per rank: in a job that splits reports, row(r) is every rank's
// part(r) joined in rank order on rank 0 (empty on the others), rows asked in order (each
// whole row about `row_bytes` long; the same on every rank); otherwise part(r) itself.
// The row folds of a report split by columns over the ranks (row_folds.hpp: each rank's
// window continues the folds of the ranks before it); empty alone.
RowFolds row_folds_in_job();
// Whether a metric's values summed over all locations can come from row folds (row_folds.hpp):
// a stored metric (not derived, not ad hoc), not a HISTOGRAM.
bool sums_from_row_folds(const Model& model, Index metric);
std::function<std::string(size_t row)> rows_in_job(bool split, size_t rows, uint64_t row_bytes,
                                                   std::function<std::string(size_t row)> part);

}  // namespace cubekit::tools
