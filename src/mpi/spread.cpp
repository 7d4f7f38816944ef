// Work spread over the ranks of a job (mpi.hpp): independent items in item order, and the rows of
// a combination read where the plan says and added on rank 0 in the one-process order.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cubekit/error.hpp"
#include "cubekit/mpi.hpp"
#include "mpi/collectives.hpp"

namespace cubekit::mpi {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void in_item_order(const std::vector<uint64_t>& sizes,
                   const std::function<std::string(size_t item)>& produce,
                   const std::function<void(size_t item, std::string&& result)>& consume,
                   const std::string& what) {
  Job& job = running_job();
  const WorkPlan plan = plan_work(sizes, job.size());
  size_t begin = 0;
  for (const size_t end : plan.window_ends) {
    Gathered g = gather_step(job, [&](std::string& records, size_t& item) {
      for (item = begin; item < end; ++item)
        if (plan.owner[item] == job.rank()) append_record(records, item, produce(item));
    });
    if (job.root()) {
      for (size_t i = begin; i < end; ++i) consume(i, std::string(g.by_item.at(i)));
      job.show_progress(what + " " + std::to_string(end) + "/" + std::to_string(sizes.size()) +
                        ranks_text(job));
    }
    begin = end;
  }
  job.end_progress();
}

namespace {

// One input's rows of one metric as records travel: (result call path, row) after one another.
std::string rows_of(const std::vector<const Report*>& inputs, const std::vector<InputMapping>& maps,
                    const Model& out, Combination how, Index metric, size_t input,
                    const std::string& path) {
  const size_t row_size =
      out.metrics[metric].dtype.memory_size() * inputs[input]->model().locations.size();
  std::string rows;
  visit_combination_rows(inputs, maps, out, how, metric, input, path,
                         [&](Index to, const std::byte* row) {
                           rows.append(reinterpret_cast<const char*>(&to), sizeof to);
                           rows.append(reinterpret_cast<const char*>(row), row_size);
                         });
  return rows;
}

// Rank 0's side: the rows of each window gathered when write_combination first asks for one of
// its inputs (every window is gathered, asked or not: the steps are collective).
class GatheredRows : public CombinationRows {
 public:
  GatheredRows(Job& job, const WorkPlan& plan,
               const std::function<std::string(Index, size_t)>& read, const Model& out,
               const std::vector<const Report*>& inputs)
      : job_(job), plan_(plan), read_(read), out_(out) {
    for (const Metric& m : out.metrics) stored_metrics_ += combination_stores(m);
    for (const Report* in : inputs) locations_.push_back(in->model().locations.size());
  }
  void begin_metric(Index metric) override {
    metric_ = metric;
    next_window_ = 0;
    ++metric_number_;
  }
  void visit(Index metric, size_t input, const CombinationRowVisitor& visit) override {
    while (gathered_end() <= input) gather_next_window();
    const std::string_view rows = window_.by_item.at(input);
    const size_t row_size = out_.metrics[metric].dtype.memory_size() * locations_[input];
    for (size_t at = 0; at < rows.size(); at += sizeof(Index) + row_size) {
      Index to;
      std::memcpy(&to, rows.data() + at, sizeof to);
      // The row is copied out so that the lanes are aligned for the sums.
      aligned_.resize((row_size + 7) / 8);
      std::memcpy(aligned_.data(), rows.data() + at + sizeof to, row_size);
      visit(to, reinterpret_cast<const std::byte*>(aligned_.data()));
    }
  }
  void end_metric(Index) override {
    while (next_window_ < plan_.window_ends.size()) gather_next_window();
  }

  // Seconds rank 0 waited for the ranks to read, prepare and send rows (on 1 rank: read them).
  double gather_seconds = 0;

 private:
  size_t gathered_end() const { return next_window_ ? plan_.window_ends[next_window_ - 1] : 0; }
  void gather_next_window() {
    const auto start = std::chrono::steady_clock::now();
    const size_t begin = gathered_end(), end = plan_.window_ends[next_window_];
    window_ = gather_step(job_, [&](std::string& records, size_t& item) {
      for (item = begin; item < end; ++item)
        if (plan_.owner[item] == job_.rank()) append_record(records, item, read_(metric_, item));
    });
    ++next_window_;
    gather_seconds += seconds_since(start);
    job_.show_progress("metric " + std::to_string(metric_number_) + "/" +
                       std::to_string(stored_metrics_) + ", reports read " + std::to_string(end) +
                       "/" + std::to_string(locations_.size()) + ranks_text(job_));
  }

  Job& job_;
  const WorkPlan& plan_;
  const std::function<std::string(Index, size_t)>& read_;
  const Model& out_;
  std::vector<size_t> locations_;  // of each input: the length of its rows
  Index metric_ = 0;
  size_t next_window_ = 0, metric_number_ = 0, stored_metrics_ = 0;
  Gathered window_;
  std::vector<uint64_t> aligned_;
};

}  // namespace

void write_combination(const std::vector<const Report*>& inputs,
                       const std::vector<InputMapping>& maps,
                       std::shared_ptr<const Model> definitions, Combination how,
                       const std::string& path, const WriteOptions& options) {
  Job& job = running_job();
  std::vector<std::string> paths;
  for (const Report* in : inputs) paths.push_back(in->path());
  const WorkPlan plan = plan_work(file_sizes(paths), job.size());
  const Model& out = *definitions;
  const std::function<std::string(Index, size_t)> read = [&](Index metric, size_t input) {
    return rows_of(inputs, maps, out, how, metric, input, path);
  };
  if (!job.root()) {  // the same steps as rank 0's GatheredRows, metric after metric
    for (Index m = 0; m < out.metrics.size(); ++m) {
      if (!combination_stores(out.metrics[m])) continue;
      size_t begin = 0;
      for (const size_t end : plan.window_ends) {
        gather_step(job, [&](std::string& records, size_t& item) {
          for (item = begin; item < end; ++item)
            if (plan.owner[item] == job.rank()) append_record(records, item, read(m, item));
        });
        begin = end;
      }
    }
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  GatheredRows rows(job, plan, read, out, inputs);
  cubekit::write_combination(inputs, maps, std::move(definitions), how, path, options, &rows);
  job.end_progress();
  // The measured parts of bench/mpi_scaling.sh's model of the time on P nodes (docs/mpi.md).
  if (const char* asked = std::getenv("CUBEKIT_MPI_TIMES"); asked && std::string(asked) == "1")
    std::fprintf(stderr,
                 "MPI times: rows read and gathered %.3f s, added and written on rank 0 %.3f s\n",
                 rows.gather_seconds, seconds_since(start) - rows.gather_seconds);
}

}  // namespace cubekit::mpi
