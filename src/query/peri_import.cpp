// PERI-XML import (peri_xml.hpp: import_peri_xml): the document's dimensions become a Model,
// its <d> values the rows of the report's metrics.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/peri_xml.hpp"
#include "cubekit/writer.hpp"

namespace cubekit {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

class PeriReader {
 public:
  explicit PeriReader(std::string path) : path_(std::move(path)) {}

  void read() {
    const pugi::xml_parse_result ok = doc_.load_file(path_.c_str());
    if (!ok) throw FormatError(where(ok.offset) + ": malformed XML: " + ok.description());
    const pugi::xml_node root = doc_.document_element();
    metrics(root.child("metrics"));
    code(root.child("code"));
    states(root.child("states"));
    space(root.child("space"));
    model_->finalize(path_);
    values_.resize(model_->metrics.size());
    for (const pugi::xml_node& d : root.child("data").children("d")) data(d, {});
  }

  void write(const std::string& out) {
    ReportWriter writer(out, model_);
    const size_t n = model_->locations.size();
    for (Index m = 0; m < model_->metrics.size(); ++m) {
      const Metric& metric = model_->metrics[m];
      std::vector<uint64_t> row((metric.dtype.memory_size() * n + 7) / 8);
      if (values_[m].empty()) values_[m].assign(model_->cnodes.size() * n, 0);
      // A row of zeros is left out where 0 is what a missing row means (not for minima and
      // maxima, whose missing rows mean ±DBL_MAX). All-zero bits are 0 in every lane type.
      const bool sums = metric.dtype.kind() != TypeKind::kMinDouble &&
                        metric.dtype.kind() != TypeKind::kMaxDouble;
      writer.begin_metric(m);
      for (Index c : storage_order(*model_, metric.kind)) {
        const uint64_t* from = values_[m].data() + c * n;
        if (sums && std::all_of(from, from + n, [](uint64_t v) { return v == 0; })) continue;
        convert_values(lane_type(metric), reinterpret_cast<const std::byte*>(from), metric.dtype,
                       reinterpret_cast<std::byte*>(row.data()), n,
                       path_ + ": metric '" + metric.uniq_name + "'");
        writer.write_row(c, reinterpret_cast<const std::byte*>(row.data()));
      }
      writer.end_metric();
    }
    writer.finish();
  }

 private:
  // How a metric's values are held while reading: 64-bit integers for integer types (exact),
  // doubles otherwise; one 8-byte lane each.
  static DataType lane_type(const Metric& m) {
    if (!m.dtype.is_integer()) return DataType(TypeKind::kDouble);
    const TypeKind k = m.dtype.kind();
    const bool is_signed = k == TypeKind::kInt8 || k == TypeKind::kInt16 || k == TypeKind::kInt32 ||
                           k == TypeKind::kInt64;
    return DataType(is_signed ? TypeKind::kInt64 : TypeKind::kUInt64);
  }

  // Adds the text of a value to a lane of `lanes`' type.
  void add_value(const Metric& m, uint64_t& lane, const pugi::xml_node& d) {
    const std::string text = d.child_value();
    const TypeKind k = lane_type(m).kind();
    if (k == TypeKind::kDouble) {
      double x = 0;
      std::memcpy(&x, &lane, sizeof x);
      x += d.text().as_double();
      std::memcpy(&lane, &x, sizeof x);
    } else if (k == TypeKind::kInt64) {
      lane = static_cast<uint64_t>(static_cast<int64_t>(lane) + std::stoll(text));
    } else {
      lane += std::stoull(text);
    }
  }

  // "file:line:column" of a byte offset into the document.
  std::string where(ptrdiff_t offset) const {
    FILE* f = std::fopen(path_.c_str(), "rb");
    size_t line = 1, column = 1;
    if (f != nullptr) {
      for (ptrdiff_t i = 0; i < offset; ++i) {
        const int ch = std::fgetc(f);
        if (ch == EOF) break;
        if (ch == '\n')
          ++line, column = 1;
        else
          ++column;
      }
      std::fclose(f);
    }
    return path_ + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
  std::string where(const pugi::xml_node& node) const { return where(node.offset_debug()); }

  // ---- metrics -------------------------------------------------------------------------------
  void metrics(const pugi::xml_node& list) {
    for (const pugi::xml_node& m : list.children("metric")) metric(m, kNoIndex);
  }

  void metric(const pugi::xml_node& node, Index parent) {
    const std::string id = node.attribute("id").value();
    // write_peri_xml's inclusive twin: the exclusive one carries the values that are stored.
    if (ends_with(id, ".incl")) {
      const std::string base = id.substr(0, id.size() - 5);
      if (doc_.find_node([&](const pugi::xml_node& n) {
            return std::string(n.name()) == "metric" && n.attribute("id").value() == base + ".excl";
          }))
        return;
    }
    Metric m;
    m.id = static_cast<uint32_t>(model_->metrics.size());
    const std::string uniq = node.attribute("cube_uniq_name").value();
    m.uniq_name = !uniq.empty() ? uniq : ends_with(id, ".excl") ? id.substr(0, id.size() - 5) : id;
    m.disp_name = node.attribute("name").value();
    if (ends_with(m.disp_name, " (excl)")) m.disp_name.resize(m.disp_name.size() - 7);
    m.uom = node.attribute("units").value();
    m.descr = node.child_value("desc");
    const std::string dtype = node.attribute("cube_dtype").value();
    m.dtype_text = !dtype.empty()                                         ? dtype
                   : std::string(node.attribute("type").value()) == "int" ? "INT64"
                                                                          : "DOUBLE";
    try {
      m.dtype = DataType::parse(m.dtype_text);
    } catch (const Error&) {
      throw FormatError(where(node) + ": metric '" + id + "': unknown cube_dtype '" + dtype + "'");
    }
    // Values arrive as single numbers: composite types (RATE, NDOUBLES, HISTOGRAM, ...) are
    // kept as the numbers they were exported as.
    const TypeKind k = m.dtype.kind();
    if (!m.dtype.is_integer() && k != TypeKind::kDouble && k != TypeKind::kMinDouble &&
        k != TypeKind::kMaxDouble)
      m.dtype_text = "DOUBLE", m.dtype = DataType(TypeKind::kDouble);
    m.kind = MetricKind::kExclusive;
    m.parent = parent;
    const Index self = static_cast<Index>(model_->metrics.size());
    model_->metrics.push_back(m);
    if (parent != kNoIndex) model_->metrics[parent].children.push_back(self);
    metric_ids_[id] = self;
    if (ends_with(id, ".excl")) excl_of_[id] = self;
    for (const pugi::xml_node& child : node.children("metric")) metric(child, self);
  }

  // ---- code ----------------------------------------------------------------------------------
  void code(const pugi::xml_node& code) {
    std::map<std::string, std::string> sources;
    for (const pugi::xml_node& s : code.child("sources").children("source"))
      sources[s.attribute("id").value()] = s.child_value("name");
    for (const pugi::xml_node& program : code.child("programs").children("program")) {
      for (const pugi::xml_node& r : program.child("regions").children("region")) {
        Region region;
        region.id = static_cast<uint32_t>(model_->regions.size());
        region.name = region.mangled_name = r.child_value("name");
        if (!r.attribute("type").empty()) region.role = r.attribute("type").value();
        const pugi::xml_node src = r.child("src");
        if (src) {
          region.mod = sources[src.attribute("ref").value()];
          region.begin = src.child("line").attribute("first").as_llong(-1);
          region.end = src.child("line").attribute("last").as_llong(-1);
        }
        region_ids_[r.attribute("id").value()] = static_cast<Index>(model_->regions.size());
        model_->regions.push_back(region);
      }
      for (const pugi::xml_node& c : program.child("cnodes").children("cnode")) cnode(c, kNoIndex);
    }
  }

  void cnode(const pugi::xml_node& node, Index parent) {
    const auto region = region_ids_.find(node.attribute("ref").value());
    if (region == region_ids_.end())
      throw FormatError(where(node) + ": cnode '" + node.attribute("id").value() +
                        "' refers to the undefined region '" + node.attribute("ref").value() + "'");
    Cnode c;
    c.id = static_cast<uint32_t>(model_->cnodes.size());
    c.region = region->second;
    c.parent = parent;
    const Index self = static_cast<Index>(model_->cnodes.size());
    model_->cnodes.push_back(c);
    if (parent != kNoIndex) model_->cnodes[parent].children.push_back(self);
    cnode_ids_[node.attribute("id").value()] = self;
    if (!node.attribute("state").empty()) cnode_state_[self] = node.attribute("state").value();
    for (const pugi::xml_node& child : node.children("cnode")) cnode(child, self);
  }

  void states(const pugi::xml_node& states) {
    std::map<std::string, std::vector<Parameter>> by_id;
    for (const pugi::xml_node& s : states.children("state"))
      for (const pugi::xml_node& p : s.children("p"))
        by_id[s.attribute("id").value()].push_back(
            {p.attribute("type").empty() ? "string" : p.attribute("type").value(),
             p.attribute("nm").value(), p.child_value()});
    for (const auto& [c, state] : cnode_state_) model_->cnodes[c].parameters = by_id[state];
  }

  // ---- space ---------------------------------------------------------------------------------
  void system_node(const pugi::xml_node& node, Index parent) {
    SystemNode n;
    n.id = static_cast<uint32_t>(model_->system_nodes.size());
    n.name = node.child_value("name");
    const std::string element = node.name();
    n.class_name = element == "machine" ? "machine"
                   : element == "node"  ? "node"
                                        : node.attribute("type").as_string("unit");
    n.parent = parent;
    const Index self = static_cast<Index>(model_->system_nodes.size());
    model_->system_nodes.push_back(n);
    if (parent != kNoIndex) model_->system_nodes[parent].children.push_back(self);
    node_ids_[node.attribute("id").value()] = self;
    for (const pugi::xml_node& child : node.children())
      if (std::string(child.name()) == "unit" || std::string(child.name()) == "node")
        system_node(child, self);
  }

  void space(const pugi::xml_node& space) {
    for (const pugi::xml_node& m : space.child("machines").children("machine"))
      system_node(m, kNoIndex);
    std::map<std::string, std::string> runs_on;
    for (const pugi::xml_node& map : space.child("mappings").children("mapping"))
      for (const pugi::xml_node& r : map.children("runson"))
        runs_on[r.attribute("aref").value()] = r.attribute("mref").value();
    for (const pugi::xml_node& app : space.child("applications").children("application"))
      for (const pugi::xml_node& p : app.children("process")) process(p, runs_on);
    for (const pugi::xml_node& t : space.child("topologies").children("cartesian")) topology(t);
  }

  Index some_node() {
    if (model_->system_nodes.empty()) {
      SystemNode machine;
      machine.name = "machine";
      machine.class_name = "machine";
      model_->system_nodes.push_back(machine);
    }
    return 0;
  }

  void process(const pugi::xml_node& p, const std::map<std::string, std::string>& runs_on) {
    LocationGroup g;
    g.id = static_cast<uint32_t>(model_->groups.size());
    g.name = p.child_value("name");
    if (g.name.empty()) g.name = std::string("process ") + p.attribute("pid").value();
    g.rank = p.attribute("pid").as_llong(static_cast<long long>(g.id));
    if (!p.attribute("type").empty()) g.type = p.attribute("type").value();
    const auto on = runs_on.find(p.attribute("id").value());
    const auto node = on == runs_on.end() ? node_ids_.end() : node_ids_.find(on->second);
    g.node = node == node_ids_.end() ? some_node() : node->second;
    const Index self = static_cast<Index>(model_->groups.size());
    model_->system_nodes[g.node].groups.push_back(self);
    model_->groups.push_back(g);
    group_ids_[p.attribute("id").value()] = self;
    std::vector<pugi::xml_node> threads(p.children("thread").begin(), p.children("thread").end());
    if (threads.empty()) threads.push_back(p);  // a process without threads: one of its own
    for (const pugi::xml_node& t : threads) {
      Location loc;
      loc.id = static_cast<uint32_t>(model_->locations.size());
      loc.name = t == p ? "" : t.child_value("name");
      if (loc.name.empty()) loc.name = std::string("thread ") + t.attribute("tid").value();
      loc.rank = t.attribute("tid").as_llong(0);
      if (!t.attribute("type").empty()) loc.type = t.attribute("type").value();
      loc.group = self;
      model_->groups[self].locations.push_back(static_cast<Index>(model_->locations.size()));
      if (t != p)
        location_ids_[t.attribute("id").value()] = static_cast<Index>(model_->locations.size());
      model_->locations.push_back(loc);
    }
  }

  void topology(const pugi::xml_node& t) {
    Topology topo;
    topo.name = t.child_value("name");
    for (const pugi::xml_node& d : t.children("dim"))
      topo.dims.push_back({d.attribute("name").value(), d.attribute("size").as_llong(0),
                           std::string(d.attribute("periodic").value()) == "true"});
    for (const pugi::xml_node& c : t.children("coord")) {
      const std::string ref = c.attribute("ref").value();
      Topology::Coord coord;
      if (const auto l = location_ids_.find(ref); l != location_ids_.end()) {
        coord.owner_id = model_->locations[l->second].id;
      } else if (const auto g = group_ids_.find(ref); g != group_ids_.end()) {
        coord.owner = Topology::Owner::kGroup;
        coord.owner_id = model_->groups[g->second].id;
      } else {
        continue;  // a coordinate of something else (machines' cpus...): not in a Cube report
      }
      std::istringstream numbers(c.child_value());
      for (long long x; numbers >> x;) coord.coords.push_back(x);
      topo.coords.push_back(coord);
    }
    model_->topologies.push_back(topo);
  }

  // ---- data ----------------------------------------------------------------------------------
  struct Point {
    Index metric = kNoIndex, cnode = kNoIndex, location = kNoIndex;
    bool skipped = false;  // an inclusive twin: its values follow from the exclusive ones
  };

  template <class Map>
  Index lookup(const Map& ids, const pugi::xml_node& d, const char* attribute, const char* what) {
    const std::string id = d.attribute(attribute).value();
    const auto it = ids.find(id);
    if (it == ids.end())
      throw FormatError(where(d) + ": <d " + attribute + "=\"" + id + "\"> names no " + what);
    return it->second;
  }

  Index first_cnode_of(Index region, const pugi::xml_node& d) {
    for (Index c = 0; c < model_->cnodes.size(); ++c)
      if (model_->cnodes[c].region == region) return c;
    throw FormatError(where(d) + ": region '" + d.attribute("code").value() +
                      "' has no call path (<cnode ref=...>) to hold its values");
  }

  Index first_thread_of(Index group, const pugi::xml_node& d) {
    if (model_->groups[group].locations.empty())
      throw FormatError(where(d) + ": process '" + d.attribute("spc").value() +
                        "' has no thread to hold its values");
    return model_->groups[group].locations.front();
  }

  void data(const pugi::xml_node& d, Point p) {
    if (!d.attribute("metric").empty()) {
      const std::string id = d.attribute("metric").value();
      if (ends_with(id, ".incl") && excl_of_.count(id.substr(0, id.size() - 5) + ".excl"))
        p.skipped = true;
      else
        p.metric = lookup(metric_ids_, d, "metric", "metric");
    }
    // A region stands for its first call path, a process for its first thread (the proposal's
    // "reference to non-leaf hierarchy identifiers").
    if (!d.attribute("code").empty()) {
      const std::string id = d.attribute("code").value();
      if (const auto r = region_ids_.find(id); r != region_ids_.end() && !cnode_ids_.count(id))
        p.cnode = first_cnode_of(r->second, d);
      else
        p.cnode = lookup(cnode_ids_, d, "code", "call path or region");
    }
    if (!d.attribute("spc").empty()) {
      const std::string id = d.attribute("spc").value();
      if (const auto g = group_ids_.find(id); g != group_ids_.end() && !location_ids_.count(id))
        p.location = first_thread_of(g->second, d);
      else
        p.location = lookup(location_ids_, d, "spc", "thread or process");
    }
    bool inner = false;
    for (const pugi::xml_node& child : d.children("d")) {
      inner = true;
      data(child, p);
    }
    // A <d> without children and without a value holds nothing (an empty metric, say).
    if (inner || p.skipped ||
        std::string(d.child_value()).find_first_not_of(" \t\r\n") == std::string::npos)
      return;
    if (p.metric == kNoIndex || p.cnode == kNoIndex || p.location == kNoIndex)
      throw FormatError(where(d) +
                        ": a value needs a metric, a call path (code) and a thread (spc)");
    std::vector<uint64_t>& v = values_[p.metric];
    const size_t n = model_->locations.size();
    if (v.empty()) v.assign(model_->cnodes.size() * n, 0);
    // Values of several states (or a region's and its call path's) add up: a report has no
    // state dimension.
    try {
      add_value(model_->metrics[p.metric], v[p.cnode * n + model_->locations[p.location].id], d);
    } catch (const std::logic_error&) {
      throw FormatError(where(d) + ": '" + d.child_value() + "' is not a number");
    }
  }

  std::string path_;
  pugi::xml_document doc_;
  std::shared_ptr<Model> model_ = std::make_shared<Model>();
  std::map<std::string, Index> metric_ids_, excl_of_, region_ids_, cnode_ids_, node_ids_,
      group_ids_, location_ids_;
  std::map<Index, std::string> cnode_state_;
  std::vector<std::vector<uint64_t>> values_;  // per metric: cnodes × locations (lanes)
};

}  // namespace

void import_peri_xml(const std::string& xml_path, const std::string& cubex_path) {
  PeriReader reader(xml_path);
  reader.read();
  reader.write(cubex_path);
}

}  // namespace cubekit
