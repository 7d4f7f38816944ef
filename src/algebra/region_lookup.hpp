// The first region of a model alike a given one (same_region: name, module and lines), found
// through a hash of those fields instead of a comparison with every region. Unifying a report of
// 382,000 call paths and 64,000 regions compared each call path's region with all of them:
// cube_diff of two 400 MB reports took 38 s, nearly all of it there.
#pragma once

#include <cstddef>
#include <unordered_map>

#include "cubekit/model.hpp"

namespace cubekit {

// A hash of the fields same_region compares, and the step that mixes one more part into a hash.
size_t region_hash(const Region& region);
size_t hash_combine(size_t seed, size_t part);

class RegionLookup {
 public:
  // Looks among the regions `model` has and those it gets later (the lookup catches up with
  // them on each find); `model` outlives the lookup.
  explicit RegionLookup(const Model& model) : model_(model) {}
  // The index of the first region of the model alike `region`; kNoIndex when none is.
  Index find(const Region& region);

 private:
  const Model& model_;
  size_t indexed_ = 0;  // model_.regions[0, indexed_) are in by_hash_
  std::unordered_multimap<size_t, Index> by_hash_;
};

}  // namespace cubekit
