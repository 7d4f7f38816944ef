#include "cubekit/flame_layout.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cubekit/error.hpp"

namespace cubekit {

namespace {

// A value as the spans count it: what is not finite adds nothing.
double finite_or_zero(double v) {
  return std::isfinite(v) ? v : 0;
}

struct Placer {
  const Model& model;
  std::span<const double> inclusive;
  const FlameOptions& options;
  double sum_of_spans;  // the roots' max(0, value) summed, 1 when 0
  std::vector<FlameBox>& boxes;

  // Places `list` (siblings) from `start` on; a span too narrow to draw still takes its room.
  void place(const std::vector<Index>& list, double start, uint32_t depth) {
    for (Index c : list) {
      const double extent =
          (std::max(0.0, finite_or_zero(inclusive[c])) / sum_of_spans) * options.extent;
      if (extent >= options.min_extent) {
        if (boxes.size() == options.max_boxes)
          throw Error("flame layout: more than " + std::to_string(options.max_boxes) +
                      " spans of at least " + std::to_string(options.min_extent));
        boxes.push_back({c, depth, start, extent});
        if (depth < options.max_depth) place(model.cnodes[c].children, start, depth + 1);
      }
      start += extent;
    }
  }
};

}  // namespace

FlameLayout flame_layout(const Model& model, std::span<const double> inclusive,
                         const FlameOptions& options) {
  if (inclusive.size() != model.cnodes.size())
    throw Error("flame layout: " + std::to_string(model.cnodes.size()) + " call paths but " +
                std::to_string(inclusive.size()) + " values");
  const std::vector<Index> roots = model.cnode_roots();
  FlameLayout out;
  double spans = 0;
  for (Index r : roots) {
    out.total += finite_or_zero(inclusive[r]);
    spans += std::max(0.0, finite_or_zero(inclusive[r]));
  }
  Placer{model, inclusive, options, spans == 0 ? 1 : spans, out.boxes}.place(roots, 0, 0);
  return out;
}

}  // namespace cubekit
