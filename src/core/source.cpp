#include "cubekit/source.hpp"

namespace cubekit {

// The rows of `matrix` in `order` that fall into `share` (by position among the stored ones).
void visit_stored_rows(const SeverityMatrix& matrix, const std::vector<Index>& order,
                       const RowVisitor& visit, RowShare share) {
  if (share.parts == 1) {
    for (Index c : order)
      if (const std::byte* row = matrix.row(c)) visit(c, row);
    return;
  }
  std::vector<Index> stored;
  for (Index c : order)
    if (matrix.has_row(c)) stored.push_back(c);
  const size_t begin = stored.size() * share.part / share.parts;
  const size_t end = stored.size() * (share.part + 1) / share.parts;
  for (size_t k = begin; k < end; ++k) visit(stored[k], matrix.row(stored[k]));
}

void SeveritySource::visit_rows(const Model& model, Index metric, const RowVisitor& visit,
                                RowPlacement, RowShare share) const {
  const auto matrix = load(model, metric);
  if (matrix == nullptr) return;
  visit_stored_rows(*matrix, storage_order(model, model.metrics[metric].kind), visit, share);
}

void SeveritySource::visit_row_runs(const Model& model, Index metric, const RowRunVisitor& visit,
                                    RowPlacement placement, RowShare share) const {
  visit_rows(
      model, metric, [&](Index c, const std::byte* row) { visit(&c, 1, row, 0); }, placement,
      share);
}

}  // namespace cubekit
