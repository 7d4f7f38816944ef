#include "cubekit/tau_profile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/model.hpp"
#include "cubekit/writer.hpp"
#include "io/metric_definition.hpp"
#include "tau_files.hpp"

namespace cubekit {
namespace {

// TAU measures these in microseconds; the report has seconds. CubeLib's tau2cube takes these
// two names as time and every other metric as a count.
bool is_time_metric(const std::string& name) {
  return name == "TIME" || name == "GET_TIME_OF_DAY";
}

// CubeLib stores TAU's values in INTEGER metrics, dropping the fraction (toward zero). Values
// beyond the int64 range (no real profile has them) are clamped rather than overflowed.
int64_t truncated(double v) {
  constexpr double kLimit = 9.2e18;
  if (std::isnan(v)) return 0;
  return static_cast<int64_t>(std::clamp(v, -kLimit, kLimit));
}

// The call tree: every call path a file names, and which of them the report keeps.
struct CallTree {
  std::map<CallPath, Index> index;  // path -> cnode (kept paths only)
  std::vector<CallPath> paths;      // by cnode, pre-order
};

// A call path's caller path must have a line of its own. In a call-path profile TAU also
// writes one line per region summed over its callers (a one-region path without callees);
// those are left out, as CubeLib's tau2cube does, else the tree would count them twice.
CallTree build_call_tree(const std::vector<TauFile>& files) {
  std::vector<CallPath> order;
  std::map<CallPath, std::vector<CallPath>> children;
  std::set<CallPath> seen;
  for (const TauFile& f : files)
    for (const FunctionLine& fn : f.functions)
      if (seen.insert(fn.path).second) order.push_back(fn.path);
  for (const TauFile& f : files)
    for (const FunctionLine& fn : f.functions) {
      if (fn.path.size() < 2) continue;
      const CallPath caller(fn.path.begin(), fn.path.end() - 1);
      if (!seen.count(caller))
        throw FormatError(f.path + ":" + std::to_string(fn.line) + ": no line for the caller '" +
                          caller.back() + "' of call path '" + fn.path.back() +
                          "' (an incomplete call tree)");
    }
  for (const CallPath& p : order)
    if (p.size() > 1) children[CallPath(p.begin(), p.end() - 1)].push_back(p);
  const bool call_paths = !children.empty();
  CallTree tree;
  std::vector<CallPath> pending;
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (it->size() == 1 && (!call_paths || children.count(*it))) pending.push_back(*it);
  while (!pending.empty()) {  // depth first, children in order of first appearance
    CallPath p = pending.back();
    pending.pop_back();
    tree.index[p] = static_cast<Index>(tree.paths.size());
    const auto& kids = children[p];
    pending.insert(pending.end(), kids.rbegin(), kids.rend());
    tree.paths.push_back(std::move(p));
  }
  return tree;
}

std::string event_unique_name(const std::string& event, std::set<std::string>& taken) {
  std::string base = "tau_event_";
  for (char ch : event) base += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  std::string name = base;
  for (int k = 2; !taken.insert(name).second; ++k) name = base + "_" + std::to_string(k);
  return name;
}

// Everything the report holds: the model and one dense value table per metric.
struct Converted {
  std::shared_ptr<Model> model = std::make_shared<Model>();
  std::vector<std::vector<double>> values;  // per metric: cnode × location × lanes
};

// TAU node and thread: a location. CubeLib's tau2cube does not tell TAU contexts apart.
using NodeThread = std::pair<long, long>;

NodeThread node_thread(const Place& p) {
  return {std::get<0>(p), std::get<2>(p)};
}

// CubeLib 4.6's layout: per TAU metric an INTEGER metric of TAU's inclusive values, then CALLS;
// every region any line names; machine "Machine", node "Node", a process per TAU node, a thread
// per TAU thread, all unnamed (see docs/tau2cube.md).
class Converter {
 public:
  Converter(std::vector<TauFile>& files, const TauConversionOptions& options)
      : files_(files), options_(options), tree_(build_call_tree(files)) {}
  Converted run();

 private:
  Index add_metric(std::string uniq, std::string disp, DataType type, MetricKind kind,
                   std::string uom, std::string descr);
  void add_metrics();
  void add_regions();
  void add_call_tree();
  void add_system();
  void fill_values();
  void add_events(const TauFile& f, Index location);
  Index cnode_of(const CallPath& p) const {
    const auto it = tree_.index.find(p);
    return it == tree_.index.end() ? kNoIndex : it->second;
  }

  std::vector<TauFile>& files_;
  const TauConversionOptions& options_;
  CallTree tree_;
  Converted out_;
  std::vector<std::string> tau_metrics_;       // TAU's names, report order
  std::map<std::string, Index> event_metric_;  // event name -> metric
  std::map<std::string, Index> region_of_;     // region name -> region
  std::map<NodeThread, Index> location_;       // TAU node and thread -> location
  Index calls_ = kNoIndex;
};

Index Converter::add_metric(std::string uniq, std::string disp, DataType type, MetricKind kind,
                            std::string uom, std::string descr) {
  return cubekit::add_metric(*out_.model, std::move(uniq), std::move(disp), type, kind,
                             std::move(uom), std::move(descr));
}

void Converter::add_metrics() {
  Model& m = *out_.model;
  m.version = "4.4";
  m.attrs = {{"CUBE_CT_AGGR", "MAX"}};  // as CubeLib's tau2cube marks its reports
  for (const TauFile& f : files_)
    if (std::find(tau_metrics_.begin(), tau_metrics_.end(), f.metric) == tau_metrics_.end())
      tau_metrics_.push_back(f.metric);
  auto add_integer = [&](const std::string& name, std::string uom, std::string descr) {
    const Index x = add_metric(name, name, TypeKind::kInt64, MetricKind::kInclusive, std::move(uom),
                               std::move(descr));
    m.metrics[x].dtype_text = "INTEGER";
    return x;
  };
  for (const std::string& name : tau_metrics_)
    is_time_metric(name) ? add_integer(name, "sec", "Time in seconds")
                         : add_integer(name, "occ", "");
  calls_ = add_integer("CALLS", "occ", "Number of calls");
  if (!options_.user_events) return;
  std::set<std::string> taken;
  for (const Metric& x : m.metrics) taken.insert(x.uniq_name);
  for (const TauFile& f : files_)
    for (const EventLine& e : f.events)
      if (!event_metric_.count(e.name))
        event_metric_[e.name] =
            add_metric(event_unique_name(e.name, taken), e.name, TypeKind::kTauAtomic,
                       MetricKind::kExclusive, "occ", "TAU user event");
}

// Every region a line names, call paths left out of the tree included, in the order the
// lines name them (CubeLib's region ids).
void Converter::add_regions() {
  Model& m = *out_.model;
  for (const TauFile& f : files_)
    for (const FunctionLine& fn : f.functions)
      for (const std::string& name : fn.path) {
        if (!region_of_.try_emplace(name, static_cast<Index>(m.regions.size())).second) continue;
        Region r;
        r.id = static_cast<uint32_t>(m.regions.size());
        r.name = r.mangled_name = name;
        r.paradigm = "tau";
        m.regions.push_back(std::move(r));
      }
}

void Converter::add_call_tree() {
  Model& m = *out_.model;
  for (Index c = 0; c < tree_.paths.size(); ++c) {
    const CallPath& p = tree_.paths[c];
    Cnode n;
    n.id = static_cast<uint32_t>(c);
    n.region = region_of_.at(p.back());
    if (p.size() > 1) {
      n.parent = cnode_of(CallPath(p.begin(), p.end() - 1));
      m.cnodes[n.parent].children.push_back(c);
    }
    m.cnodes.push_back(std::move(n));
  }
}

// One machine with one node; a process per TAU node, a thread per TAU thread, sorted by
// number and unnamed, as CubeLib's tau2cube makes them.
void Converter::add_system() {
  Model& m = *out_.model;
  SystemNode machine;
  machine.name = "Machine";
  machine.class_name = "machine";
  machine.descr = "Created by tau2cube";
  machine.children.push_back(1);
  m.system_nodes.push_back(std::move(machine));
  SystemNode node;
  node.id = 1;
  node.name = "Node";
  node.class_name = "node";
  node.parent = 0;
  m.system_nodes.push_back(std::move(node));
  for (const TauFile& f : files_) location_[node_thread(f.place)];
  for (auto& [place, location] : location_) {
    const auto [tau_node, thread] = place;
    if (m.groups.empty() || m.groups.back().rank != tau_node) {
      LocationGroup g;
      g.id = static_cast<uint32_t>(m.groups.size());
      g.rank = tau_node;
      g.node = 1;
      m.system_nodes[1].groups.push_back(static_cast<Index>(m.groups.size()));
      m.groups.push_back(std::move(g));
    }
    Location l;
    l.id = static_cast<uint32_t>(m.locations.size());
    l.rank = thread;
    l.group = static_cast<Index>(m.groups.size() - 1);
    location = static_cast<Index>(m.locations.size());
    m.groups.back().locations.push_back(location);
    m.locations.push_back(std::move(l));
  }
}

void Converter::fill_values() {
  const Model& m = *out_.model;
  const size_t cells = m.cnodes.size() * m.locations.size();
  for (const Metric& x : m.metrics) out_.values.emplace_back(cells * x.dtype.lanes(), 0.0);
  for (Index e = calls_ + 1; e < m.metrics.size(); ++e)  // N = 0 and min/max identities
    set_identity(m.metrics[e].dtype, reinterpret_cast<std::byte*>(out_.values[e].data()), cells);
  std::set<std::pair<std::string, NodeThread>> done;
  for (const TauFile& f : files_) {
    if (!done.insert({f.metric, node_thread(f.place)}).second)
      throw FormatError(f.path + ": a second file for metric " + f.metric +
                        " on this TAU node and thread (contexts are not told apart)");
    const Index metric = static_cast<Index>(
        std::find(tau_metrics_.begin(), tau_metrics_.end(), f.metric) - tau_metrics_.begin());
    const Index location = location_.at(node_thread(f.place));
    const double scale = is_time_metric(f.metric) ? 1e-6 : 1.0;
    for (const FunctionLine& fn : f.functions) {
      const Index c = cnode_of(fn.path);
      if (c == kNoIndex) continue;  // a per-region line of a call-path profile
      const size_t cell = c * m.locations.size() + location;
      out_.values[metric][cell] = fn.inclusive * scale;
      if (metric == 0) out_.values[calls_][cell] = fn.calls;
    }
    if (metric == 0 && options_.user_events) add_events(f, location);
  }
}

// Context events at their call path; events without context (or whose call path the tree
// lacks) at the first root, unless the same file gives that event with context.
void Converter::add_events(const TauFile& f, Index location) {
  std::set<std::string> with_context;
  for (const EventLine& e : f.events)
    if (!e.context.empty() && cnode_of(e.context) != kNoIndex) with_context.insert(e.name);
  for (const EventLine& e : f.events) {
    Index c = e.context.empty() ? kNoIndex : cnode_of(e.context);
    if (c == kNoIndex && with_context.count(e.name)) continue;
    if (tree_.paths.empty())
      throw FormatError(f.path + ":" + std::to_string(e.line) +
                        ": a user event in a profile without functions");
    if (c == kNoIndex) c = 0;
    double* v = out_.values[event_metric_.at(e.name)].data() +
                5 * (c * out_.model->locations.size() + location);
    const double sum = e.mean * e.count;
    if (e.count == 0) continue;
    v[1] = v[0] == 0 ? e.minimum : std::min(v[1], e.minimum);
    v[2] = v[0] == 0 ? e.maximum : std::max(v[2], e.maximum);
    v[0] += e.count;
    v[3] += sum;
    v[4] += e.squares;
  }
}

Converted Converter::run() {
  add_metrics();
  add_regions();
  add_call_tree();
  add_system();
  out_.model->finalize("tau2cube");
  fill_values();
  return std::move(out_);
}

void write_row(ReportWriter& writer, const Metric& metric, Index cnode,
               const std::vector<double>& values, size_t locations, std::vector<uint64_t>& row) {
  const size_t lanes = metric.dtype.lanes();
  const double* from = values.data() + cnode * locations * lanes;
  // TAU_ATOMIC values without events (N = 0) are the identity: no data.
  bool data = false;
  for (size_t i = 0; i < locations * lanes;
       i += metric.dtype.kind() == TypeKind::kTauAtomic ? 5 : 1)
    data = data || from[i] != 0;
  if (!data) return;
  row.assign(locations * lanes, 0);
  if (metric.dtype.kind() == TypeKind::kInt64) {
    for (size_t l = 0; l < locations; ++l) row[l] = static_cast<uint64_t>(truncated(from[l]));
  } else {
    std::memcpy(row.data(), from, locations * lanes * sizeof(double));
  }
  writer.write_row(cnode, reinterpret_cast<const std::byte*>(row.data()));
}

}  // namespace

TauConversion convert_tau_profile(const std::string& profile, const std::string& path,
                                  const TauConversionOptions& options) {
  std::vector<TauFile> files = find_tau_files(profile);
  for (TauFile& f : files) {
    parse_tau_file(f);
    if (f.metric.empty()) f.metric = "TIME";  // a single-metric profile measures time
  }
  // The time metric first: it is the one tools default to.
  std::stable_partition(files.begin(), files.end(),
                        [](const TauFile& f) { return f.metric == "TIME"; });
  const Converted c = Converter(files, options).run();
  const Model& m = *c.model;
  ReportWriter writer(path, c.model);
  std::vector<uint64_t> row;
  for (Index metric = 0; metric < m.metrics.size(); ++metric) {
    writer.begin_metric(metric);
    for (Index cnode : storage_order(m, m.metrics[metric].kind))
      write_row(writer, m.metrics[metric], cnode, c.values[metric], m.locations.size(), row);
    writer.end_metric();
  }
  writer.finish();
  TauConversion summary;
  summary.files = files.size();
  for (const Metric& x : m.metrics) summary.user_events += x.dtype.kind() == TypeKind::kTauAtomic;
  summary.metrics = m.metrics.size() - summary.user_events - 1;  // without CALLS
  summary.call_paths = m.cnodes.size();
  summary.locations = m.locations.size();
  return summary;
}

}  // namespace cubekit
