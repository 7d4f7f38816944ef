// One open report as Python sees it: the report, the CubePL metrics the user defined, and the
// MetricEngine (built on first use, rebuilt when a metric is defined). Views of tree entities
// hold the session, so a report stays open while Python holds any of its parts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"

namespace cubekit::python {

class Session {
 public:
  explicit Session(const std::string& path);

  const Report& report() const;
  const Model& model() const { return report().model(); }
  MetricEngine& engine();
  // Metrics: the report's, then the defined ones (MetricEngine's order). Ghost metrics that
  // CubePL statements define come after these (MetricEngine::metric_count()); counting them
  // would compile every derived metric, which opening a report should not do.
  size_t metric_count() const;
  const Metric& metric(Index metric);
  // Adds a POSTDERIVED metric; returns its index. CubePLError if it does not compile (the
  // definition is then forgotten).
  Index define(const std::string& name, const std::string& expression);
  void close();
  bool closed() const { return report_ == nullptr; }

 private:
  std::shared_ptr<const Report> report_;
  std::vector<AdHocMetric> extra_;
  std::unique_ptr<MetricEngine> engine_;
};

}  // namespace cubekit::python
