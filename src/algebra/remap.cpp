// cube_remap2's operation (remap.hpp: remap_report), after CubeLib's remapper: a working report
// with the spec's metric forest merged with the input's metrics; with -d a second set of
// definitions in which every convertible metric is an INCLUSIVE data metric.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "algebra/members.hpp"
#include "algebra/region_lookup.hpp"
#include "algebra/scalasca.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

// CubeLib gives regions without URL one pointing at Scalasca's region documentation.
constexpr const char* kRegionsUrl = "@mirror@scalasca_regions-4.6.html#";

void add_mirror(Model& model, const std::string& url) {
  if (std::find(model.mirrors.begin(), model.mirrors.end(), url) == model.mirrors.end())
    model.mirrors.push_back(url);
}

Index append_metric(Model& model, Metric m, Index parent) {
  const Index self = static_cast<Index>(model.metrics.size());
  m.parent = parent;
  m.children.clear();
  model.metrics.push_back(std::move(m));
  if (parent != kNoIndex) model.metrics[parent].children.push_back(self);
  return self;
}

// The call tree of the input with only the regions it uses, numbered in call-tree pre-order,
// and CubeLib's default region URLs. As CubeLib's copy defines them, regions alike (same name,
// module and lines) become one: the first one's definition (example3.cubex calls MPI_Bcast
// through two such regions).
void copy_program(const Model& in, Model& out) {
  out.program_title = in.program_title;
  out.cnodes = in.cnodes;
  std::vector<Index> new_region(in.regions.size(), kNoIndex);
  RegionLookup alike(out);
  for (Index c : pre_order(in)) {
    const Region& callee = in.regions[in.cnodes[c].region];
    Index& r = new_region[in.cnodes[c].region];
    if (r != kNoIndex) continue;
    r = alike.find(callee);
    if (r != kNoIndex) continue;
    r = static_cast<Index>(out.regions.size());
    Region region = callee;
    region.id = r;
    if (region.url.empty() && !region.descr.empty()) region.url = kRegionsUrl + region.descr;
    out.regions.push_back(std::move(region));
  }
  for (Cnode& c : out.cnodes) c.region = new_region[c.region];
}

void copy_system(const Model& in, Model& out) {
  out.system_title = in.system_title;
  out.system_nodes = in.system_nodes;
  out.groups = in.groups;
  out.locations = in.locations;
  out.topologies = in.topologies;
}

// Metrics of the working report: the spec's, then input metrics the spec lacks. `source`
// gets, per working metric, the input metric behind it. Ids follow the order of definition.
void merge_metrics(const Report& input, const RemapSpec* spec, Model& w, std::vector<Index>& source,
                   const RemapOptions& options) {
  const Model& in = input.model();
  if (spec != nullptr)
    for (const Metric& m : spec->metrics) append_metric(w, m, m.parent);
  for (Index m = 0; m < w.metrics.size(); ++m) w.metrics[m].id = m;
  uint32_t next_id = static_cast<uint32_t>(w.metrics.size());
  source.assign(w.metrics.size(), kNoIndex);
  std::unordered_map<std::string, Index> by_name;
  for (Index m = 0; m < w.metrics.size(); ++m) by_name.emplace(w.metrics[m].uniq_name, m);
  constexpr Index kDropped = kNoIndex - 1;
  std::vector<Index> mapped(in.metrics.size(), kNoIndex);
  for (Index i = 0; i < in.metrics.size(); ++i) {  // document order: parents first
    const Metric& m = in.metrics[i];
    const Index parent = m.parent == kNoIndex ? kNoIndex : mapped[m.parent];
    if (auto it = by_name.find(m.uniq_name); it != by_name.end()) {
      Metric& target = w.metrics[it->second];
      target.val = m.val;  // the input decides whether it is VOID
      set_attributes(target.attrs, m.attrs);
      mapped[i] = it->second;
      source[it->second] = i;
      continue;
    }
    // CubeLib leaves INCLUSIVE metrics out (with all metrics below them) whose new parent is
    // PREDERIVED_EXCLUSIVE (an inclusive value cannot be part of an exclusive sum); they still
    // use up an id. EXCLUSIVE ones it keeps.
    const uint32_t id = next_id++;
    if (parent == kDropped || (parent != kNoIndex && m.kind == MetricKind::kInclusive &&
                               w.metrics[parent].kind == MetricKind::kPrederivedExclusive)) {
      if (parent != kDropped && options.note)
        options.note("cube_remap2: metric '" + m.uniq_name + "' of the input is left out: it " +
                     "is INCLUSIVE, its parent '" + w.metrics[parent].uniq_name +
                     "' in the specification PREDERIVED_EXCLUSIVE");
      // CubeLib still writes the data members of these stored metrics (empty here).
      if (!is_derived(m.kind)) w.empty_member_metric_ids.push_back(id);
      mapped[i] = kDropped;
      continue;
    }
    Metric x = m;
    x.id = id;
    const Index target = append_metric(w, std::move(x), parent);
    source.push_back(i);
    by_name.emplace(m.uniq_name, target);
    mapped[i] = target;
  }
  for (Metric& m : w.metrics) m.is_void = false;  // recomputed by finalize
  // Derived metrics have the value type of their parent (CubeLib's Metric::create).
  for (Index m = 0; m < w.metrics.size(); ++m) {
    Metric& x = w.metrics[m];
    if (is_derived(x.kind) && x.parent != kNoIndex) {
      x.dtype_text = w.metrics[x.parent].dtype_text;
      x.dtype = w.metrics[x.parent].dtype;
    }
  }
}

Model working_model(const Report& input, const RemapSpec* spec, std::vector<Index>& source,
                    const RemapOptions& options) {
  const Model& in = input.model();
  Model w;
  w.version = in.version;
  if (spec == nullptr) {  // copy mode keeps the input's definitions and attributes
    w.attrs = in.attrs;
    w.metrics_title = in.metrics_title;
  } else {
    for (const std::string& u : spec->mirrors) add_mirror(w, u);
    w.metrics_title = spec->metrics_title;
  }
  set_attributes(w.attrs, {{"CUBE_CT_AGGR", "SUM"}});
  for (const std::string& u : in.mirrors) add_mirror(w, u);
  merge_metrics(input, spec, w, source, options);
  copy_program(in, w);
  copy_system(in, w);
  w.finalize(input.path() + " (remapped)");
  return w;
}

// -d: every convertible metric becomes an INCLUSIVE data metric (EXCLUSIVE for types that have
// no inclusive storage); VOID metrics are left out. Ghost metrics come first, as CubeLib
// defines them first. `origin` gets the working metric behind each metric.
Model converted_model(const Model& w, std::vector<Index>& origin, const RemapOptions& options) {
  Model out;
  out.version = w.version;
  out.mirrors = w.mirrors;
  std::vector<Index> order;
  for (Index m = 0; m < w.metrics.size(); ++m)
    if (w.metrics[m].ghost && w.metrics[m].parent == kNoIndex) order.push_back(m);
  for (Index r : w.metric_roots())
    if (!w.metrics[r].ghost) order.push_back(r);
  std::vector<Index> new_index(w.metrics.size(), kNoIndex);
  std::function<void(Index, Index)> copy = [&](Index m, Index parent) {
    const Metric& src = w.metrics[m];
    if (src.is_void) return;
    Metric x = src;
    if (parent != kNoIndex) x.dtype_text = x.dtype.dtype_text();  // CubeLib's canonical name
    if (x.convertible) {
      x.kind = MetricKind::kInclusive;
      if (!x.dtype.allows_inclusive_storage()) {
        if (options.note)
          options.note(" Metric " + x.uniq_name + " with type " + std::string(x.dtype.base_name()) +
                       " cannot be declared as an inclusive metric");
        x.kind = MetricKind::kExclusive;
      }
      x.expression.clear();
      x.init_expression.clear();
      x.aggr_plus.clear();
      x.aggr_minus.clear();
      x.aggr_aggr.clear();
    }
    x.id = static_cast<uint32_t>(out.metrics.size());
    const Index self = append_metric(out, std::move(x), parent);
    origin.push_back(m);
    new_index[m] = self;
    for (Index k : src.children) copy(k, self);
  };
  for (Index m : order) copy(m, kNoIndex);
  out.program_title = w.program_title;
  out.regions = w.regions;
  out.cnodes = w.cnodes;
  copy_system(w, out);
  out.finalize("remapped report");
  return out;
}

// CubeLib's writer leaves inactive (VOID) metrics out of the anchor with all below them, their
// ids unused, but still writes the data members of the stored ones (empty here).
void leave_out_void_metrics(Model& model) {
  std::function<void(Index)> leave_out = [&](Index m) {
    Metric& x = model.metrics[m];
    x.is_void = true;  // nothing to write for it
    if (!is_derived(x.kind)) model.empty_member_metric_ids.push_back(x.id);
    for (Index k : x.children) leave_out(k);
  };
  std::function<void(Index)> visit = [&](Index m) {
    if (model.metrics[m].val != "VOID") {
      for (Index k : model.metrics[m].children) visit(k);
      return;
    }
    model.anchor_omitted_metric_ids.push_back(model.metrics[m].id);
    leave_out(m);
  };
  for (Index r : model.metric_roots()) visit(r);
}

// CubeLib's cube keeps the ghost metrics that CubePL statements define, and its writer puts them
// at the end of the metric definitions, after every id used so far. They store nothing.
void append_cubepl_ghosts(Model& model, const std::vector<Metric>& ghosts,
                          std::vector<Index>& origin) {
  uint32_t next_id = 0;
  for (const Metric& m : model.metrics) next_id = std::max(next_id, m.id + 1);
  for (uint32_t id : model.empty_member_metric_ids) next_id = std::max(next_id, id + 1);
  for (const Metric& g : ghosts) {
    Metric x = g;
    x.id = next_id++;
    x.disp_name.clear();  // CubeLib defines them without a display name
    append_metric(model, std::move(x), kNoIndex);
    origin.push_back(kNoIndex);  // derived: no values to copy
  }
}

}  // namespace

void remap_report(const Report& input, const RemapSpec* spec, const RemapOptions& options,
                  const std::string& path, const WriteOptions& write_options) {
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  say("Create cube according the remapping specification...");
  std::vector<Index> source;
  auto working = std::make_shared<Model>(working_model(input, spec, source, options));
  const Report mapped = mapped_report(input, working, source);
  std::vector<Metric> cubepl_ghosts;  // defined by statements of the spec's expressions
  // Compiles every derived metric (and runs the init expressions): a bad spec stops here. A
  // metric an init expression sets VOID is VOID in the output (CubeLib's metric::set).
  {
    const MetricEngine check(mapped);
    for (Index m = 0; m < working->metrics.size(); ++m)
      if (check.is_void(m) && !working->metrics[m].is_void) {
        working->metrics[m].val = "VOID";
        working->metrics[m].is_void = true;
      }
    // CubeLib compiles the expressions twice on the way, and says each time which
    // metric::set / metric::get name a metric that is not there and which ghost metric a
    // definition finds already there.
    for (const std::string& line : check.cubelib_notes()) say(line);
    for (const std::string& line : check.cubelib_notes_of_second_compile()) say(line);
    for (Index m = working->metrics.size(); m < check.metric_count(); ++m)
      cubepl_ghosts.push_back(check.metric(m));
  }
  std::optional<Report> with_scalasca;
  if (options.scalasca_metrics) with_scalasca = algebra::add_scalasca_metrics(mapped, say);
  const Report& evaluated = with_scalasca ? *with_scalasca : mapped;

  if (!options.convert_derived) {
    auto output = std::make_shared<Model>(*working);
    // Copy mode (-c) keeps the input's definitions as they are (CubeLib crashes there).
    if (spec != nullptr) leave_out_void_metrics(*output);
    std::vector<Index> origin(output->metrics.size());
    std::iota(origin.begin(), origin.end(), Index{0});
    append_cubepl_ghosts(*output, cubepl_ghosts, origin);
    stamp_cubelib_versions(*output);
    write_evaluated(evaluated, output, path, write_options, {}, origin);
    return;
  }
  say("Copy values of derived metric into target cube... ");
  std::vector<Index> origin;
  auto output = std::make_shared<Model>(converted_model(*working, origin, options));
  stamp_cubelib_versions(*output);
  write_evaluated(evaluated, output, path, write_options, {}, origin);
}

}  // namespace cubekit
