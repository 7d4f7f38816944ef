// cube_test's comparisons (call_path_checks.hpp): call trees unified as the algebra tools unify
// them, values per report through cube_info's columns, CubeLib 4.6's pass rule.
#include "cubekit/call_path_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {

CallPathChecks::CallPathChecks(const std::vector<const Report*>& reports) : reports_(reports) {
  if (reports.size() < 2) throw Error("comparing call paths needs at least two reports");
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) defs.add_call_tree(reports[i]->model(), maps[i]);
  unified_ = defs.model();
  for (size_t i = 0; i < reports.size(); ++i) {
    engines_.push_back(std::make_unique<MetricEngine>(*reports[i]));
    std::vector<Index> back(unified_.cnodes.size(), kNoIndex);
    for (Index c = 0; c < maps[i].cnode.size(); ++c)
      if (maps[i].cnode[c] != kNoIndex && back[maps[i].cnode[c]] == kNoIndex)
        back[maps[i].cnode[c]] = c;
    from_unified_.push_back(std::move(back));
  }
  forests_.emplace("all", CallForest::whole(unified_));
}

CallPathChecks::~CallPathChecks() = default;

CallPathChecks::CheckedMetric CallPathChecks::metric(const std::string& descriptor) const {
  CheckedMetric m;
  std::string first_error;
  for (const Report* r : reports_) {
    try {
      m.columns.push_back(info_metric_column(r->model(), descriptor));
    } catch (const LookupError& e) {
      if (first_error.empty()) first_error = r->path() + ": " + e.what();
      m.columns.push_back(InfoColumn{});  // metric kNoIndex: NaN for this report
    }
  }
  const auto found = std::find_if(m.columns.begin(), m.columns.end(),
                                  [](const InfoColumn& c) { return c.metric != kNoIndex; });
  if (found == m.columns.end()) throw LookupError(first_error);
  const Model& model = reports_[static_cast<size_t>(found - m.columns.begin())]->model();
  const InfoColumn& c = *found;
  std::string where = "*.*";
  if (!c.locations.empty()) {
    const Location& first = model.locations[c.locations.front()];
    const LocationGroup& group = model.groups[first.group];
    where = std::to_string(group.rank) + ".";
    if (c.locations.size() == group.locations.size())
      where += "*";
    else
      for (Index k = 0; k < group.locations.size(); ++k)
        if (group.locations[k] == c.locations.front()) where += std::to_string(k);
  }
  m.name = "basic@" + model.metrics[c.metric].uniq_name + ":" +
           (c.call_flavour == Flavour::kExclusive ? "excl:" : "incl:") + where;
  m.display = c.header;
  return m;
}

CallPathChecks::CheckedMetric CallPathChecks::visitors() const {
  CheckedMetric m;
  bool any = false;
  for (const Report* r : reports_) {
    try {
      m.columns.push_back(info_visitors_column(r->model()));
      any = true;
    } catch (const LookupError&) {
      m.columns.push_back(InfoColumn{});
    }
  }
  if (!any) throw LookupError("no report has a metric 'visits' to count visitors with");
  m.name = "visitors@";
  m.display = "Visitors";
  return m;
}

std::string CallPathChecks::info_text(const std::string& forest_name,
                                      const std::vector<CheckedMetric>& columns) {
  std::vector<InfoPrintedColumn> printed;
  for (const CheckedMetric& m : columns) {
    const auto known = std::find_if(m.columns.begin(), m.columns.end(),
                                    [](const InfoColumn& c) { return c.metric != kNoIndex; });
    for (size_t i = 0; i < reports_.size(); ++i)
      printed.push_back({m.display, *known, [this, &m, i](Index cnode, bool inclusive) {
                           InfoColumn asked = m.columns[i];
                           const Index c = from_unified_[i][cnode];
                           if (c == kNoIndex || asked.metric == kNoIndex)
                             return std::numeric_limits<double>::quiet_NaN();
                           if (inclusive && asked.kind == InfoColumn::Kind::kMetric)
                             asked.call_flavour = Flavour::kInclusive;
                           return info_column_value(*engines_[i], asked, c);
                         }});
  }
  return info_tree_text(unified_, forest(forest_name), printed);
}

std::vector<double> CallPathChecks::values(const CheckedMetric& metric, Index cnode) const {
  std::vector<double> v(reports_.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < reports_.size(); ++i) {
    const Index c = from_unified_[i][cnode];
    if (c == kNoIndex || metric.columns[i].metric == kNoIndex) continue;
    v[i] = info_column_value(*engines_[i], metric.columns[i], c);
  }
  return v;
}

CallForest& CallPathChecks::forest(const std::string& name) {
  const auto it = forests_.find(name);
  if (it == forests_.end()) throw LookupError("Could not find tree " + name + "!");
  return it->second;
}

void CallPathChecks::copy_forest(const std::string& to, const std::string& from) {
  if (forests_.count(to)) throw Error("The forest " + to + " exists already!");
  const auto it = forests_.find(from);
  if (it == forests_.end())
    throw LookupError("The forest " + from +
                      " does not exist, but you asked me to create a copy from it!");
  forests_.emplace(to, it->second);
}

std::vector<CallPathChecks::Outcome> CallPathChecks::check(const std::string& forest_name,
                                                           const CheckedMetric& metric,
                                                           double tolerance, bool relative) {
  std::vector<Outcome> outcomes;
  for (Index c : forest(forest_name).post_order()) {
    const std::vector<double> v = values(metric, c);
    Outcome o;
    o.cnode = c;
    o.allowed = tolerance;
    if (relative) {
      double sum = 0;
      for (double x : v) sum += std::fabs(x);
      o.allowed = tolerance * (sum / static_cast<double>(v.size()));
    }
    // The original's rule, NaN included: each value against the range of those before it.
    double low = v[0], high = v[0];
    for (size_t i = 1; i < v.size() && o.passed; ++i) {
      low = v[i] < low ? v[i] : low;
      high = v[i] > high ? v[i] : high;
      const double above = v[i] - low, below = high - v[i];
      o.difference = above < below ? below : above;
      if (o.difference > o.allowed) o.passed = false, o.report = i;
    }
    outcomes.push_back(o);
  }
  return outcomes;
}

}  // namespace cubekit
