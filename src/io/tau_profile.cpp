#include "cubekit/tau_profile.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/model.hpp"
#include "cubekit/writer.hpp"
#include "generator_model.hpp"
#include "tau_files.hpp"

namespace cubekit {
namespace {

// TAU measures these in microseconds; the report has seconds.
bool is_time_metric(const std::string& name) {
  return name.find("TIME") != std::string::npos || name == "LINUX_TIMERS";
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

class Converter {
 public:
  explicit Converter(std::vector<TauFile>& files) : files_(files), tree_(build_call_tree(files)) {}
  Converted run();

 private:
  Index add_metric(std::string uniq, std::string disp, DataType type, MetricKind kind,
                   std::string uom, std::string descr);
  void add_definitions();
  void add_system();
  void fill_values();
  void add_events(const TauFile& f, Index location);
  Index cnode_of(const CallPath& p) const {
    const auto it = tree_.index.find(p);
    return it == tree_.index.end() ? kNoIndex : it->second;
  }

  std::vector<TauFile>& files_;
  CallTree tree_;
  Converted out_;
  std::vector<std::string> tau_metrics_;       // TAU's names, report order
  std::map<std::string, Index> event_metric_;  // event name -> metric
  std::map<Place, Index> location_;            // TAU place -> location
  Index visits_ = kNoIndex;
};

Index Converter::add_metric(std::string uniq, std::string disp, DataType type, MetricKind kind,
                            std::string uom, std::string descr) {
  return generator::add_metric(*out_.model, std::move(uniq), std::move(disp), type, kind,
                               std::move(uom), std::move(descr));
}

void Converter::add_definitions() {
  Model& m = *out_.model;
  m.version = "4.4";
  m.attrs = {{"CubePL Version", "1.1"}, {"Creator", "cubekit tau2cube"}, {"CUBE_CT_AGGR", "SUM"}};
  for (const TauFile& f : files_)
    if (std::find(tau_metrics_.begin(), tau_metrics_.end(), f.metric) == tau_metrics_.end())
      tau_metrics_.push_back(f.metric);
  for (const std::string& name : tau_metrics_) {
    const bool time = is_time_metric(name);
    add_metric(name == "TIME" ? "time" : name, name == "TIME" ? "Time" : name, TypeKind::kDouble,
               MetricKind::kInclusive, time ? "sec" : "occ",
               time ? "TAU metric " + name + " in seconds" : "TAU metric " + name);
  }
  visits_ = add_metric("visits", "Visits", TypeKind::kUInt64, MetricKind::kExclusive, "occ",
                       "Number of calls");
  std::set<std::string> taken;
  for (const Metric& x : m.metrics) taken.insert(x.uniq_name);
  for (const TauFile& f : files_)
    for (const EventLine& e : f.events)
      if (!event_metric_.count(e.name))
        event_metric_[e.name] =
            add_metric(event_unique_name(e.name, taken), e.name, TypeKind::kTauAtomic,
                       MetricKind::kExclusive, "occ", "TAU user event");
  std::map<std::string, Index> region_of;
  for (Index c = 0; c < tree_.paths.size(); ++c) {
    const CallPath& p = tree_.paths[c];
    auto [it, added] = region_of.try_emplace(p.back(), static_cast<Index>(m.regions.size()));
    if (added) {
      Region r;
      r.id = static_cast<uint32_t>(m.regions.size());
      r.name = r.mangled_name = p.back();
      m.regions.push_back(std::move(r));
    }
    Cnode n;
    n.id = static_cast<uint32_t>(c);
    n.region = it->second;
    if (p.size() > 1) {
      n.parent = cnode_of(CallPath(p.begin(), p.end() - 1));
      m.cnodes[n.parent].children.push_back(c);
    }
    m.cnodes.push_back(std::move(n));
  }
}

// One machine; a node per TAU node, a process per (node, context), a thread per thread.
void Converter::add_system() {
  Model& m = *out_.model;
  SystemNode machine;
  machine.name = "TAU";
  machine.class_name = "machine";
  m.system_nodes.push_back(std::move(machine));
  for (const TauFile& f : files_) location_[f.place];
  for (auto& [place, location] : location_) {
    const auto [node, context, thread] = place;
    const std::string node_name = "node " + std::to_string(node);
    if (m.system_nodes.back().name != node_name) {
      SystemNode n;
      n.id = static_cast<uint32_t>(m.system_nodes.size());
      n.name = node_name;
      n.class_name = "node";
      n.parent = 0;
      m.system_nodes[0].children.push_back(static_cast<Index>(m.system_nodes.size()));
      m.system_nodes.push_back(std::move(n));
    }
    const std::string group_name = node_name + " context " + std::to_string(context);
    if (m.groups.empty() || m.groups.back().name != group_name) {
      LocationGroup g;
      g.id = static_cast<uint32_t>(m.groups.size());
      g.name = group_name;
      g.rank = static_cast<int64_t>(m.groups.size());
      g.node = static_cast<Index>(m.system_nodes.size() - 1);
      m.system_nodes.back().groups.push_back(static_cast<Index>(m.groups.size()));
      m.groups.push_back(std::move(g));
    }
    Location l;
    l.id = static_cast<uint32_t>(m.locations.size());
    l.name = "thread " + std::to_string(thread);
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
  for (Index e = visits_ + 1; e < m.metrics.size(); ++e)  // N = 0 and min/max identities
    set_identity(m.metrics[e].dtype, reinterpret_cast<std::byte*>(out_.values[e].data()), cells);
  std::set<std::pair<std::string, Place>> done;
  for (const TauFile& f : files_) {
    if (!done.insert({f.metric, f.place}).second)
      throw FormatError(f.path + ": a second file for metric " + f.metric + " on this thread");
    const Index metric = static_cast<Index>(
        std::find(tau_metrics_.begin(), tau_metrics_.end(), f.metric) - tau_metrics_.begin());
    const Index location = location_.at(f.place);
    const double scale = is_time_metric(f.metric) ? 1e-6 : 1.0;
    for (const FunctionLine& fn : f.functions) {
      const Index c = cnode_of(fn.path);
      if (c == kNoIndex) continue;  // a per-region line of a call-path profile
      const size_t cell = c * m.locations.size() + location;
      out_.values[metric][cell] = fn.inclusive * scale;
      if (metric == 0) out_.values[visits_][cell] = fn.calls;
    }
    if (metric == 0) add_events(f, location);
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
  add_definitions();
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
  if (metric.dtype.kind() == TypeKind::kUInt64) {
    for (size_t l = 0; l < locations; ++l) row[l] = static_cast<uint64_t>(from[l]);
  } else {
    std::memcpy(row.data(), from, locations * lanes * sizeof(double));
  }
  writer.write_row(cnode, reinterpret_cast<const std::byte*>(row.data()));
}

}  // namespace

TauConversion convert_tau_profile(const std::string& dir, const std::string& path) {
  std::vector<TauFile> files = find_tau_files(dir);
  for (TauFile& f : files) {
    parse_tau_file(f);
    if (f.metric.empty()) f.metric = "TIME";  // a single-metric profile measures time
  }
  // The time metric first: it is the one tools default to.
  std::stable_partition(files.begin(), files.end(),
                        [](const TauFile& f) { return f.metric == "TIME"; });
  const Converted c = Converter(files).run();
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
  summary.metrics = m.metrics.size() - summary.user_events - 1;
  summary.call_paths = m.cnodes.size();
  summary.locations = m.locations.size();
  return summary;
}

}  // namespace cubekit
