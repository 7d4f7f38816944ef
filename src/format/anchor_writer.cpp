// anchor.xml in the restricted dialect CubeLib's hand-written scanner accepts
// (cube-format.md §3.1, §9.5): literal declaration and root tag, no self-closing text
// elements, the five entities only, child elements in CubeW's order.
#include "format/anchor_writer.hpp"

#include <algorithm>

#include <sstream>

#include "core/tree_walk.hpp"
#include "format/xml_escape.hpp"

namespace cubekit::format {
namespace {

class AnchorWriter {
 public:
  explicit AnchorWriter(const Model& m) : m_(m) {}
  std::string write();

 private:
  void element(const char* tag, std::string_view text) {
    out_ << '<' << tag << '>' << xml_escape(text) << "</" << tag << ">\n";
  }
  void attrs(const Attributes& a) {
    for (const auto& [k, v] : a)
      out_ << "<attr key=\"" << xml_escape(k) << "\" value=\"" << xml_escape(v) << "\"/>\n";
  }
  void metric(Index i);
  void region(const Region& r);
  void cnode(Index i);
  void system_node(Index i);
  void topologies();
  const Model& m_;
  std::ostringstream out_;
};

std::string AnchorWriter::write() {
  // CubeLib 4.6 accepts 4.0 to 4.5; keep what was read, write 4.4 otherwise (CubeW's number).
  const bool keep = m_.version.size() == 3 && m_.version.rfind("4.", 0) == 0 &&
                    m_.version[2] >= '0' && m_.version[2] <= '5';
  out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\""
       << (keep ? m_.version : "4.4") << "\">\n";
  attrs(m_.attrs);
  out_ << "<doc>\n<mirrors>\n";
  for (const std::string& u : m_.mirrors) element("murl", u);
  out_ << "</mirrors>\n</doc>\n<metrics";
  if (!m_.metrics_title.empty()) out_ << " title=\"" << xml_escape(m_.metrics_title) << '"';
  out_ << ">\n";
  // CubeLib's writer puts ghost metrics after all the others, and its reader relies on it: with
  // a ghost root before another root its cube_dump -m all crashes.
  for (bool ghosts : {false, true})
    for (Index r : m_.metric_roots())
      if (m_.metrics[r].ghost == ghosts) metric(r);
  out_ << "</metrics>\n<program";
  if (!m_.program_title.empty()) out_ << " title=\"" << xml_escape(m_.program_title) << '"';
  out_ << ">\n";
  for (const Region& r : m_.regions) region(r);
  for (Index c : m_.cnode_roots()) cnode(c);
  out_ << "</program>\n<system";
  if (!m_.system_title.empty()) out_ << " title=\"" << xml_escape(m_.system_title) << '"';
  out_ << ">\n";
  for (Index s : m_.system_roots()) system_node(s);
  topologies();
  out_ << "</system>\n</cube>\n";
  return out_.str();
}

void AnchorWriter::metric(Index i) {
  const Metric& x = m_.metrics[i];
  // Left out with all below it (Model::anchor_omitted_metric_ids).
  if (std::find(m_.anchor_omitted_metric_ids.begin(), m_.anchor_omitted_metric_ids.end(), x.id) !=
      m_.anchor_omitted_metric_ids.end())
    return;
  out_ << "<metric id=\"" << x.id << "\" type=\"" << metric_kind_name(x.kind) << '"';
  if (x.ghost) out_ << " viztype=\"GHOST\"";
  if (!x.convertible) out_ << " convertible=\"false\"";
  if (!x.cacheable) out_ << " cacheable=\"false\"";
  out_ << ">\n";
  out_ << metric_description_xml(x);
  if (is_derived(x.kind)) {
    // Bare attribute values: CubeLib's scanner expects them so (cube-format.md §3.6.4).
    out_ << (x.rowwise ? "<cubepl>" : "<cubepl rowwise=false>") << xml_escape(x.expression)
         << "</cubepl>\n";
    if (!x.init_expression.empty()) element("cubeplinit", x.init_expression);
    const std::pair<const char*, const std::string*> aggr[] = {
        {"plus", &x.aggr_plus}, {"minus", &x.aggr_minus}, {"aggr", &x.aggr_aggr}};
    for (const auto& [kind, text] : aggr)
      if (!text->empty())
        out_ << "<cubeplaggr cubeplaggrtype=" << kind << '>' << xml_escape(*text)
             << "</cubeplaggr>\n";
  }
  attrs(x.attrs);
  for (Index k : x.children) metric(k);
  out_ << "</metric>\n";
}

void AnchorWriter::region(const Region& r) {
  out_ << "<region id=\"" << r.id << "\" mod=\"" << xml_escape(r.mod) << "\" begin=\"" << r.begin
       << "\" end=\"" << r.end << "\">\n";
  element("name", r.name);
  element("mangled_name", r.mangled_name);
  element("paradigm", r.paradigm);
  element("role", r.role);
  element("url", r.url);
  element("descr", r.descr);
  attrs(r.attrs);
  out_ << "</region>\n";
}

void AnchorWriter::cnode(Index root) {
  auto open = [&](Index i) {
    const Cnode& c = m_.cnodes[i];
    out_ << "<cnode id=\"" << c.id << "\" calleeId=\"" << m_.regions[c.region].id << '"';
    if (c.line != -1) out_ << " line=\"" << c.line << '"';
    if (!c.mod.empty()) out_ << " mod=\"" << xml_escape(c.mod) << '"';
    out_ << ">\n";
    for (const Parameter& p : c.parameters)
      out_ << "<parameter partype=\"" << xml_escape(p.type) << "\" parkey=\"" << xml_escape(p.key)
           << "\" parvalue=\"" << xml_escape(p.value) << "\"/>\n";
    attrs(c.attrs);
  };
  core::walk_nested(m_, root, open, [&](Index) { out_ << "</cnode>\n"; });
}

void AnchorWriter::system_node(Index i) {
  const SystemNode& s = m_.system_nodes[i];
  out_ << "<systemtreenode Id=\"" << i << "\">\n";
  element("name", s.name);
  element("class", s.class_name);
  if (!s.descr.empty()) element("descr", s.descr);
  attrs(s.attrs);
  for (Index g : s.groups) {
    const LocationGroup& lg = m_.groups[g];
    out_ << "<locationgroup Id=\"" << g << "\">\n";
    element("name", lg.name);
    element("rank", std::to_string(lg.rank));
    element("type", lg.type);
    attrs(lg.attrs);
    for (Index l : lg.locations) {
      const Location& loc = m_.locations[l];
      out_ << "<location Id=\"" << loc.id << "\">\n";
      element("name", loc.name);
      element("rank", std::to_string(loc.rank));
      element("type", loc.type);
      attrs(loc.attrs);
      out_ << "</location>\n";
    }
    out_ << "</locationgroup>\n";
  }
  for (Index k : s.children) system_node(k);
  out_ << "</systemtreenode>\n";
}

void AnchorWriter::topologies() {
  out_ << "<topologies>\n";
  for (const Topology& t : m_.topologies) {
    out_ << "<cart";
    if (!t.name.empty()) out_ << " name=\"" << xml_escape(t.name) << '"';
    out_ << " ndims=\"" << t.dims.size() << "\">\n";
    for (const auto& d : t.dims) {
      out_ << "<dim";
      if (!d.name.empty()) out_ << " name=\"" << xml_escape(d.name) << '"';
      out_ << " size=\"" << d.size << "\" periodic=\"" << (d.periodic ? "true" : "false")
           << "\"/>\n";
    }
    for (const auto& c : t.coords) {
      const char* owner = c.owner == Topology::Owner::kLocation ? "locId"
                          : c.owner == Topology::Owner::kGroup  ? "lgId"
                                                                : "stnId";
      out_ << "<coord " << owner << "=\"" << c.owner_id << "\">";
      const std::span<const int64_t> values = t.values_of(c);
      for (size_t k = 0; k < values.size(); ++k) out_ << (k ? " " : "") << values[k];
      out_ << "</coord>\n";
    }
    out_ << "</cart>\n";
  }
  out_ << "</topologies>\n";
}

}  // namespace

std::string anchor_xml(const Model& model) {
  return AnchorWriter(model).write();
}

std::string metric_description_xml(const Metric& x) {
  std::string out;
  auto element = [&](const char* tag, std::string_view text) {
    out += std::string("<") + tag + '>' + xml_escape(text) + "</" + tag + ">\n";
  };
  element("disp_name", x.disp_name);
  element("uniq_name", x.uniq_name);
  element("dtype", x.dtype_text.empty() ? x.dtype.dtype_text() : x.dtype_text);
  element("uom", x.uom);
  if (!x.val.empty()) element("val", x.val);
  element("url", x.url);
  element("descr", x.descr);
  return out;
}

}  // namespace cubekit::format
