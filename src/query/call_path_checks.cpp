// cube_test's comparisons (call_path_checks.hpp): call trees unified as the algebra tools unify
// them, values per report through cube_info's columns, CubeLib 4.6's pass rule.
#include "cubekit/call_path_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {

namespace {

// A number per distinct call path along its whole path (CubeLib's Cnode::operator==: callee
// region by name, module and lines, call site, parameters, and the same of every caller).
class CallPathIdentities {
 public:
  std::vector<size_t> of(const Model& model) {
    std::vector<size_t> ids(model.cnodes.size());
    for (Index c : pre_order(model)) {
      const Cnode& n = model.cnodes[c];
      const Region& r = model.regions[n.region];
      std::vector<std::string> params;
      for (const Parameter& p : n.parameters)
        params.push_back(p.type + '\n' + p.key + '\n' + p.value);
      std::sort(params.begin(), params.end());
      const size_t caller = n.parent == kNoIndex ? 0 : ids[n.parent] + 1;
      Key key{caller, r.name, r.mod, r.begin, r.end, n.mod, n.line, params};
      ids[c] = known_.emplace(std::move(key), known_.size()).first->second;
    }
    return ids;
  }

 private:
  using Key = std::tuple<size_t, std::string, std::string, int64_t, int64_t, std::string, int64_t,
                         std::vector<std::string>>;
  std::map<Key, size_t> known_;
};

// CubeLib's cube_test maps the unified tree back onto each report by value
// (createMappingCnode): every call path of the report, in id order, onto the first unified call
// path equal to it, a later one replacing an earlier. A unified call path equal to an earlier
// one (alike siblings of a Cube 3 report) gets nothing: no value in any report.
std::vector<Index> in_id_order(const Model& model) {
  std::vector<Index> order(model.cnodes.size());
  for (Index c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return model.cnodes[a].id < model.cnodes[b].id; });
  return order;
}

std::vector<Index> back_by_identity(const Model& unified, const std::vector<size_t>& unified_ids,
                                    const Model& report, const std::vector<size_t>& report_ids) {
  std::map<size_t, Index> first;  // identity → first unified call path (in id order) with it
  for (Index u : in_id_order(unified)) first.emplace(unified_ids[u], u);
  std::vector<Index> back(unified.cnodes.size(), kNoIndex);
  for (Index c : in_id_order(report))
    if (const auto f = first.find(report_ids[c]); f != first.end()) back[f->second] = c;
  return back;
}

}  // namespace

CallPathChecks::CallPathChecks(const std::vector<const Report*>& reports) : reports_(reports) {
  if (reports.size() < 2) throw Error("comparing call paths needs at least two reports");
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) defs.add_call_tree(reports[i]->model(), maps[i]);
  unified_ = defs.model();
  CallPathIdentities identities;
  const std::vector<size_t> unified_ids = identities.of(unified_);
  for (size_t i = 0; i < reports.size(); ++i) {
    engines_.push_back(std::make_unique<MetricEngine>(*reports[i]));
    const Model& model = reports[i]->model();
    from_unified_.push_back(back_by_identity(unified_, unified_ids, model, identities.of(model)));
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
