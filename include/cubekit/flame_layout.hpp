// The call tree as nested spans of one metric's inclusive values: the flame graph's boxes
// (spans along the width) and the sunburst's arcs (spans of the full circle). A report of
// 100,000 call paths has far more call paths than a drawing has pixels; only the spans at
// least `min_extent` wide are laid out, so that a viewer receives what it draws and no more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit {

struct FlameOptions {
  double extent = 1;          // the roots' spans together (pixels of the width, 2π, …)
  double min_extent = 0;      // a narrower span is left out, and so is everything below it
  uint32_t max_depth = 60;    // roots have depth 0; deeper call paths are left out
  size_t max_boxes = 100000;  // more boxes than this: an error (min_extent too small)
};

struct FlameBox {
  Index cnode = kNoIndex;
  uint32_t depth = 0;
  double start = 0;   // where the span begins: the parent's start plus its earlier siblings'
  double extent = 0;  // max(0, inclusive value) / total · options.extent
};

struct FlameLayout {
  // The roots' values summed (a value that is not finite counts 0): the reference of shares.
  double total = 0;
  std::vector<FlameBox> boxes;  // parents before their children, siblings in the tree's order
};

// Lays out the call tree of `model` by `inclusive` (one value per call path, indexed like
// Model::cnodes). A span's extent is max(0, value) / T · extent, where T is the sum of the
// roots' max(0, value), or 1 when that is 0; spans narrower than every drawn pixel still
// advance their later siblings' start. Error when `inclusive` does not have one value per call
// path, or more than max_boxes spans are wide enough.
FlameLayout flame_layout(const Model& model, std::span<const double> inclusive,
                         const FlameOptions& options);

}  // namespace cubekit
