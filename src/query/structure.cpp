#include "cubekit/structure.hpp"

#include <algorithm>
#include <map>

#include "cubekit/value_text.hpp"
#include "format/xml_escape.hpp"

namespace cubekit {
namespace {

using format::xml_escape;

constexpr const char* kSections[] = {"attributes", "mirrors",    "metrics", "calltree",
                                     "systemtree", "topologies", "files"};

// Tree drawing: marks[i] says whether the entity at depth i on the current path still has
// later siblings (depth 0 never draws a bar).
std::string tree_indent(const std::vector<bool>& marks, size_t depth) {
  std::string s;
  for (size_t i = 0; i < depth; ++i) s += std::string(marks[i] ? "|" : "") + "  ";
  return s;
}

std::map<std::string, std::string> sorted(const Attributes& attrs) {
  return {attrs.begin(), attrs.end()};
}

void print_attributes(std::ostream& out, const Model& model) {
  out << " =============== CUBE ATTRIBUTES ============= \n";
  auto attrs = sorted(model.attrs);
  // CubeLib records the syntax version among the attributes when it reads a report.
  const bool cube3 = model.version == "3.0";
  attrs.insert_or_assign(
      cube3 ? "Cube syntax version" : "Cube anchor.xml syntax version",
      // CubeLib keeps the version as a number: "4.0" shows as "4".
      cube3 ? std::string(1, '3') : format_double(std::strtod(model.version.c_str(), nullptr)));
  size_t width = 0;
  for (const auto& [k, v] : attrs) width = std::max(width, k.size());
  for (const auto& [k, v] : attrs)
    out << k << std::string(width + 1 - k.size(), ' ') << ": " << v << "\n";
}

void print_mirrors(std::ostream& out, const Model& model) {
  out << " =============== CUBE MIRRORS ============= \n";
  for (size_t i = 0; i < model.mirrors.size(); ++i)
    out << "Mirror " << i + 1 << " : " << model.mirrors[i] << "\n";
}

void print_metric(std::ostream& out, const Model& model, Index m, std::vector<bool>& marks,
                  size_t depth) {
  const Metric& metric = model.metrics[m];
  const std::string prefix = depth > 0 ? tree_indent(marks, depth) + "|-" : "";
  out << prefix << metric.disp_name << "  ( id=" << metric.id << ", " << metric.uniq_name << ", "
      << metric.uom << ", " << metric.dtype_text.substr(0, metric.dtype_text.find('(')) << ", "
      << metric.url << ", " << metric.descr << ", "
      << metric_kind_name(metric.kind == MetricKind::kSimple ? MetricKind::kInclusive
                                                             : metric.kind);
  if (is_derived(metric.kind)) {
    out << ", \"" << metric.expression << "\", \"" << metric.init_expression << "\"";
    if (metric.kind != MetricKind::kPostDerived) out << ", \"" << metric.aggr_plus << "\"";
    if (metric.kind == MetricKind::kPrederivedInclusive) out << ", \"" << metric.aggr_minus << "\"";
    out << ", \"" << metric.aggr_aggr << "\", ";
  }
  out << (metric.convertible ? " convertible" : " non convertible") << ", "
      << (metric.cacheable ? "cacheable" : "non cacheable") << ")\n";
  for (const auto& [k, v] : sorted(metric.attrs))
    out << prefix << "  Attribute: \"" << xml_escape(k) << "\"->\"" << xml_escape(v) << "\"\n";
  const auto& kids = metric.children;
  for (size_t i = 0; i < kids.size(); ++i) {
    if (marks.size() <= depth + 1) marks.resize(depth + 2);
    marks[depth + 1] = i + 1 < kids.size();
    print_metric(out, model, kids[i], marks, depth + 1);
  }
}

void print_metrics(std::ostream& out, const Model& model, bool ghosts) {
  out << " =============== METRIC DIMENSION ============= \n";
  std::vector<bool> marks;
  for (Index r : model.metric_roots())
    if (!model.metrics[r].ghost) print_metric(out, model, r, marks, 0);
  if (!ghosts) return;
  out << " =============== GHOST METRICS ============= \n";
  for (Index r : model.metric_roots())
    if (model.metrics[r].ghost) print_metric(out, model, r, marks, 0);
}

void print_regions(std::ostream& out, const Model& model) {
  out << " -------------------------- LIST OF REGIONS --------------------------\n";
  std::vector<Index> order(model.regions.size());
  for (Index i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return model.regions[a].id < model.regions[b].id; });
  for (Index i : order) {
    const Region& r = model.regions[i];
    out << "\t" << r.name << ":" << r.mangled_name << "\t   ( id=" << r.id << ", " << r.begin
        << ", " << r.end << ", paradigm=" << r.paradigm << ", role=" << r.role << ", url=" << r.url
        << ", descr=" << r.descr << ", mod=" << r.mod << ")\n";
    for (const auto& [k, v] : sorted(r.attrs))
      out << "\t\t   Attribute: \"" << xml_escape(k) << "\"->\"" << xml_escape(v) << "\"\n";
  }
}

// One call path's lines (the children follow, printed by print_calltree).
void print_cnode(std::ostream& out, const Model& model, Index c, const std::vector<bool>& marks,
                 size_t depth) {
  const Cnode& cnode = model.cnodes[c];
  const Region& r = model.regions[cnode.region];
  const std::string indent = depth > 0 ? tree_indent(marks, depth) : "";
  const std::string prefix = depth > 0 ? indent + "|-" : "";
  out << prefix << r.name << "  [ ( id=" << cnode.id << ",   mod=" << cnode.mod << "), " << r.begin
      << ", " << r.end << ", paradigm=" << r.paradigm << ", role=" << r.role << ", url=" << r.url
      << ", descr=" << r.descr << ", mode=" << r.mod << "]\n";
  const std::string detail = depth > 0 ? indent + "|" : "";
  for (const auto& [k, v] : sorted(cnode.attrs))
    out << detail << "     Attribute: \"" << xml_escape(k) << "\"->\"" << xml_escape(v) << "\"\n";
  for (const Parameter& p : cnode.parameters) {
    if (p.type == "numeric")
      out << detail << "     Parameter (num): \"" << p.key << "\"->\""
          << format_double(std::strtod(p.value.c_str(), nullptr)) << "\"\n";
    else if (p.type == "string")
      out << detail << "     Parameter (str): \"" << p.key << "\"->\"" << p.value << "\"\n";
  }
}

void print_calltree(std::ostream& out, const Model& model) {
  out << " =============== CALLTREE DIMENSION ============= \n";
  print_regions(out, model);
  out << " -------------------------- CALL TREE --------------------------------\n";
  // Depth first with an explicit stack: call trees can be far deeper than the thread's stack
  // allows recursion (model.hpp, kMaxTreeNesting).
  struct Visit {
    Index cnode;
    size_t depth;
    bool more_siblings;
  };
  std::vector<bool> marks;
  std::vector<Visit> stack;
  const auto roots = model.cnode_roots();
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, 0, false});
  while (!stack.empty()) {
    const Visit v = stack.back();
    stack.pop_back();
    if (marks.size() <= v.depth) marks.resize(v.depth + 1);
    if (v.depth > 0) marks[v.depth] = v.more_siblings;
    print_cnode(out, model, v.cnode, marks, v.depth);
    const auto& kids = model.cnodes[v.cnode].children;
    for (size_t i = kids.size(); i-- > 0;)
      stack.push_back({kids[i], v.depth + 1, i + 1 < kids.size()});
  }
}

// Indentation of a system tree entity at `depth` (marks from depth 1 on; an entity's own mark
// only matters for its descendants).
std::string system_indent(const std::vector<bool>& marks, size_t depth) {
  std::string s;
  for (size_t i = 0; i < depth; ++i) s += std::string(i > 0 && marks[i] ? "|" : "") + "  ";
  return s;
}

void print_attr_lines(std::ostream& out, const std::string& lead, const Attributes& attrs) {
  for (const auto& [k, v] : sorted(attrs))
    out << lead << "Attribute: \"" << xml_escape(k) << "\"->\"" << xml_escape(v) << "\"\n";
}

void print_system_node(std::ostream& out, const Model& model, Index n, std::vector<bool>& marks,
                       size_t depth) {
  const SystemNode& node = model.system_nodes[n];
  if (marks.size() <= depth + 2) marks.resize(depth + 3);
  const std::string s = system_indent(marks, depth);
  out << s << (depth > 0 ? "|-" : "") << node.name << " (id=" << n << ", class=" << node.class_name
      << ", description=" << node.descr << " )\n";
  print_attr_lines(out, s + "|       ", node.attrs);
  for (size_t gi = 0; gi < node.groups.size(); ++gi) {
    const Index g = node.groups[gi];
    const LocationGroup& group = model.groups[g];
    marks[depth + 1] = gi + 1 < node.groups.size();
    const std::string gs = system_indent(marks, depth + 1);
    out << gs << "|-" << group.name << " (id=" << g << ", type=" << group.type
        << ", rank=" << group.rank << " )\n";
    print_attr_lines(out, gs + "|       ", group.attrs);
    const std::string ls = system_indent(marks, depth + 2);
    for (Index l : group.locations) {
      const Location& loc = model.locations[l];
      out << ls << "|-" << loc.name << " (id=" << loc.id << ", type=" << loc.type
          << ", rank=" << loc.rank << ")\n";
      print_attr_lines(out, ls + "|      ", loc.attrs);
    }
  }
  for (size_t ci = 0; ci < node.children.size(); ++ci) {
    marks[depth + 1] = ci + 1 < node.children.size();
    print_system_node(out, model, node.children[ci], marks, depth + 1);
  }
}

void print_system(std::ostream& out, const Model& model) {
  out << " =============== SYSTEM DIMENSION ============= \n";
  std::vector<bool> marks;
  for (Index r : model.system_roots()) print_system_node(out, model, r, marks, 0);
}

void print_topologies(std::ostream& out, const Model& model, bool coordinates) {
  out << " =============== TOPOLOGIES ============= \n";
  for (const Topology& t : model.topologies) {
    out << "--------------------------------------------------\n";
    out << "Topology name: " << t.name << "\n";
    out << "Number of dimensions: " << t.dims.size() << "\n";
    bool named = false;
    for (const auto& d : t.dims) named = named || !d.name.empty();
    for (size_t i = 0; i < t.dims.size(); ++i) {
      out << "Dimension " << i << ": " << t.dims[i].size << "\t\t"
          << (t.dims[i].periodic ? "periodic" : "non periodic");
      if (named) out << "\t" << t.dims[i].name;
      out << "\n";
    }
    out << "\n";
    if (!coordinates) continue;
    out << "Coordinates mapping:\n";
    for (const Topology::Coord& c : t.coords) {
      std::string name;
      if (c.owner == Topology::Owner::kLocation) {
        for (const Location& l : model.locations)
          if (l.id == c.owner_id) name = l.name;
      } else if (c.owner == Topology::Owner::kGroup && c.owner_id < model.groups.size()) {
        name = model.groups[c.owner_id].name;
      } else if (c.owner_id < model.system_nodes.size()) {
        name = model.system_nodes[c.owner_id].name;
      }
      out << name << " " << c.owner_id << "\t\t -> ";
      for (int64_t x : t.values_of(c)) out << x << " ";
      out << "\n";
    }
  }
}

// CubeLib reads the member's id as a number from the start of its name, so every ghost_N member
// is labelled with the metric of id 0, ghost or not (its cube_dump -w shows it).
std::string metric_of_member(const Model& model, const std::string& name, size_t suffix) {
  const std::string stem = name.substr(0, name.size() - suffix);
  const long id = std::strtol(stem.c_str(), nullptr, 10);
  for (const Metric& m : model.metrics)
    if (static_cast<long>(m.id) == id) return "\"" + m.uniq_name + "\"";
  return "";
}

void print_files(std::ostream& out, const Report& report, const std::string& show_file) {
  out << " =============== FILES ============= \n";
  if (!show_file.empty()) {
    if (const auto content = report.member_content(show_file)) {
      out << " =============== Content of the file \"" << show_file << "\" : \n"
          << *content << "\n =============== End of content of the file \"" << show_file
          << "\" : \n";
      return;
    }
  }
  std::vector<MemberInfo> members = report.members();
  std::sort(members.begin(), members.end(),
            [](const MemberInfo& a, const MemberInfo& b) { return a.name < b.name; });
  for (size_t i = 0; i < members.size(); ++i) {
    const std::string& n = members[i].name;
    out << "File " << i + 1 << ": " << n;
    auto ends = [&](std::string_view s) {
      return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
    };
    if (ends("anchor.xml"))
      out << " ( Meta data of the cube report )";
    else if (ends(".data"))
      out << " ( Stored content of the metric " << metric_of_member(report.model(), n, 5) << " )";
    else if (ends(".index"))
      out << " ( Stored index for data of the metric " << metric_of_member(report.model(), n, 6)
          << " )";
    out << "\n";
  }
}

}  // namespace

bool is_structure_section(const std::string& name) {
  return std::find(std::begin(kSections), std::end(kSections), name) != std::end(kSections);
}

void print_structure(std::ostream& out, const Report& report, const StructureOptions& options) {
  const Model& model = report.model();
  const bool all = options.sections.empty();
  const std::vector<std::string> sections =
      all ? std::vector<std::string>(std::begin(kSections), std::end(kSections)) : options.sections;
  for (const std::string& s : sections) {
    if (all) out << "\n\n";
    if (s == "attributes") print_attributes(out, model);
    if (s == "mirrors") print_mirrors(out, model);
    if (s == "metrics") print_metrics(out, model, options.ghosts);
    if (s == "calltree") print_calltree(out, model);
    if (s == "systemtree") print_system(out, model);
    if (s == "topologies") print_topologies(out, model, options.coordinates);
    if (s == "files") print_files(out, report, options.show_file);
  }
}

}  // namespace cubekit
