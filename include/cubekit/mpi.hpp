// The MPI layer (docs/mpi.md): the tools started by mpirun or srun run as one job. Built only
// when CMake finds MPI (CUBEKIT_MPI); without it nothing here exists and every tool runs alone.
//
// Work is spread over the ranks by the size of the reports, in windows of consecutive reports;
// every collective step first agrees whether some rank failed (then every rank stops and rank 0
// alone says why), then gathers the ranks' results on rank 0, which prints and writes in the
// one-process order, so the output is the same bytes as a run without MPI.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/perf_model.hpp"
#include "cubekit/pop.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit::mpi {

// Whether a launcher started this process as a rank of a job (mpirun: OMPI_COMM_WORLD_SIZE;
// PMIx, e.g. srun --mpi=pmix: PMIX_RANK; PMI-1/2: PMI_RANK). Alone, MPI is not initialised.
bool launched_by_launcher();

// Thrown on the ranks that stop because another rank failed; rank 0 has said why. Not a
// std::exception, so that no tool's error handler prints it.
struct JobFailed {};

// This process's part of the job, for the length of one tool run (one per process). Rank 0
// keeps its standard output and error; the other ranks' standard output is discarded and their
// standard error kept aside, to be shown by rank 0 if that rank fails.
class Job {
 public:
  Job(int* argc, char*** argv);  // MPI_Init
  ~Job();                        // MPI_Finalize
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // The job of this process (nullptr: none).
  static Job* current();

  // Collective: whether some rank failed (`failure` non-null on those, working on item `item`).
  // Returns normally when none did; otherwise the message of the failure with the lowest item
  // (then rank) is on every rank and this throws: cubekit::Error with that message on rank 0,
  // JobFailed on the others.
  void agree(const std::string* failure, size_t item = 0);
  // Collective, once at the end of the tool on every rank unless agree already ended the job:
  // `rc` is this rank's exit code. Returns the job's exit code (0 when every rank had 0); rank 0
  // prints what a failing rank wrote to its standard error.
  int finish(int rc);
  // Rank 0's progress line on standard error (rewritten in place), shown when standard error
  // is a terminal or CUBEKIT_PROGRESS=1 (CUBEKIT_PROGRESS=0: never); ended by end_progress.
  void show_progress(const std::string& line);
  void end_progress();

 private:
  std::string kept_error_text();
  int rank_ = 0, size_ = 1;
  bool ended_ = false;  // a failure was agreed: no more collectives
  bool progress_ = false, progress_shown_ = false;
  int kept_stderr_ = -1;  // ranks > 0: the file their standard error goes to
};

// Sizes of `paths` in bytes as rank 0 sees them (0 when unreadable), the same on every rank.
std::vector<uint64_t> file_sizes(const std::vector<std::string>& paths);

// Independent items (e.g. the reports cube_dump prints) in a job: item i is produced on the rank
// that owns it, and rank 0 consumes every item's result in item order. Collective. An exception
// from `produce` ends the job (agree); `consume` runs on rank 0 only. `what` names the items in
// the progress line.
void in_item_order(const std::vector<uint64_t>& sizes,
                   const std::function<std::string(size_t item)>& produce,
                   const std::function<void(size_t item, std::string&& result)>& consume,
                   const std::string& what);

// ---- One report split over the ranks by its locations (docs/mpi.md) ----

// Runs `step` on every rank and agrees whether it failed anywhere (Job::agree: then rank 0
// throws cubekit::Error with the message of the lowest failing rank, the others JobFailed).
// Collective.
void agreed(const std::function<void()>& step);

// This rank's run [first, end) of `items` consecutive items (e.g. a report's chosen locations):
// runs of about equal length, in rank order.
struct Run {
  size_t first = 0, end = 0;
};
Run share_of(size_t items);

// Rows of text whose parts are made by the ranks, each the part of its run of columns: rank 0
// gets every row whole (its parts joined in rank order), the other ranks empty rows. Rows are
// asked in order, 0, 1, …; the parts of the next rows are made and gathered in one collective
// step each time a row beyond those gathered is asked, about CUBEKIT_MPI_WINDOW_BYTES of whole
// rows per step (`row_bytes`: the expected size of a whole row, the same on every rank).
// An exception from `part` ends the job (agreed). Every rank must ask every row.
class JoinedRows {
 public:
  JoinedRows(size_t rows, uint64_t row_bytes, std::function<std::string(size_t row)> part);
  // Row `row`, handed over (each row is taken once).
  std::string take(size_t row);

 private:
  size_t rows_, rows_per_step_, begin_ = 0, end_ = 0;
  std::function<std::string(size_t)> part_;
  std::vector<std::string> joined_;
};

// RowFolds (row_folds.hpp) of a report split by columns: `columns` is this rank's column window
// of it (the ranks' windows in rank order cover every column once, in column order). Each rank
// decodes its columns of the metric (agreed), then, rank after rank, continues the folds of the
// ranks before it over its columns: the folds one process makes, on every rank. Collective.
Values fold_rows_in_rank_order(const Report& columns, Index metric);

// write_combination (report_algebra.hpp) in a job: every rank holds the same inputs, maps and
// definitions (each unified them); each rank reads the rows of its share of the inputs, and
// rank 0 adds them in the one-process order and writes `path`. Collective.
void write_combination(const std::vector<const Report*>& inputs,
                       const std::vector<InputMapping>& maps,
                       std::shared_ptr<const Model> definitions, Combination how,
                       const std::string& path, const WriteOptions& options = {});

// pop_metrics (pop.hpp) of a series in a job: each rank measures its share of the reports (and
// the first); the results, on every rank, in the one-process order. Collective.
std::vector<PopResult> pop_metrics(const std::vector<const Report*>& series,
                                   const PopOptions& options);

// model_series (perf_model.hpp) in a job: each rank reads its share of the reports (every rank
// pools all samples in report order) and fits its share of the models; the models, on every
// rank, are those of one process. Collective.
SeriesModels model_series(const Series& series, const SeriesOptions& options);

}  // namespace cubekit::mpi
