// A report whose derived metrics have become stored ones (remap.hpp: materialized_report), for
// exports to formats without derived metrics (Cube 3).
#include <cstring>

#include "cubekit/derived.hpp"
#include "cubekit/remap.hpp"

namespace cubekit {
namespace {

class MaterializedSource : public SeveritySource {
 public:
  MaterializedSource(const Report& input, MetricEngine& engine, std::vector<bool> computed)
      : input_(input), engine_(engine), computed_(std::move(computed)) {}

  std::shared_ptr<const SeverityMatrix> load(const Model& model, Index metric) const override {
    if (!computed_[metric]) return input_.severities(metric);
    const Metric& m = model.metrics[metric];
    auto matrix =
        std::make_shared<SeverityMatrix>(m.dtype, model.cnodes.size(), model.locations.size());
    matrix->reserve_rows(model.cnodes.size());
    for (Index c : storage_order(model, m.kind)) {
      const Values v = engine_.location_values(metric, c, Flavour::kInclusive, Flavour::kExclusive);
      std::memcpy(matrix->add_row(c), v.data(), v.size() * v.stride());
    }
    return matrix;
  }

  bool has_data(const Model&, Index metric) const override {
    return computed_[metric] || input_.has_data(metric);
  }
  std::vector<MemberInfo> members() const override { return input_.members(); }
  std::optional<std::string> member_content(const std::string& name) const override {
    return input_.member_content(name);
  }

 private:
  const Report& input_;
  MetricEngine& engine_;
  std::vector<bool> computed_;
};

}  // namespace

Report materialized_report(const Report& input, MetricEngine& engine) {
  auto model = std::make_shared<Model>(input.model());
  std::vector<bool> computed(model->metrics.size(), false);
  for (Index i = 0; i < model->metrics.size(); ++i) {
    Metric& m = model->metrics[i];
    if (!is_derived(m.kind) || m.ghost || m.is_void) continue;
    computed[i] = true;
    m.kind = MetricKind::kExclusive;  // call-exclusive values are computed, as stored ones are
    if (!m.dtype.is_integer()) {      // the engine answers in DOUBLE or the metric's integer type
      m.dtype = DataType(TypeKind::kDouble);
      m.dtype_text = "DOUBLE";
    }
    m.expression.clear();
    m.init_expression.clear();
    m.aggr_plus.clear();
    m.aggr_minus.clear();
    m.aggr_aggr.clear();
  }
  model->finalize(input.path());
  return Report(input.path(), model,
                std::make_shared<MaterializedSource>(input, engine, std::move(computed)));
}

}  // namespace cubekit
