// Writing a report whose stored metrics are copied or computed (remap.hpp: write_evaluated,
// stamp_cubelib_versions).
#include <algorithm>
#include <optional>

#include "cubekit/algebra.hpp"
#include "cubekit/cubepl.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"

namespace cubekit {
namespace {

// The metric's rows can be copied from the evaluated report as they are.
bool copied_alike(const Metric& evaluated, const Metric& output) {
  return !is_derived(evaluated.kind) && evaluated.dtype == output.dtype &&
         stores_inclusive(evaluated.kind) == stores_inclusive(output.kind);
}

void set_attr(Model& model, const std::string& key, const std::string& value) {
  auto it = std::find_if(model.attrs.begin(), model.attrs.end(),
                         [&](const auto& kv) { return kv.first == key; });
  if (it != model.attrs.end())
    it->second = value;
  else
    model.attrs.emplace_back(key, value);
}

// CubePL written into a report travels to CubeLib and the Cube GUI, which show a metric whose
// text they cannot compile as 0 everywhere; so every text must compile in CubeLib-compatible
// mode (which refuses cubekit's extensions such as `for`, and CubeLib's lexical traps).
void require_cubelib_readable(const Model& model, const std::string& path) {
  cubepl::CompileContext compatible;
  compatible.compatible = true;
  compatible.find_metric = [&](std::string_view name) { return model.metric_by_uniq_name(name); };
  for (const Metric& m : model.metrics) {
    if (!is_derived(m.kind)) continue;
    const std::pair<const char*, const std::string*> slots[] = {
        {"expression", &m.expression},
        {"init expression", &m.init_expression},
        {"plus expression", &m.aggr_plus},
        {"minus expression", &m.aggr_minus},
        {"aggr expression", &m.aggr_aggr}};
    for (const auto& [slot, text] : slots) {
      try {
        cubepl::compile(*text, compatible);
      } catch (const CubePLError& e) {
        throw CubePLError(path + ": metric '" + m.uniq_name + "': " + slot +
                          " would not compile in CubeLib, so it cannot be written: " + e.what());
      }
    }
  }
}

}  // namespace

void stamp_cubelib_versions(Model& model) {
  model.version = "4.5";
  set_attr(model, "CUBE Library version", "CubeLib-4.6.0 rexternal");
  set_attr(model, "Cube Version", "4.6");
  set_attr(model, "Cube anchor.xml syntax version", "4.5");
  set_attr(model, "CubePL Version", "1.1");
}

void write_evaluated(const Report& evaluated, std::shared_ptr<const Model> output,
                     const std::string& path, const WriteOptions& options,
                     const std::vector<std::pair<std::string, std::string>>& members,
                     const std::vector<Index>& origin) {
  const Model& in = evaluated.model();
  if (origin.empty() ? in.metrics.size() != output->metrics.size()
                     : origin.size() != output->metrics.size())
    throw Error(path + ": the written definitions must have the metrics of the evaluated report");
  auto source = [&](Index m) { return origin.empty() ? m : origin[m]; };
  require_cubelib_readable(*output, path);
  std::optional<MetricEngine> engine;  // built when a value has to be computed
  ReportWriter writer(path, output, options);
  // Whether both call trees list children alike (then rows stream in the input's order).
  bool same_order = output->cnodes.size() == in.cnodes.size();
  for (Index c = 0; same_order && c < in.cnodes.size(); ++c)
    same_order = in.cnodes[c].children == output->cnodes[c].children;
  for (const auto& [name, bytes] : members) writer.add_member(name, bytes);
  const size_t locations = output->locations.size();
  for (Index m = 0; m < output->metrics.size(); ++m) {
    const Metric& out = output->metrics[m];
    if (is_derived(out.kind) || out.is_void) continue;
    const Index e = source(m);
    writer.begin_metric(m);
    if (copied_alike(in.metrics[e], out) && same_order) {
      evaluated.visit_rows(e, [&](Index c, const std::byte* row) { writer.write_row(c, row); });
    } else if (copied_alike(in.metrics[e], out)) {
      // The call tree's order changed (order_children_by_id): the rows go in the output's
      // storage order, one metric's rows in memory at a time.
      if (const auto rows = evaluated.severities(e))
        for (Index c : storage_order(*output, out.kind))
          if (const std::byte* row = rows->row(c)) writer.write_row(c, row);
      evaluated.drop(e);
    } else {
      if (!engine) engine.emplace(evaluated);
      const Flavour call = stores_inclusive(out.kind) ? Flavour::kInclusive : Flavour::kExclusive;
      std::vector<std::byte> row(out.dtype.memory_size() * locations);
      for (Index c : storage_order(*output, out.kind)) {
        const Values v = engine->location_values(e, c, Flavour::kInclusive, call);
        convert_values(v.type(), v.data(), out.dtype, row.data(), locations,
                       path + ": metric '" + out.uniq_name + "'");
        writer.write_row(c, row.data());
      }
      // One computed metric's values in memory at a time (a -d remap of a large report would
      // otherwise keep every derived metric and every decoded input).
      engine->forget_values();
    }
    writer.end_metric();
  }
  writer.finish();
}

}  // namespace cubekit
