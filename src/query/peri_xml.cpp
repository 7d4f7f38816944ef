// PERI-XML export (peri_xml.hpp): the definitions as the proposal's dimensions, then the values
// streamed metric by metric, call path by call path.
#include "cubekit/peri_xml.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "format/xml_escape.hpp"

namespace cubekit {
namespace {

using format::xml_escape;

bool is_signed_integer(TypeKind k) {
  return k == TypeKind::kInt8 || k == TypeKind::kInt16 || k == TypeKind::kInt32 ||
         k == TypeKind::kInt64;
}

const char* peri_type(const Metric& m) {
  return m.dtype.is_integer() ? "int" : "float";
}

class PeriWriter {
 public:
  PeriWriter(MetricEngine& engine, std::ostream& out)
      : engine_(engine), model_(engine.report().model()), out_(out) {}

  // What the document cannot hold: metrics whose values are not one number each.
  std::vector<std::string> left_out;

  void write() {
    for (const Metric& x : model_.metrics)
      if (!x.ghost && !x.is_void && !holds_numbers(x))
        left_out.push_back(x.uniq_name + " (" + x.dtype_text + ")");
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<peri generator=\"cubekit\">\n";
    metrics();
    code();
    space();
    data();
    out_ << "</peri>\n";
  }

 private:
  // ---- <metrics> -----------------------------------------------------------------------------
  // PERI-XML's values are numbers: a value of these types is one (RATE as the ratio CubeLib
  // shows). A SCALE_FUNC's number would be CubeLib's sorting key, not its value, and tuples and
  // histograms have several.
  static bool holds_numbers(const Metric& x) {
    return x.dtype.is_single_number() || x.dtype.kind() == TypeKind::kRate;
  }

  // A metric left out lends its place in the tree to its sub-metrics.
  void metric(Index m, const char* flavour, int depth) {
    const Metric& x = model_.metrics[m];
    if (!holds_numbers(x)) {
      for (Index child : x.children)
        if (!model_.metrics[child].ghost) metric(child, flavour, depth);
      return;
    }
    const std::string pad(2 * depth, ' ');
    out_ << pad << "<metric id=\"" << x.id << '.' << flavour << "\" units=\"" << xml_escape(x.uom)
         << "\" type=\"" << peri_type(x) << "\" name=\"" << xml_escape(x.disp_name) << " ("
         << flavour << ")\" cube_uniq_name=\"" << xml_escape(x.uniq_name) << "\" cube_dtype=\""
         << xml_escape(x.dtype_text) << "\">\n"
         << pad << "  <desc>" << xml_escape(x.descr) << "</desc>\n";
    if (is_derived(x.kind))
      out_ << pad << "  <derived language=\"CubePL\">" << xml_escape(x.expression)
           << "</derived>\n";
    for (Index child : x.children)
      if (!model_.metrics[child].ghost) metric(child, flavour, depth + 1);
    out_ << pad << "</metric>\n";
  }

  void metrics() {
    out_ << "<metrics>\n";
    for (const char* flavour : {"incl", "excl"})
      for (Index root : model_.metric_roots())
        if (!model_.metrics[root].ghost) metric(root, flavour, 1);
    out_ << "</metrics>\n";
  }

  // ---- <code> --------------------------------------------------------------------------------
  // Depth first with a stack of its own: a recursive program's call tree can be deeper than
  // the thread's stack. Call paths below kMostIndentedLevel are indented as deep as it: the
  // document stays linear in the call paths (a chain of 100,000 took 20 GB indented in full).
  static constexpr size_t kMostIndentedLevel = 64;
  void cnodes(Index root) {
    struct Step {
      Index cnode;
      size_t depth;
      bool close;  // the end tag of a call path whose callees are written
    };
    std::vector<Step> steps{{root, 1, false}};
    while (!steps.empty()) {
      const Step step = steps.back();
      steps.pop_back();
      const Cnode& x = model_.cnodes[step.cnode];
      const std::string pad(2 * std::min(step.depth, kMostIndentedLevel), ' ');
      if (step.close) {
        out_ << pad << "</cnode>\n";
        continue;
      }
      out_ << pad << "<cnode id=\"c" << x.id << "\" ref=\"r" << model_.regions[x.region].id << '"';
      if (!x.parameters.empty()) out_ << " state=\"s" << x.id << '"';
      if (x.children.empty()) {
        out_ << "/>\n";
        continue;
      }
      out_ << ">\n";
      steps.push_back({step.cnode, step.depth, true});
      for (auto it = x.children.rbegin(); it != x.children.rend(); ++it)
        steps.push_back({*it, step.depth + 1, false});
    }
  }

  void code() {
    std::map<std::string, size_t> sources;
    for (const Region& r : model_.regions)
      if (!r.mod.empty()) sources.emplace(r.mod, sources.size());
    out_ << "<code>\n<sources>\n";
    for (const auto& [file, n] : sources)
      out_ << "  <source id=\"src" << n << "\" type=\"code\"><name>" << xml_escape(file)
           << "</name></source>\n";
    out_ << "</sources>\n<programs>\n<program id=\"prg0\">\n<regions>\n";
    for (const Region& r : model_.regions) {
      out_ << "  <region id=\"r" << r.id << "\" type=\"" << xml_escape(r.role) << "\"><name>"
           << xml_escape(r.name) << "</name>";
      if (!r.mod.empty())
        out_ << "<src ref=\"src" << sources[r.mod] << "\"><line first=\"" << r.begin << "\" last=\""
             << r.end << "\"/></src>";
      out_ << "</region>\n";
    }
    out_ << "</regions>\n<cnodes>\n";
    for (Index root : model_.cnode_roots()) cnodes(root);
    out_ << "</cnodes>\n</program>\n</programs>\n</code>\n";
    states();
  }

  // Call-path parameters (parameter profiles): one state per call path that has them.
  void states() {
    out_ << "<states>\n";
    for (const Cnode& c : model_.cnodes) {
      if (c.parameters.empty()) continue;
      out_ << "  <state id=\"s" << c.id << "\">";
      for (const Parameter& p : c.parameters)
        out_ << "<p nm=\"" << xml_escape(p.key) << "\" type=\"" << xml_escape(p.type) << "\">"
             << xml_escape(p.value) << "</p>";
      out_ << "</state>\n";
    }
    out_ << "</states>\n";
  }

  // ---- <space> -------------------------------------------------------------------------------
  void system_node(Index n, int depth) {
    const SystemNode& x = model_.system_nodes[n];
    const std::string pad(2 * depth, ' ');
    const bool machine = depth == 1;
    const char* element = machine ? "machine" : x.class_name == "node" ? "node" : "unit";
    out_ << pad << '<' << element << " id=\"n" << x.id << '"';
    if (!machine && std::string(element) == "unit")
      out_ << " type=\"" << xml_escape(x.class_name) << '"';
    out_ << "><name>" << xml_escape(x.name) << "</name>\n";
    for (Index child : x.children) system_node(child, depth + 1);
    out_ << pad << "</" << element << ">\n";
  }

  void space() {
    out_ << "<space>\n<machines>\n";
    for (Index root : model_.system_roots()) system_node(root, 1);
    out_ << "</machines>\n<applications>\n<application id=\"app0\">\n";
    for (const LocationGroup& g : model_.groups) {
      out_ << "  <process id=\"p" << g.id << "\" pid=\"" << g.rank << "\" type=\""
           << xml_escape(g.type) << "\"><name>" << xml_escape(g.name) << "</name>\n";
      for (Index l : g.locations) {
        const Location& loc = model_.locations[l];
        out_ << "    <thread id=\"t" << loc.id << "\" tid=\"" << loc.rank << "\" type=\""
             << xml_escape(loc.type) << "\"><name>" << xml_escape(loc.name) << "</name></thread>\n";
      }
      out_ << "  </process>\n";
    }
    out_ << "</application>\n</applications>\n<mappings>\n<mapping id=\"map0\">\n";
    for (const LocationGroup& g : model_.groups)
      if (g.node != kNoIndex)
        out_ << "  <runson aref=\"p" << g.id << "\" mref=\"n" << model_.system_nodes[g.node].id
             << "\"/>\n";
    out_ << "</mapping>\n</mappings>\n<topologies>\n";
    for (size_t t = 0; t < model_.topologies.size(); ++t) topology(model_.topologies[t], t);
    out_ << "</topologies>\n</space>\n";
  }

  void topology(const Topology& t, size_t n) {
    out_ << "  <cartesian id=\"topo" << n << "\" ndims=\"" << t.dims.size() << "\"><name>"
         << xml_escape(t.name) << "</name>\n";
    for (const Topology::Dim& d : t.dims)
      out_ << "    <dim size=\"" << d.size << "\" periodic=\"" << (d.periodic ? "true" : "false")
           << "\" name=\"" << xml_escape(d.name) << "\"/>\n";
    for (const Topology::Coord& c : t.coords) {
      const char prefix = c.owner == Topology::Owner::kLocation ? 't'
                          : c.owner == Topology::Owner::kGroup  ? 'p'
                                                                : 'n';
      out_ << "    <coord ref=\"" << prefix << c.owner_id << "\">";
      const std::span<const int64_t> values = t.values_of(c);
      for (size_t i = 0; i < values.size(); ++i) out_ << (i ? " " : "") << values[i];
      out_ << "</coord>\n";
    }
    out_ << "  </cartesian>\n";
  }

  // ---- <data> --------------------------------------------------------------------------------
  void data() {
    out_ << "<data>\n";
    for (Index m = 0; m < model_.metrics.size(); ++m) {
      const Metric& x = model_.metrics[m];
      if (x.ghost || x.is_void || !holds_numbers(x)) continue;
      for (const Flavour flavour : {Flavour::kInclusive, Flavour::kExclusive}) {
        out_ << "<d metric=\"" << x.id << (flavour == Flavour::kInclusive ? ".incl" : ".excl")
             << "\">\n";
        metric_rows(m, flavour);
        out_ << "</d>\n";
      }
    }
    out_ << "</data>\n";
  }

  // Every call path's values of one metric in one call-tree flavour. Inclusive values of a
  // metric stored exclusive are folded from the exclusive rows, children before parents (one
  // pass, not one subtree walk per call path); everything else is asked per call path.
  void metric_rows(Index m, Flavour flavour) {
    const Metric& x = model_.metrics[m];
    const bool fold =
        flavour == Flavour::kInclusive && !is_derived(x.kind) && x.kind == MetricKind::kExclusive;
    if (!fold) {
      for (Index c = 0; c < model_.cnodes.size(); ++c)
        metric_row(c, engine_.location_values(m, c, Flavour::kInclusive, flavour));
      return;
    }
    std::vector<Values> rows;
    rows.reserve(model_.cnodes.size());
    for (Index c = 0; c < model_.cnodes.size(); ++c)
      rows.push_back(engine_.location_values(m, c, Flavour::kInclusive, Flavour::kExclusive));
    const std::vector<Index> order = pre_order(model_);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Index parent = model_.cnodes[*it].parent;
      if (parent != kNoIndex)
        plus_rows(rows[parent].type(), rows[parent].data(), rows[*it].data(), rows[*it].size());
    }
    for (Index c = 0; c < model_.cnodes.size(); ++c) metric_row(c, rows[c]);
  }

  // One call path's values, per thread; zeros (and what is no single number) are left out.
  // Numbers in their shortest exact form (std::to_chars), integers as integers.
  void metric_row(Index c, const Values& v) {
    const bool integer = v.type().is_integer();
    const bool is_signed = integer && is_signed_integer(v.type().kind());
    line_.clear();
    char text[40];
    for (size_t l = 0; l < v.size(); ++l) {
      double value = 0;
      try {
        value = v.scalar(l);
      } catch (const Error&) {
        return;  // histograms, tuples: not single numbers, not exported
      }
      if (value == 0 || std::isnan(value)) continue;
      if (line_.empty()) line_ = "  <d code=\"c" + std::to_string(model_.cnodes[c].id) + "\">";
      // Value columns are location ids (Model::locations).
      line_ += "<d spc=\"t";
      line_ += std::to_string(l);
      line_ += "\">";
      const auto end = integer ? (is_signed ? std::to_chars(text, text + sizeof text, v.int64(l))
                                            : std::to_chars(text, text + sizeof text, v.uint64(l)))
                               : std::to_chars(text, text + sizeof text, value);
      line_.append(text, end.ptr);
      line_ += "</d>";
    }
    if (line_.empty()) return;
    line_ += "</d>\n";
    out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  }

  MetricEngine& engine_;
  const Model& model_;
  std::ostream& out_;
  std::string line_;  // one call path's <d> elements, written at once
};

}  // namespace

std::vector<std::string> write_peri_xml(MetricEngine& engine, std::ostream& out) {
  PeriWriter writer(engine, out);
  writer.write();
  return std::move(writer.left_out);
}

}  // namespace cubekit
