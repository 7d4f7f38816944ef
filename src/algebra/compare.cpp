// cube_cmp's comparison (report_algebra.hpp: compare_reports), after CubeLib 4.6: the three
// trees must have the same shape of ids (roots and children ordered by id, breadth first), then
// every stored metric's per-location values must agree within 2 ulp (relative), call-inclusive
// where either report stores the metric inclusively, exclusive otherwise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "cubekit/algebra.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

// Breadth-first list of ids: roots sorted by id, then each vertex's children sorted by id.
template <class Id, class Children>
std::vector<uint32_t> id_enumeration(std::vector<Index> roots, Id id, Children children) {
  auto by_id = [&](Index a, Index b) { return id(a) < id(b); };
  std::stable_sort(roots.begin(), roots.end(), by_id);
  std::vector<Index> list = roots;
  for (size_t i = 0; i < list.size(); ++i) {
    std::vector<Index> kids = children(list[i]);
    std::stable_sort(kids.begin(), kids.end(), by_id);
    list.insert(list.end(), kids.begin(), kids.end());
  }
  std::vector<uint32_t> ids;
  for (Index v : list) ids.push_back(id(v));
  return ids;
}

std::vector<uint32_t> metric_shape(const Model& m) {
  return id_enumeration(
      m.metric_roots(), [&](Index i) { return m.metrics[i].id; },
      [&](Index i) { return m.metrics[i].children; });
}
std::vector<uint32_t> calltree_shape(const Model& m) {
  return id_enumeration(
      m.cnode_roots(), [&](Index i) { return m.cnodes[i].id; },
      [&](Index i) { return m.cnodes[i].children; });
}
// System tree nodes are numbered in document order (their vector index), as CubeLib does.
std::vector<uint32_t> system_shape(const Model& m) {
  return id_enumeration(
      m.system_roots(), [](Index i) { return i; },
      [&](Index i) { return m.system_nodes[i].children; });
}

bool almost_equal(double x, double y) {
  return std::abs(x - y) < std::numeric_limits<double>::epsilon() * std::abs(x + y) * 2 ||
         std::abs(x - y) < std::numeric_limits<double>::min();
}

std::vector<double> row_numbers(MetricEngine& r, Index metric, Index cnode, Flavour flavour) {
  const Values v = r.location_values(metric, cnode, Flavour::kInclusive, flavour);
  std::vector<double> out(v.size());
  scalars(v.type(), v.data(), v.size(), out.data());
  return out;
}

// How many locations CubeLib pairs up: each location of one report with the first unpaired one
// of the other that has the same rank (its Location::operator== compares only the rank), so
// Σ over ranks of the smaller count. It then compares that many values of each row, by
// position in each report's own order, whatever the process they belong to.
size_t paired_locations(const Model& a, const Model& b) {
  std::map<int64_t, std::pair<size_t, size_t>> by_rank;
  for (const Location& l : a.locations) ++by_rank[l.rank].first;
  for (const Location& l : b.locations) ++by_rank[l.rank].second;
  size_t n = 0;
  for (const auto& [rank, counts] : by_rank) n += std::min(counts.first, counts.second);
  return n;
}

// The first differing value, described as CubeLib prints it; empty when all agree.
std::string first_data_difference(const Report& lhs, const Report& rhs) {
  const Model& a = lhs.model();
  const Model& b = rhs.model();
  const size_t compared = paired_locations(a, b);
  MetricEngine left(lhs), right(rhs);
  for (Index m = 0; m < a.metrics.size(); ++m) {
    const Metric& ma = a.metrics[m];
    const auto other = b.metric_by_uniq_name(ma.uniq_name);
    if (!other || is_derived(ma.kind) || ma.is_void) continue;
    const Metric& mb = b.metrics[*other];
    if (is_derived(mb.kind) || mb.is_void) continue;
    const bool inclusive = ma.kind == MetricKind::kInclusive || mb.kind == MetricKind::kInclusive;
    const Flavour f = inclusive ? Flavour::kInclusive : Flavour::kExclusive;
    for (Index c = 0; c < a.cnodes.size() && c < b.cnodes.size(); ++c) {
      const std::vector<double> x = row_numbers(right, *other, c, f);
      const std::vector<double> y = row_numbers(left, m, c, f);
      for (size_t i = 0; i < x.size() && i < y.size() && i < compared; ++i) {
        if (almost_equal(x[i], y[i])) continue;
        std::ostringstream s;
        s << mb.uniq_name << " vs. " << ma.uniq_name << '\n'
          << b.regions[b.cnodes[c].region].name << " vs. " << a.regions[a.cnodes[c].region].name
          << '\n'
          << x[i] << " != " << y[i] << "(" << i << "th element )\n";
        return s.str();
      }
    }
    left.forget_values();
    right.forget_values();
    lhs.drop(m);
    rhs.drop(*other);
  }
  return {};
}

}  // namespace

Comparison compare_reports(const Report& lhs, const Report& rhs) {
  Comparison result;
  std::string& t = result.transcript;
  const Model& a = lhs.model();
  const Model& b = rhs.model();
  t += " Compare metric dimensions...";
  if (metric_shape(a) != metric_shape(b)) return t += "not equal.\n", result;
  t += "equal.\n Compare calltree dimensions.";
  if (calltree_shape(a) != calltree_shape(b)) return t += "not equal.\n", result;
  t += "equal.\n Compare system dimensions...";
  // Only machines and nodes: CubeLib's comparison never reaches processes and threads.
  if (system_shape(a) != system_shape(b)) return t += "not equal.\n", result;
  t += "equal.\n Compare data...";
  const std::string difference = first_data_difference(lhs, rhs);
  if (!difference.empty()) return t += difference + "not equal.\n", result;
  t += "equal.\n";
  result.equal = true;
  return result;
}

}  // namespace cubekit
