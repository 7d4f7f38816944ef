// cube_pop_metrics over a series in a job (mpi.hpp): each rank measures its share of the reports
// (and the first, which the scaling metrics compare with), rank 0 puts the results in the
// one-process order. The values travel bit for bit, so the printed numbers are the same.
#include <algorithm>

#include "cubekit/error.hpp"
#include "cubekit/mpi.hpp"
#include "mpi/collectives.hpp"

namespace cubekit::mpi {
namespace {

void write_result(ByteWriter& w, const PopResult& r) {
  w.text(r.focus);
  w.word(r.call_paths.size());
  w.raw(r.call_paths.data(), r.call_paths.size() * sizeof(uint32_t));
  w.word(r.report);
  w.word(r.values.size());
  for (const PopValue& v : r.values) {
    w.text(v.key);
    w.text(v.label);
    w.word(static_cast<uint64_t>(v.depth));
    w.word(v.value.has_value());
    const double value = v.value.value_or(0);
    w.raw(&value, sizeof value);
    w.text(v.missing);
  }
}

PopResult read_result(ByteReader& in) {
  PopResult r;
  r.focus = in.text();
  r.call_paths.resize(in.word());
  in.raw(r.call_paths.data(), r.call_paths.size() * sizeof(uint32_t));
  r.report = in.word();
  r.values.resize(in.word());
  for (PopValue& v : r.values) {
    v.key = in.text();
    v.label = in.text();
    v.depth = static_cast<int>(in.word());
    const bool has_value = in.word() != 0;
    double value;
    in.raw(&value, sizeof value);
    if (has_value) v.value = value;
    v.missing = in.text();
  }
  return r;
}

}  // namespace

std::vector<PopResult> pop_metrics(const std::vector<const Report*>& series,
                                   const PopOptions& options) {
  Job* job = Job::current();
  if (!job) throw Error("the MPI layer was used outside an MPI job");
  std::vector<std::string> paths;
  for (const Report* in : series) paths.push_back(in->path());
  const WorkPlan plan = plan_work(file_sizes(paths), job->size());
  std::vector<std::vector<PopResult>> by_report(series.size());  // rank 0: focus after focus
  size_t begin = 0;
  for (const size_t end : plan.window_ends) {
    Gathered g = gather_step(*job, [&](std::string& records, size_t& item) {
      std::vector<bool> mine(series.size());
      for (size_t r = begin; r < end; ++r) mine[r] = plan.owner[r] == job->rank();
      // A failure is told as that of this rank's first report of the window (the library does
      // not say which of them failed; a failure of the series' first is the same on all ranks).
      item = static_cast<size_t>(std::find(mine.begin(), mine.end(), true) - mine.begin());
      if (item == mine.size()) return;
      std::vector<ByteWriter> of_report(series.size());
      for (const PopResult& result : cubekit::pop_metrics(series, options, mine))
        write_result(of_report[result.report], result);
      for (size_t r = begin; r < end; ++r)
        if (mine[r]) append_record(records, r, of_report[r].out);
    });
    for (size_t r = begin; r < end && job->root(); ++r) {
      ByteReader in(g.by_item.at(r));
      while (!in.done()) by_report[r].push_back(read_result(in));
    }
    job->show_progress("reports " + std::to_string(end) + "/" + std::to_string(series.size()));
    begin = end;
  }
  job->end_progress();
  ByteWriter all;  // focus-major, as alone; to every rank, so that each prints the same (elsewhere)
  for (size_t focus = 0; job->root() && !series.empty() && focus < by_report[0].size(); ++focus)
    for (const std::vector<PopResult>& of_report : by_report) write_result(all, of_report[focus]);
  broadcast(all.out, 0);
  std::vector<PopResult> results;
  for (ByteReader in(all.out); !in.done();) results.push_back(read_result(in));
  return results;
}

}  // namespace cubekit::mpi
