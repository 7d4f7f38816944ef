// PERI-XML's dimensions into a Model (peri_dimensions.hpp): one function per element kind.
#include "io/peri_dimensions.hpp"

#include <charconv>
#include <map>
#include <sstream>
#include <unordered_set>

#include "cubekit/error.hpp"
#include "format/anchor.hpp"

namespace cubekit::io::peri {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

namespace {

class DimensionReader {
 public:
  explicit DimensionReader(const Where& where) : where_(where) {}

  Dimensions read(const pugi::xml_node& root, const std::string& path) {
    metrics(root.child("metrics"));
    code(root.child("code"));
    states(root.child("states"));
    space(root.child("space"));
    model_->finalize(path);
    Ids ids{std::move(metric_ids_),   std::move(twin_excl_),     std::move(region_ids_),
            std::move(cnode_ids_),    std::move(node_ids_),      std::move(group_ids_),
            std::move(location_ids_), std::move(location_keys_), {}};
    ids.location_keys.resize(model_->locations.size());
    ids.first_cnode_of_region.assign(model_->regions.size(), kNoIndex);
    for (Index c = model_->cnodes.size(); c-- > 0;)
      ids.first_cnode_of_region[model_->cnodes[c].region] = c;
    return {model_, std::move(ids)};
  }

 private:
  std::string where(const pugi::xml_node& node) const { return where_(node); }

  // ---- metrics -------------------------------------------------------------------------------
  void metrics(const pugi::xml_node& list) {
    for (const pugi::xml_node& m : list.children("metric")) metric(m, kNoIndex, 1);
  }

  void metric(const pugi::xml_node& node, Index parent, int depth) {
    const std::string id = node.attribute("id").value();
    if (depth > kMaxTreeNesting)
      throw FormatError(where(node) + ": metrics nested deeper than " +
                        std::to_string(kMaxTreeNesting));
    // write_peri_xml's inclusive twin: the exclusive one carries the values that are stored.
    if (ends_with(id, ".incl")) {
      const std::string base = id.substr(0, id.size() - 5);
      if (node.root().find_node([&](const pugi::xml_node& n) {
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
    if (ends_with(id, ".excl")) twin_excl_[id.substr(0, id.size() - 5) + ".incl"] = self;
    for (const pugi::xml_node& child : node.children("metric")) metric(child, self, depth + 1);
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
    adopt_written_ids(region_ids_, 'r', model_->regions);
    adopt_written_ids(cnode_ids_, 'c', model_->cnodes);
  }

  // cubekit's export names regions r<id> and call paths c<id> after their ids in the report.
  // Those ids come back, so a round trip keeps each call path's id even where the ids are not
  // in pre-order (the import numbers in document order otherwise, which then gives an id to
  // another call path). Documents with other ids, or with one id twice, keep document order.
  template <class Item>
  static void adopt_written_ids(const IdMap& ids, char prefix, std::vector<Item>& items) {
    if (ids.size() != items.size()) return;  // an id written twice: not ours
    std::vector<uint32_t> written(items.size());
    std::unordered_set<uint32_t> seen;
    for (const auto& [text, index] : ids) {
      if (text.size() < 2 || text[0] != prefix) return;
      const std::string_view digits = std::string_view(text).substr(1);
      uint32_t id = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
      if (ec != std::errc() || end != digits.data() + digits.size() || !seen.insert(id).second)
        return;
      written[index] = id;
    }
    for (size_t i = 0; i < items.size(); ++i) items[i].id = written[i];
  }

  // The call tree in pre-order, with an explicit stack: call trees may be deep (model.hpp).
  void cnode(const pugi::xml_node& top, Index top_parent) {
    std::vector<std::pair<pugi::xml_node, Index>> pending{{top, top_parent}};
    std::vector<pugi::xml_node> children;
    while (!pending.empty()) {
      const auto [node, parent] = pending.back();
      pending.pop_back();
      const auto region = region_ids_.find(std::string_view(node.attribute("ref").value()));
      if (region == region_ids_.end())
        throw FormatError(where(node) + ": cnode '" + node.attribute("id").value() +
                          "' refers to the undefined region '" + node.attribute("ref").value() +
                          "'");
      Cnode c;
      c.id = static_cast<uint32_t>(model_->cnodes.size());
      c.region = region->second;
      c.parent = parent;
      const Index self = static_cast<Index>(model_->cnodes.size());
      model_->cnodes.push_back(c);
      if (parent != kNoIndex) model_->cnodes[parent].children.push_back(self);
      cnode_ids_[node.attribute("id").value()] = self;
      if (!node.attribute("state").empty()) cnode_state_[self] = node.attribute("state").value();
      children.assign(node.children("cnode").begin(), node.children("cnode").end());
      for (auto child = children.rbegin(); child != children.rend(); ++child)
        pending.emplace_back(*child, self);
    }
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
  void system_node(const pugi::xml_node& node, Index parent, int depth) {
    if (depth > kMaxTreeNesting)
      throw FormatError(where(node) + ": system tree nested deeper than " +
                        std::to_string(kMaxTreeNesting));
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
        system_node(child, self, depth + 1);
  }

  void space(const pugi::xml_node& space) {
    for (const pugi::xml_node& m : space.child("machines").children("machine"))
      system_node(m, kNoIndex, 1);
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
      if (t != p) {
        location_ids_[t.attribute("id").value()] = static_cast<Index>(model_->locations.size());
        location_keys_.resize(model_->locations.size() + 1);
        location_keys_.back() = t.attribute("id").value();
      }
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
      Topology::Owner owner = Topology::Owner::kLocation;
      uint32_t owner_id = 0;
      if (const auto l = location_ids_.find(ref); l != location_ids_.end()) {
        owner_id = model_->locations[l->second].id;
      } else if (const auto g = group_ids_.find(ref); g != group_ids_.end()) {
        owner = Topology::Owner::kGroup;
        owner_id = model_->groups[g->second].id;
      } else {
        continue;  // a coordinate of something else (machines' cpus...): not in a Cube report
      }
      std::istringstream numbers(c.child_value());
      std::vector<int64_t> values;
      for (long long x; numbers >> x;) values.push_back(x);
      topo.add_coord(owner, owner_id, values);
    }
    model_->topologies.push_back(topo);
  }

  const Where& where_;
  std::shared_ptr<Model> model_ = std::make_shared<Model>();
  IdMap metric_ids_, twin_excl_, region_ids_, cnode_ids_, node_ids_, group_ids_, location_ids_;
  std::vector<std::string> location_keys_;  // the ids of location_ids_, by location
  std::map<Index, std::string> cnode_state_;
};

}  // namespace

Dimensions read_dimensions(const pugi::xml_node& root, const std::string& path,
                           const Where& where) {
  return DimensionReader(where).read(root, path);
}

}  // namespace cubekit::io::peri
