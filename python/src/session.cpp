#include "session.hpp"

#include <stdexcept>

#include "cubekit/error.hpp"

namespace cubekit::python {

Session::Session(const std::string& path)
    : report_(std::make_shared<const Report>(Report::open(path))) {}

const Report& Session::report() const {
  // ValueError in Python, like reading a closed file.
  if (!report_) throw std::invalid_argument("I/O operation on a closed cubekit report");
  return *report_;
}

MetricEngine& Session::engine() {
  if (!engine_) engine_ = std::make_unique<MetricEngine>(report(), extra_);
  return *engine_;
}

size_t Session::metric_count() const {
  return model().metrics.size() + extra_.size();
}

const Metric& Session::metric(Index metric) {
  if (metric < model().metrics.size()) return model().metrics[metric];
  if (metric >= engine().metric_count())
    throw LookupError("metric index " + std::to_string(metric) + " out of range");
  return engine().metric(metric);
}

Index Session::define(const std::string& name, const std::string& expression) {
  if (model().metric_by_uniq_name(name))
    throw LookupError(report().path() + ": a metric named \"" + name + "\" exists already");
  for (const AdHocMetric& m : extra_)
    if (m.uniq_name == name)
      throw LookupError(report().path() + ": a metric named \"" + name + "\" exists already");
  extra_.push_back({name, expression});
  engine_.reset();
  try {
    engine();
  } catch (...) {
    extra_.pop_back();
    engine_.reset();
    throw;
  }
  return static_cast<Index>(model().metrics.size() + extra_.size() - 1);
}

void Session::close() {
  engine_.reset();
  report_.reset();
}

}  // namespace cubekit::python
