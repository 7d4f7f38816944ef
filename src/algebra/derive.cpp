// cube_derive's operation (remap.hpp: derive_metric): one more metric, kept derived or computed.
#include <algorithm>

#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"

namespace cubekit {
namespace {

// The kind under which the new metric is evaluated: a computed metric gets the values a
// prederived metric of its flavour has (CubeLib evaluates it so, too).
MetricKind evaluated_kind(MetricKind requested) {
  switch (requested) {
    case MetricKind::kExclusive:
      return MetricKind::kPrederivedExclusive;
    case MetricKind::kInclusive:
    case MetricKind::kSimple:
      return MetricKind::kPrederivedInclusive;
    default:
      return requested;
  }
}

Index find_parent(const Report& input, const std::string& name) {
  if (name.empty() || name == "root") return kNoIndex;
  const auto& metrics = input.model().metrics;
  for (Index m = 0; m < metrics.size(); ++m)
    if (metrics[m].disp_name == name) return m;
  throw LookupError(input.path() + ": no metric with display name '" + name +
                    "' to be the parent of the new metric");
}

Metric new_metric(const Model& model, const NewMetric& request, Index parent) {
  Metric m;
  uint32_t max_id = 0;
  for (const Metric& x : model.metrics) max_id = std::max(max_id, x.id);
  m.id = model.metrics.empty() ? 0 : max_id + 1;
  m.disp_name = m.uniq_name = request.name;
  m.dtype_text = "DOUBLE";
  m.dtype = DataType(TypeKind::kDouble);
  m.url = "https://url.de";
  m.descr = "Created metric using tool cube_derive with a CubePL expression \"" +
            request.expression + "\"";
  m.kind = evaluated_kind(request.kind);
  m.expression = request.expression;
  m.user_expressions = true;  // the caller's own text: env() reads the environment
  m.parent = parent;
  return m;
}

}  // namespace

void derive_metric(const Report& input, const NewMetric& request, const std::string& path,
                   const WriteOptions& options) {
  const Model& in = input.model();
  if (request.name.empty()) throw LookupError(input.path() + ": the new metric needs a name");
  if (in.metric_by_uniq_name(request.name))
    throw LookupError(input.path() + ": a metric named '" + request.name + "' exists already");
  const Index parent = find_parent(input, request.parent);

  auto evaluated_model = std::make_shared<Model>(in);
  const Index added = static_cast<Index>(in.metrics.size());
  evaluated_model->metrics.push_back(new_metric(in, request, parent));
  if (parent != kNoIndex) evaluated_model->metrics[parent].children.push_back(added);
  evaluated_model->finalize(input.path());
  std::vector<Index> source(added + 1, kNoIndex);
  for (Index m = 0; m < added; ++m) source[m] = m;
  const Report evaluated = mapped_report(input, evaluated_model, std::move(source));
  // Compiles every derived metric, the new one included: a bad expression stops here.
  { const MetricEngine check(evaluated); }

  auto output = std::make_shared<Model>(*evaluated_model);
  Metric& written = output->metrics[added];
  written.kind = request.kind;
  if (!is_derived(written.kind)) written.expression.clear();
  // CubeLib's cube_derive writes a copy of the input that has neither the attributes of
  // regions and system-tree nodes nor misc members (remapping.spec, …): the reports must read
  // alike (docs/cube_derive.md).
  for (Region& r : output->regions) r.attrs.clear();
  for (SystemNode& n : output->system_nodes) n.attrs.clear();
  order_children_by_id(*output);
  stamp_cubelib_versions(*output);
  write_evaluated(evaluated, output, path, options, {});
}

}  // namespace cubekit
