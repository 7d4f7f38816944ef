// A report over edited definitions whose stored values come from another report
// (remap.hpp: mapped_report).
#include <cstring>

#include "calc/kernels.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"

namespace cubekit {
namespace {

class MappedSource : public SeveritySource {
 public:
  MappedSource(const Report& input, std::vector<Index> source)
      : input_(input), source_(std::move(source)) {}

  std::shared_ptr<const SeverityMatrix> load(const Model& model, Index metric) const override {
    const Index from = origin(model, metric);
    if (from == kNoIndex) return nullptr;
    if (same_storage(model, metric, from)) return input_.severities(from);
    // Converted: the input metric's values as the new metric stores them, row by row.
    const Metric& m = model.metrics[metric];
    auto matrix =
        std::make_shared<SeverityMatrix>(m.dtype, model.cnodes.size(), model.locations.size());
    matrix->reserve_rows(model.cnodes.size());
    for (Index c : storage_order(model, m.kind)) {
      const Values v = converted_row(model, metric, from, c);
      std::memcpy(matrix->add_row(c), v.data(), v.size() * v.stride());
    }
    return matrix;
  }

  bool has_data(const Model& model, Index metric) const override {
    const Index from = origin(model, metric);
    return from != kNoIndex && input_.has_data(from);
  }

  void visit_rows(const Model& model, Index metric, const RowVisitor& visit, RowPlacement placement,
                  RowShare share) const override {
    const Index from = origin(model, metric);
    if (from == kNoIndex) return;
    if (same_storage(model, metric, from)) return input_.visit_rows(from, visit, placement, share);
    const std::vector<Index> order = storage_order(model, model.metrics[metric].kind);
    const size_t begin = order.size() * share.part / share.parts;
    const size_t end = order.size() * (share.part + 1) / share.parts;
    for (size_t k = begin; k < end; ++k) {
      const Values v = converted_row(model, metric, from, order[k]);
      visit(order[k], v.data());
    }
  }

  std::vector<MemberInfo> members() const override { return input_.members(); }
  std::optional<std::string> member_content(const std::string& name) const override {
    return input_.member_content(name);
  }

 private:
  Index origin(const Model& model, Index metric) const {
    if (metric >= source_.size()) return kNoIndex;
    const Metric& m = model.metrics[metric];
    if (is_derived(m.kind) || m.is_void) return kNoIndex;
    const Index from = source_[metric];
    if (from == kNoIndex || !input_.has_data(from)) return kNoIndex;
    return from;
  }

  bool same_storage(const Model& model, Index metric, Index from) const {
    const Metric& to = model.metrics[metric];
    const Metric& in = input_.model().metrics[from];
    return to.dtype == in.dtype && stores_inclusive(to.kind) == stores_inclusive(in.kind);
  }

  Values converted_row(const Model& model, Index metric, Index from, Index cnode) const {
    const Metric& to = model.metrics[metric];
    const Flavour call = stores_inclusive(to.kind) ? Flavour::kInclusive : Flavour::kExclusive;
    const Values in = location_values(input_, from, cnode, Flavour::kInclusive, call);
    Values out(to.dtype, in.size());
    convert_values(in.type(), in.data(), to.dtype, out.data(), in.size(),
                   "metric '" + to.uniq_name + "'");
    return out;
  }

  const Report& input_;
  std::vector<Index> source_;
};

}  // namespace

Report mapped_report(const Report& input, std::shared_ptr<const Model> model,
                     std::vector<Index> source) {
  if (model->cnodes.size() != input.model().cnodes.size() ||
      model->locations.size() != input.model().locations.size())
    throw Error(input.path() + ": a mapped report must keep the call tree and the system tree");
  auto src = std::make_shared<MappedSource>(input, std::move(source));
  return Report(input.path(), std::move(model), std::move(src));
}

}  // namespace cubekit
