// Several reports compared call path by call path, as `cube_test` (tools guide §1.5) checks
// them: the call trees are unified, named parts of the unified tree are cut down with
// cube_info's abridging rules, and a metric is checked for equality or similarity on every call
// path of a part.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/info_tree.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

class CallPathChecks {
 public:
  // At least two reports (cubekit::Error otherwise); they must outlive this object.
  explicit CallPathChecks(const std::vector<const Report*>& reports);
  ~CallPathChecks();
  CallPathChecks(const CallPathChecks&) = delete;
  CallPathChecks& operator=(const CallPathChecks&) = delete;

  // The unified call tree (regions and call paths only).
  const Model& call_tree() const { return unified_; }

  // A metric as cube_info's -m names it ("time", "time:excl", "time:incl:0.1"), resolved in
  // every report; LookupError when no report has it. `name` is CubeLib's spelled-out form
  // ("basic@time:incl:*.*").
  struct CheckedMetric {
    std::string name;
    std::string display;              // the first report's display name (with " (E)" etc.)
    std::vector<InfoColumn> columns;  // per report; metric kNoIndex where it lacks the metric
  };
  CheckedMetric metric(const std::string& descriptor) const;
  // The number of locations that visited each call path (cube_info -w), in every report that
  // has a metric "visits"; LookupError when none has.
  CheckedMetric visitors() const;

  // Its value at a unified call path in each report: NaN where the report lacks the metric or
  // the call path (the original's rule).
  std::vector<double> values(const CheckedMetric& metric, Index cnode) const;

  // Named parts of the call tree: "all" exists from the start.
  CallForest& forest(const std::string& name);  // LookupError when there is none
  void copy_forest(const std::string& to, const std::string& from);  // Error when `to` exists

  // One call path's outcome: passed, or why not.
  struct Outcome {
    Index cnode = kNoIndex;
    bool passed = true;
    double difference = 0, allowed = 0;  // largest difference seen, and the bound it broke
    size_t report = 0;                   // the report whose value broke it (a failure)
  };
  // Every call path of forest `forest_name` in post order: the values of all reports must lie
  // within `tolerance` of each other (absolute), or of tolerance × the mean magnitude of the
  // values (relative); tolerance 0 asks for equality.
  std::vector<Outcome> check(const std::string& forest_name, const CheckedMetric& metric,
                             double tolerance, bool relative);

  // cube_info of several reports: the listing of forest `forest_name` with each metric's
  // column once per report (the original's layout).
  std::string info_text(const std::string& forest_name, const std::vector<CheckedMetric>& columns);

 private:
  std::vector<const Report*> reports_;
  std::vector<std::unique_ptr<MetricEngine>> engines_;
  Model unified_;
  std::vector<std::vector<Index>> from_unified_;  // per report: unified cnode → its cnode
  std::map<std::string, CallForest> forests_;
};

}  // namespace cubekit
