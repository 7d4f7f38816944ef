// cube_exclusify and cube_inclusify (report_algebra.hpp: write_call_flavoured): the input's
// definitions with every metric turned into a stored one of the wanted call-tree flavour, unified
// like a one-input merge (so -c / -C reduce or collapse the system tree), then its values
// streamed through write_combination, which evaluates derived metrics and converts flavours.
#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

// The input's metric forest as CubeLib redefines it: name, type, unit, value, URL and
// description kept; kind set; expressions, ghost state and attributes gone.
Model restated_metrics(const Model& input, const CallFlavourOptions& options) {
  Model out;
  out.metrics_title = input.metrics_title;
  out.metrics = input.metrics;
  for (Metric& m : out.metrics) {
    m.kind = options.stored_as;
    if (m.kind == MetricKind::kInclusive && !m.dtype.allows_inclusive_storage()) {
      m.kind = MetricKind::kExclusive;
      if (options.note)
        options.note(" Metric " + m.uniq_name + " with type " + m.dtype_text +
                     " cannot be declared as an inclusive metric");
    }
    m.expression.clear();
    m.init_expression.clear();
    m.aggr_plus.clear();
    m.aggr_minus.clear();
    m.aggr_aggr.clear();
    m.ghost = false;
    m.attrs.clear();
  }
  return out;
}

}  // namespace

void write_call_flavoured(const Report& input, const CallFlavourOptions& options,
                          const std::string& path, const WriteOptions& write_options) {
  if (options.stored_as != MetricKind::kExclusive && options.stored_as != MetricKind::kInclusive)
    throw Error(path + ": metrics can only be stored EXCLUSIVE or INCLUSIVE");
  const Model& in = input.model();
  UnifiedDefinitions defs;
  std::vector<InputMapping> maps(1);
  defs.add_mirrors(in);
  defs.add_metrics(restated_metrics(in, options), maps[0], MetricTypes::kAsWritten);
  defs.add_call_tree(in, maps[0]);
  if (!defs.add_system_tree(in, maps[0], options.system))
    throw Error(input.path() + ": the system tree cannot be unified");
  defs.add_topologies(in, maps[0]);
  write_combination({&input}, maps, defs.finish(), Combination::kMerge, path, write_options);
}

}  // namespace cubekit
