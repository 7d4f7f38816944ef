#include "cubekit/info_tree.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"
#include "cubekit/statistics.hpp"

namespace cubekit {
namespace {

// Call paths in the order of their ids, as CubeLib's tools that copy the cube (MdAggrCube)
// define them.
std::vector<Index> in_id_order(const Model& model, std::vector<Index> nodes) {
  sort_by_cnode_id(model, nodes);
  return nodes;
}

constexpr int kColumnWidth = 15;  // CubeLib's column: 15 wide, headers cut to 13

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The longest-known prefix rule of the original: the name ends at the first ':' after which
// the text before it names a metric; without one, the whole descriptor is the name.
size_t metric_name_end(const Model& model, const std::string& d) {
  for (size_t colon = d.find(':'); colon != std::string::npos; colon = d.find(':', colon + 1))
    if (model.metric_by_uniq_name(d.substr(0, colon))) return colon;
  return d.size();
}

// The process `rank` (first location group with that rank) and, with a thread, its location
// at that position; fills `column.locations` and returns the header suffix text ("0", "0.1").
std::string choose_locations(const Model& model, const std::string& where, InfoColumn& column) {
  const size_t dot = where.find('.');
  const std::string rank_text = where.substr(0, dot);
  const std::string thread_text = dot == std::string::npos ? "" : where.substr(dot + 1);
  const long rank = std::atol(rank_text.c_str());
  auto group = std::find_if(model.groups.begin(), model.groups.end(),
                            [&](const LocationGroup& g) { return g.rank == rank; });
  if (group == model.groups.end()) throw LookupError("there is no process with rank " + rank_text);
  if (thread_text.empty() || thread_text == "*") {
    column.locations = group->locations;
    return std::to_string(group->rank);
  }
  const long thread = std::atol(thread_text.c_str());
  if (thread < 0 || static_cast<size_t>(thread) >= group->locations.size())
    throw LookupError("process " + rank_text + " has no thread " + thread_text);
  const Index location = group->locations[static_cast<size_t>(thread)];
  column.locations = {location};
  return std::to_string(group->rank) + "." + std::to_string(model.locations[location].rank);
}

}  // namespace

InfoColumn info_metric_column(const Model& model, const std::string& descriptor) {
  const size_t name_end = metric_name_end(model, descriptor);
  const std::string name = descriptor.substr(0, name_end);
  const auto metric = model.metric_by_uniq_name(name);
  if (!metric) throw LookupError("no metric '" + name + "'");
  InfoColumn column;
  column.metric = *metric;
  column.fractional = model.metrics[*metric].dtype_text == "FLOAT";
  const std::string rest = name_end < descriptor.size() ? descriptor.substr(name_end + 1) : "";
  const size_t colon = rest.find(':');
  const std::string mode = lower(rest.substr(0, colon));
  const std::string where = colon == std::string::npos ? "" : rest.substr(colon + 1);
  if (mode == "excl" || mode == "exclusive")
    column.call_flavour = Flavour::kExclusive;
  else if (!mode.empty() && mode != "incl" && mode != "inclusive")
    throw LookupError("unknown mode '" + mode + "' in '" + descriptor + "' (incl or excl)");
  std::string suffix;
  if (column.call_flavour == Flavour::kExclusive) suffix = "E";
  const size_t where_dot = where.find('.');
  if (!where.empty() && where.substr(0, where_dot) != "*")
    suffix += (suffix.empty() ? "" : ",") + choose_locations(model, where, column);
  if (!suffix.empty()) suffix = " (" + suffix + ")";
  const std::string& display = model.metrics[*metric].disp_name;
  const size_t room = suffix.size() >= kColumnWidth - 2 ? 0 : kColumnWidth - 2 - suffix.size();
  column.header = display.substr(0, room) + suffix;
  return column;
}

InfoColumn info_visitors_column(const Model& model) {
  const auto visits = model.metric_by_uniq_name("visits");
  if (!visits) throw LookupError("no metric 'visits' to count visitors with");
  InfoColumn column;
  column.kind = InfoColumn::Kind::kVisitors;
  column.metric = *visits;
  column.call_flavour = Flavour::kExclusive;
  column.header = "Visitors";
  return column;
}

namespace {

// Prints the shown sub-forest: a line per call path, depth first, and an "Aggregated" line
// under every parent some of whose children were left out.
class InfoPrinter {
 public:
  InfoPrinter(const Model& tree, const CallForest& forest,
              const std::vector<InfoPrintedColumn>& columns)
      : model_(tree), forest_(forest), columns_(columns) {}

  std::string text() {
    std::ostringstream out;
    if (!columns_.empty()) out << "| ";
    for (const InfoPrintedColumn& c : columns_) out << std::setw(kColumnWidth) << c.header << " | ";
    out << "Diff-Calltree\n";
    for (Index root : forest_.roots) print(out, root);
    return out.str();
  }

 private:
  static std::string indent(unsigned depth) {
    std::string s;
    for (unsigned d = 0; d < depth; ++d) s += " | ";
    return s + " * ";
  }

  void print_values(std::ostringstream& out, const std::vector<double>& values) {
    if (!columns_.empty()) out << "| ";
    for (size_t i = 0; i < columns_.size(); ++i)
      out << std::setw(kColumnWidth) << info_value_text(columns_[i].format, values[i]) << " | ";
  }

  size_t descendants(Index cnode) const {
    size_t n = 0;
    std::vector<Index> pending = model_.cnodes[cnode].children;
    while (!pending.empty()) {
      const Index c = pending.back();
      pending.pop_back();
      ++n;
      pending.insert(pending.end(), model_.cnodes[c].children.begin(),
                     model_.cnodes[c].children.end());
    }
    return n;
  }

  // The shown subtree of `root`, depth first, with a stack of its own: a recursive program's
  // call tree can be deeper than the thread's stack.
  void print(std::ostringstream& out, Index root) {
    std::vector<std::pair<Index, unsigned>> pending{{root, 0}};  // call path, depth
    while (!pending.empty()) {
      const auto [cnode, depth] = pending.back();
      pending.pop_back();
      std::vector<double> values;
      for (const InfoPrintedColumn& c : columns_) values.push_back(c.value(cnode, false));
      print_values(out, values);
      out << indent(depth) << model_.regions[model_.cnodes[cnode].region].name << '\n';
      const std::vector<Index>& shown = forest_.children[cnode];
      const std::vector<Index>& all = model_.cnodes[cnode].children;
      if (shown.size() != all.size()) print_left_out(out, cnode, depth);
      for (auto it = shown.rbegin(); it != shown.rend(); ++it) pending.push_back({*it, depth + 1});
    }
  }

  // The children left out, summed: inclusive values even for exclusive columns (a left-out
  // child stands for its whole subtree).
  void print_left_out(std::ostringstream& out, Index cnode, unsigned depth) {
    const std::vector<Index>& shown = forest_.children[cnode];
    std::vector<double> sums(columns_.size(), 0.0);
    size_t left_out = 0, their_descendants = 0;
    for (Index child : in_id_order(model_, model_.cnodes[cnode].children)) {
      if (std::find(shown.begin(), shown.end(), child) != shown.end()) continue;
      ++left_out;
      their_descendants += descendants(child);
      for (size_t i = 0; i < columns_.size(); ++i) sums[i] += columns_[i].value(child, true);
    }
    print_values(out, sums);
    out << indent(depth + 1) << "***** Aggregated " << left_out << " siblings (+"
        << their_descendants << " children) within "
        << model_.regions[model_.cnodes[cnode].region].name << '\n';
  }

  const Model& model_;
  const CallForest& forest_;
  const std::vector<InfoPrintedColumn>& columns_;
};

// The rule applied to one call path: true when it goes with its subtree; the cumulative rule
// keeps it and trims its children instead.
bool abridged_itself(CallForest& forest, const CallPathValues& values, double threshold,
                     InfoAbridge kind, Index cnode) {
  std::vector<Index>& children = forest.children[cnode];
  if (kind == InfoAbridge::kCumulative) {
    // CubeLib 4.6 ranks the children by the parent's own value (the same for each), so its
    // stable ranking keeps them in order, and it keeps the first k with k × value ≥
    // (1 − threshold) × n × value: about half of them for 0.5, none when the value is zero.
    // The oracle shows this (info_x); it is reproduced, sums formed in the same order.
    double parent = 0;
    for (double v : values(cnode)) parent += v;
    double total = 0, cumulative = 0;
    for (size_t i = 0; i < children.size(); ++i) total += parent;
    size_t keep = 0;
    while (cumulative < (1 - threshold) * total && keep < children.size()) {
      cumulative += parent;
      ++keep;
    }
    children.resize(keep);
    return false;
  }
  const std::vector<double> v = values(cnode);
  return std::none_of(v.begin(), v.end(), [&](double x) { return x > threshold; });
}

// Preorder: a call path at or below the threshold goes with its subtree (true); the cumulative
// rule instead trims each parent's children. The levels are a stack of their own, not the
// thread's (see InfoPrinter::print).
bool abridged_away(CallForest& forest, const CallPathValues& values, double threshold,
                   InfoAbridge kind, Index root) {
  if (abridged_itself(forest, values, threshold, kind, root)) return true;
  struct Level {
    Index cnode;
    size_t next = 0;            // of its children, the next to look at
    std::vector<Index> kept{};  // of its children, those kept so far
  };
  std::vector<Level> levels{{root}};
  while (!levels.empty()) {
    Level& level = levels.back();
    std::vector<Index>& children = forest.children[level.cnode];
    if (level.next == children.size()) {
      children = std::move(level.kept);
      levels.pop_back();
      continue;
    }
    const Index child = children[level.next++];
    if (abridged_itself(forest, values, threshold, kind, child)) continue;
    level.kept.push_back(child);
    levels.push_back({child});  // `level` is not used after this
  }
  return false;
}

// A stored metric's column value added up in the order of CubeLib's AggrCube::get_vcsev,
// which cube_info's columns and abridging rules call (AggregatedMetric::compute), so that its
// cut-offs, decided by the last bit of a sum, fall where the original's do. The system is
// summed before the call tree: for every call path the call-exclusive values (per_location)
// are first added up per system part — each system node of class "machine" (CubeLib's
// machines, at any depth) for all locations, else the chosen locations — and a call path's
// inclusive value per part is its own plus each child's (children by id), the parts added last.
// Within a part, a system node with child nodes adds theirs one by one (its own location groups are
// not reached), a node without adds all locations of its groups, and a chosen process its
// locations, each from 0 in order.
class AggrCubeSum {
 public:
  AggrCubeSum(MetricEngine& engine, const InfoColumn& column)
      : engine_(engine), model_(engine.report().model()), column_(column) {}

  double value(Index cnode) {
    const std::vector<double> parts = column_.call_flavour == Flavour::kInclusive
                                          ? inclusive_parts(cnode)
                                          : exclusive_parts(cnode);
    double sum = 0;
    for (double part : parts) sum += part;
    return sum;
  }

 private:
  std::vector<double> exclusive_parts(Index cnode) {
    const std::vector<double> row =
        per_location(engine_, column_.metric, cnode, Flavour::kExclusive);
    std::vector<double> parts;
    if (!column_.locations.empty()) {
      parts.push_back(locations_sum(row, column_.locations));
      return parts;
    }
    for (Index node = 0; node < model_.system_nodes.size(); ++node)
      if (model_.system_nodes[node].class_name == "machine") parts.push_back(node_sum(row, node));
    return parts;
  }

  // A call path's own parts plus each child's inclusive ones (children by id), the children
  // worked out first: children first in a stack of its own, not the thread's (a recursive
  // program's call tree can be deeper than it).
  std::vector<double> inclusive_parts(Index cnode) {
    struct Level {
      Index cnode;
      std::vector<Index> children;  // by id
      size_t next = 0;
      std::vector<double> parts{};
    };
    auto level_of = [&](Index c) {
      return Level{c, in_id_order(model_, model_.cnodes[c].children), 0, exclusive_parts(c)};
    };
    std::vector<Level> levels;
    levels.push_back(level_of(cnode));
    while (true) {
      Level& level = levels.back();
      if (level.next < level.children.size()) {
        const Index child = level.children[level.next++];
        levels.push_back(level_of(child));  // `level` is not used after this
        continue;
      }
      if (levels.size() == 1) return std::move(level.parts);
      const std::vector<double> below = std::move(level.parts);
      levels.pop_back();
      std::vector<double>& parts = levels.back().parts;
      for (size_t i = 0; i < parts.size(); ++i) parts[i] += below[i];
    }
  }

  static double locations_sum(const std::vector<double>& row, const std::vector<Index>& where) {
    double sum = 0;
    for (Index l : where) sum += row[l];
    return sum;
  }

  double node_sum(const std::vector<double>& row, Index node) const {
    const SystemNode& n = model_.system_nodes[node];
    double sum = 0;
    if (!n.children.empty()) {
      for (Index child : n.children) sum += node_sum(row, child);
      return sum;
    }
    for (Index group : n.groups)
      for (Index l : model_.groups[group].locations) sum += row[l];
    return sum;
  }

  MetricEngine& engine_;
  const Model& model_;
  const InfoColumn& column_;
};

}  // namespace

double info_column_value(MetricEngine& engine, const InfoColumn& column, Index cnode) {
  const Model& model = engine.report().model();
  if (column.kind == InfoColumn::Kind::kMetric && column.metric < model.metrics.size() &&
      !is_derived(model.metrics[column.metric].kind))
    return AggrCubeSum(engine, column).value(cnode);
  const std::vector<double> row = per_location(engine, column.metric, cnode, column.call_flavour);
  if (column.kind == InfoColumn::Kind::kVisitors)
    return static_cast<double>(
        std::count_if(row.begin(), row.end(), [](double v) { return v > 0; }));
  double sum = 0;  // in location order
  if (column.locations.empty())
    for (double v : row) sum += v;
  else
    for (Index l : column.locations) sum += row[l];
  return sum;
}

CallForest CallForest::whole(const Model& model) {
  auto by_id = [&](std::vector<Index> nodes) { return in_id_order(model, std::move(nodes)); };
  CallForest f;
  f.roots = by_id(model.cnode_roots());
  f.children.resize(model.cnodes.size());
  for (Index c = 0; c < model.cnodes.size(); ++c) f.children[c] = by_id(model.cnodes[c].children);
  return f;
}

std::vector<Index> CallForest::post_order() const {
  std::vector<Index> order;
  // Explicit stack: (call path, whether its children are done).
  std::vector<std::pair<Index, bool>> stack;
  for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.push_back({*r, false});
  while (!stack.empty()) {
    auto [c, done] = stack.back();
    stack.pop_back();
    if (done) {
      order.push_back(c);
      continue;
    }
    stack.push_back({c, true});
    for (auto k = children[c].rbegin(); k != children[c].rend(); ++k) stack.push_back({*k, false});
  }
  return order;
}

void abridge(CallForest& forest, const CallPathValues& values, double threshold, InfoAbridge kind) {
  std::vector<Index> kept_roots;
  for (Index root : forest.roots) {
    double root_threshold = threshold;
    if (kind == InfoAbridge::kRootRelative) {
      const std::vector<double> v = values(root);
      double mean = 0;
      for (double x : v) mean += x;
      root_threshold *= v.empty() ? 0 : mean / static_cast<double>(v.size());
    }
    if (!abridged_away(forest, values, root_threshold, kind, root)) kept_roots.push_back(root);
  }
  forest.roots = kept_roots;
}

std::string info_value_text(const InfoColumn& column, double v) {
  std::ostringstream s;
  if (std::isnan(v)) {
    s << std::setw(kColumnWidth) << "N/A";
  } else if (column.kind == InfoColumn::Kind::kMetric && column.fractional) {
    int precision = 4;  // four decimals, one fewer per decade above 1000
    if (v > 1000) precision -= static_cast<int>(std::log10(v / 1000));
    s << std::setw(kColumnWidth) << std::fixed << std::setprecision(std::max(precision, 0)) << v;
  } else {
    // Whole numbers as an unsigned long, as the original casts them (negative ones wrap).
    const uint64_t whole =
        v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
    s << std::setw(kColumnWidth) << whole;
  }
  return s.str();
}

std::string info_tree_text(MetricEngine& engine, const std::vector<InfoColumn>& columns,
                           const std::vector<InfoAbridgeRule>& rules) {
  const Model& model = engine.report().model();
  CallForest forest = CallForest::whole(model);
  for (const InfoAbridgeRule& rule : rules)
    abridge(
        forest,
        [&](Index c) { return std::vector<double>{info_column_value(engine, rule.column, c)}; },
        rule.threshold, rule.kind);
  std::vector<InfoPrintedColumn> printed;
  for (const InfoColumn& column : columns)
    printed.push_back({column.header, column, [&engine, column](Index c, bool inclusive) {
                         InfoColumn asked = column;
                         if (inclusive && asked.kind == InfoColumn::Kind::kMetric)
                           asked.call_flavour = Flavour::kInclusive;
                         return info_column_value(engine, asked, c);
                       }});
  return info_tree_text(model, forest, printed);
}

std::string info_tree_text(const Model& tree, const CallForest& forest,
                           const std::vector<InfoPrintedColumn>& columns) {
  return InfoPrinter(tree, forest, columns).text();
}

namespace {

// The system figures of cube_info -b.
void count_system(const Model& model, InfoBasics& b) {
  b = {};
  for (const SystemNode& node : model.system_nodes) {
    if (node.class_name != "node") continue;
    if (b.nodes++ == 0) b.children_of_first_node = node.children.size();
  }
  b.processes = model.groups.size();
}

}  // namespace

InfoBasics info_basics(const std::vector<const Report*>& reports) {
  if (reports.empty()) throw Error("cube_info -b: no report");
  UnifiedDefinitions merge;
  std::vector<InputMapping> maps(reports.size());
  for (size_t i = 0; i < reports.size(); ++i)
    if (!merge.add_system_tree(reports[i]->model(), maps[i], SystemUnification::kStrict))
      throw Error(
          reports[i]->path() +
          ": its system tree does not fit the other reports' (no merge exists to describe)");
  InfoBasics b;
  for (auto r = reports.rbegin(); r != reports.rend(); ++r) {
    if (!(*r)->model().metric_by_uniq_name("time")) continue;
    MetricEngine engine(**r);
    b = info_basics(engine);
    break;
  }
  const std::optional<double> wallclock = b.wallclock;
  count_system(merge.model(), b);
  b.wallclock = wallclock;
  return b;
}

InfoBasics info_basics(MetricEngine& engine) {
  const Model& model = engine.report().model();
  InfoBasics b;
  count_system(model, b);
  if (const auto time = model.metric_by_uniq_name("time")) {
    double total = 0;
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      double largest = 0;
      for (double v : per_location(engine, *time, c, Flavour::kExclusive))
        largest = std::max(largest, v);
      total += largest;
    }
    b.wallclock = total;
  }
  return b;
}

}  // namespace cubekit
