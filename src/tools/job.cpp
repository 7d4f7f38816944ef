// The tools' side of an MPI job (tools.hpp; docs/mpi.md): without MPI, or started alone, the
// one-process loop and write; in a job, the MPI layer's spread work.
#include <cstring>
#include <optional>
#include <sstream>

#include "cubekit/error.hpp"
#include "tools.hpp"

#if CUBEKIT_WITH_MPI
#include "cubekit/mpi.hpp"
#endif

namespace cubekit::tools {

bool job_writes_files() {
#if CUBEKIT_WITH_MPI
  if (const mpi::Job* job = mpi::Job::current()) return job->root();
#endif
  return true;
}

#if CUBEKIT_WITH_MPI
namespace {

// Points `stream` at another buffer for the length of a scope.
class Redirect {
 public:
  Redirect(std::ostream& stream, std::streambuf* to) : stream_(stream), saved_(stream.rdbuf(to)) {}
  ~Redirect() { stream_.rdbuf(saved_); }

 private:
  std::ostream& stream_;
  std::streambuf* saved_;
};

void append_text(std::string& out, const std::string& text) {
  const uint64_t size = text.size();
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += text;
}

std::string take_text(const std::string& in, size_t& at) {
  uint64_t size;
  in.copy(reinterpret_cast<char*>(&size), sizeof size, at);
  at += sizeof size;
  std::string text = in.substr(at, size);
  at += size;
  return text;
}

// What body(i) printed, caught on the rank that runs it: exit code, std::cout, std::cerr, `out`
// (when that is another stream).
std::string run_caught(const std::function<int(size_t)>& body, size_t i, std::ostream& out) {
  std::ostringstream to_stdout, to_stderr, to_out;
  int rc;
  {
    Redirect stdout_text(std::cout, to_stdout.rdbuf()), stderr_text(std::cerr, to_stderr.rdbuf());
    std::streambuf* out_buffer = &out == &std::cout ? to_stdout.rdbuf() : to_out.rdbuf();
    Redirect out_text(out, out_buffer);
    rc = body(i);
  }
  std::string result(1, static_cast<char>(rc));
  append_text(result, to_stdout.str());
  append_text(result, to_stderr.str());
  append_text(result, to_out.str());
  return result;
}

}  // namespace
#endif

int for_each_file_in_order(const std::vector<std::string>& files,
                           [[maybe_unused]] std::ostream& out,
                           const std::function<int(size_t)>& body) {
  int rc = 0;
#if CUBEKIT_WITH_MPI
  // On one rank the files are that rank's anyway: printed as they come, as alone (catching a
  // huge report's text in memory first cost 5× the time of the run alone).
  if (const mpi::Job* job = mpi::Job::current(); job && job->size() > 1) {
    mpi::in_item_order(
        mpi::file_sizes(files), [&](size_t i) { return run_caught(body, i, out); },
        [&](size_t, std::string&& result) {
          size_t at = 1;
          rc = std::max(rc, static_cast<int>(result[0]));
          std::cout << take_text(result, at) << std::flush;
          std::cerr << take_text(result, at) << std::flush;
          out << take_text(result, at);
        },
        "reports");
    return rc;
  }
#endif
  for (size_t i = 0; i < files.size(); ++i) rc = std::max(rc, body(i));
  return rc;
}

#if CUBEKIT_WITH_MPI
namespace {

// Rows of per-location doubles (pop.hpp's JoinLocationRows) joined on rank 0 by rows_in_job;
// the other ranks get zeros.
JoinLocationRows join_location_rows(size_t locations) {
  return [locations](size_t rows, std::function<std::vector<double>(size_t)> part) {
    auto bytes = rows_in_job(true, rows, locations * sizeof(double), [part](size_t row) {
      const std::vector<double> values = part(row);
      return std::string(reinterpret_cast<const char*>(values.data()),
                         values.size() * sizeof(double));
    });
    return [bytes, locations](size_t row) {
      const std::string joined = bytes(row);
      std::vector<double> values(locations);
      if (joined.empty()) return values;
      if (joined.size() != locations * sizeof(double))
        throw Error("MPI: a joined row has " + std::to_string(joined.size()) + " bytes, not " +
                    std::to_string(locations * sizeof(double)));
      std::memcpy(values.data(), joined.data(), joined.size());
      return values;
    };
  };
}

// cube_pop_metrics REPORT split by locations (docs/mpi.md): rank r measures the r-th run of
// columns; the results are rank 0's (the other ranks' are not printed).
std::vector<PopResult> pop_metrics_by_locations(const Report& report, const PopOptions& options) {
  const size_t locations = report.model().locations.size();
  const ItemRun run = share_in_job(locations);
  std::optional<Report> columns;
  agreed_in_job([&] { columns.emplace(report.column_window(run.first, run.end - run.first)); });
  return pop_metrics_of_columns(report, *columns, options, join_location_rows(locations));
}

}  // namespace
#endif

std::vector<PopResult> pop_metrics_in_job(const std::vector<const Report*>& series,
                                          const PopOptions& options) {
#if CUBEKIT_WITH_MPI
  if (series.size() == 1 && job_splits_reports() && series[0]->reads_by_columns() &&
      pop_reads_stored_metrics(*series[0]))
    return pop_metrics_by_locations(*series[0], options);
  if (mpi::Job::current()) return mpi::pop_metrics(series, options);
#endif
  return pop_metrics(series, options);
}

SeriesModels model_series_in_job(const Series& series, const SeriesOptions& options) {
#if CUBEKIT_WITH_MPI
  if (mpi::Job::current()) return mpi::model_series(series, options);
#endif
  return model_series(series, options);
}

void write_combination_in_job(const std::vector<const Report*>& inputs,
                              const std::vector<InputMapping>& maps,
                              std::shared_ptr<const Model> definitions, Combination how,
                              const std::string& path) {
#if CUBEKIT_WITH_MPI
  if (mpi::Job::current())
    return mpi::write_combination(inputs, maps, std::move(definitions), how, path);
#endif
  write_combination(inputs, maps, std::move(definitions), how, path);
}

bool job_splits_reports() {
#if CUBEKIT_WITH_MPI
  if (const mpi::Job* job = mpi::Job::current()) return job->size() > 1;
#endif
  return false;
}

ItemRun share_in_job(size_t items) {
#if CUBEKIT_WITH_MPI
  if (mpi::Job::current()) {
    const mpi::Run run = mpi::share_of(items);
    return {run.first, run.end};
  }
#endif
  return {0, items};
}

void agreed_in_job(const std::function<void()>& step) {
#if CUBEKIT_WITH_MPI
  if (mpi::Job::current()) return mpi::agreed(step);
#endif
  step();
}

RowFolds row_folds_in_job() {
#if CUBEKIT_WITH_MPI
  if (mpi::Job::current()) return mpi::fold_rows_in_rank_order;
#endif
  return {};
}

bool sums_from_row_folds(const Model& model, Index metric) {
  return metric < model.metrics.size() && !is_derived(model.metrics[metric].kind) &&
         model.metrics[metric].dtype.kind() != TypeKind::kHistogram;
}

std::function<std::string(size_t)> rows_in_job([[maybe_unused]] bool split,
                                               [[maybe_unused]] size_t rows,
                                               [[maybe_unused]] uint64_t row_bytes,
                                               std::function<std::string(size_t)> part) {
#if CUBEKIT_WITH_MPI
  if (split && mpi::Job::current()) {
    auto joined = std::make_shared<mpi::JoinedRows>(rows, row_bytes, std::move(part));
    return [joined](size_t row) { return joined->take(row); };
  }
#endif
  return part;
}

}  // namespace cubekit::tools
