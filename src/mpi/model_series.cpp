// cubekit model over a series in a job (mpi.hpp): the ranks read their shares of the reports and
// fit their shares of the models. Every rank pools the samples in report order and every model
// is fitted by the one-process code, so the models are the same bits as alone.
#include <exception>

#include "cubekit/error.hpp"
#include "cubekit/mpi.hpp"
#include "cubekit/parallel.hpp"
#include "mpi/collectives.hpp"

namespace cubekit::mpi {
namespace {

std::string samples_bytes(const ReportSamples& samples) {
  ByteWriter w;
  w.word(samples.entries.size());
  for (const ReportSamples::Entry& e : samples.entries) {
    w.word(e.callpath.size());
    for (const std::string& name : e.callpath) w.text(name);
    w.text(e.metric);
    w.word(static_cast<uint64_t>(e.flavour));
    w.word(e.samples.size());
    w.raw(e.samples.data(), e.samples.size() * sizeof(double));
  }
  return std::move(w.out);
}

ReportSamples read_samples(ByteReader& in) {
  ReportSamples samples;
  samples.entries.resize(in.word());
  for (ReportSamples::Entry& e : samples.entries) {
    e.callpath.resize(in.word());
    for (std::string& name : e.callpath) name = in.text();
    e.metric = in.text();
    e.flavour = static_cast<Flavour>(in.word());
    e.samples.resize(in.word());
    in.raw(e.samples.data(), e.samples.size() * sizeof(double));
  }
  return samples;
}

void write_factor(ByteWriter& w, const std::string& parameter, int numerator, int denominator,
                  int log_exponent) {
  w.text(parameter);
  for (int n : {numerator, denominator, log_exponent}) w.word(static_cast<uint64_t>(n));
}

void write_model(ByteWriter& w, const PerformanceModel& m) {
  for (double v : {m.constant, m.rss, m.smape, m.adjusted_r2}) w.raw(&v, sizeof v);
  w.word(m.terms.size());
  for (const ModelTerm& t : m.terms) {
    w.raw(&t.coefficient, sizeof t.coefficient);
    write_factor(w, t.parameter, t.exponent_numerator, t.exponent_denominator, t.log_exponent);
    w.word(t.further_factors.size());
    for (const TermFactor& f : t.further_factors)
      write_factor(w, f.parameter, f.exponent_numerator, f.exponent_denominator, f.log_exponent);
  }
}

template <class Factor>
void read_factor(ByteReader& in, Factor& f) {
  f.parameter = in.text();
  f.exponent_numerator = static_cast<int>(in.word());
  f.exponent_denominator = static_cast<int>(in.word());
  f.log_exponent = static_cast<int>(in.word());
}

PerformanceModel read_model(ByteReader& in) {
  PerformanceModel m;
  for (double* v : {&m.constant, &m.rss, &m.smape, &m.adjusted_r2}) in.raw(v, sizeof *v);
  m.terms.resize(in.word());
  for (ModelTerm& t : m.terms) {
    in.raw(&t.coefficient, sizeof t.coefficient);
    read_factor(in, t);
    t.further_factors.resize(in.word());
    for (TermFactor& f : t.further_factors) read_factor(in, f);
  }
  return m;
}

// Fits models [begin, end) on this rank's threads; a failure is that of the first such model,
// `item` set to it, as alone.
std::vector<PerformanceModel> fit_share(const std::vector<CallPathModel>& models, size_t begin,
                                        size_t end, const std::vector<std::string>& parameters,
                                        const SeriesOptions& options, size_t& item) {
  std::vector<PerformanceModel> fitted(end - begin);
  std::vector<std::exception_ptr> failed(end - begin);
  parallel_for(
      end - begin,
      [&](size_t i) {
        try {
          fitted[i] = fit_points(models[begin + i].points, parameters, options);
        } catch (...) {
          failed[i] = std::current_exception();
        }
      },
      options.threads);
  for (item = begin; item < end; ++item)
    if (failed[item - begin]) std::rethrow_exception(failed[item - begin]);
  return fitted;
}

class JobSeriesWork : public SeriesWork {
 public:
  explicit JobSeriesWork(Job& job) : job_(job) {}

  // Window after window, each rank reads its reports of the window in report order; rank 0
  // sends every rank the window's samples, so that every rank pools the same.
  void read(const std::vector<std::string>& paths, const SeriesOptions& options,
            const std::function<void(size_t, ReportSamples&&)>& take) override {
    const WorkPlan plan = plan_work(file_sizes(paths), job_.size());
    size_t begin = 0;
    for (const size_t end : plan.window_ends) {
      Gathered g = gather_step(job_, [&](std::string& records, size_t& item) {
        for (item = begin; item < end; ++item)
          if (plan.owner[item] == job_.rank())
            append_record(records, item, samples_bytes(read_report_samples(paths[item], options)));
      });
      ByteWriter window;
      for (size_t r = begin; r < end && job_.root(); ++r)
        window.raw(g.by_item.at(r).data(), g.by_item.at(r).size());
      broadcast(window.out, 0);
      ByteReader in(window.out);
      for (size_t r = begin; r < end; ++r) take(r, read_samples(in));
      job_.show_progress("reports read " + std::to_string(end) + "/" +
                         std::to_string(paths.size()) + ranks_text(job_));
      begin = end;
    }
  }

  // Each rank fits an equal share of the models (consecutive ones); every rank gets them all.
  void fit(std::vector<CallPathModel>& models, const std::vector<std::string>& parameters,
           const SeriesOptions& options) override {
    const size_t n = models.size(), ranks = static_cast<size_t>(job_.size());
    const size_t rank = static_cast<size_t>(job_.rank());
    const size_t begin = n * rank / ranks, end = n * (rank + 1) / ranks;
    Gathered g = gather_step(job_, [&](std::string& records, size_t& item) {
      ByteWriter share;
      for (const PerformanceModel& m : fit_share(models, begin, end, parameters, options, item))
        write_model(share, m);
      if (begin < end) append_record(records, begin, share.out);
    });
    ByteWriter all;  // rank 0: the shares in rank order, which is model order
    for (size_t r = 0; r < ranks && job_.root(); ++r)
      if (const auto share = g.by_item.find(n * r / ranks); share != g.by_item.end())
        all.raw(share->second.data(), share->second.size());
    broadcast(all.out, 0);
    ByteReader in(all.out);
    for (CallPathModel& m : models) m.model = read_model(in);
    job_.show_progress("models fitted " + std::to_string(n) + ranks_text(job_));
    job_.end_progress();
  }

 private:
  Job& job_;
};

}  // namespace

SeriesModels model_series(const Series& series, const SeriesOptions& options) {
  Job* job = Job::current();
  if (!job) throw Error("the MPI layer was used outside an MPI job");
  JobSeriesWork work(*job);
  return cubekit::model_series(series, options, &work);
}

}  // namespace cubekit::mpi
