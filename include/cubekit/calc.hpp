// Questions the library answers (cube-format.md §8): a metric's values along the call tree
// (inclusive or exclusive, whatever the storage), along the metric tree, and aggregated over
// locations or system tree entities, each with its type's algebra.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cubekit/data_type.hpp"
#include "cubekit/report.hpp"

namespace cubekit {

enum class Flavour : uint8_t { kInclusive, kExclusive };

// n values of one DataType in memory layout, identity-initialised.
class Values {
 public:
  Values(DataType type, size_t n);
  DataType type() const { return type_; }
  size_t size() const { return n_; }
  size_t stride() const { return stride_; }
  std::byte* at(size_t i) { return data() + i * stride_; }
  const std::byte* at(size_t i) const { return data() + i * stride_; }
  std::byte* data() { return reinterpret_cast<std::byte*>(words_.data()); }
  const std::byte* data() const { return reinterpret_cast<const std::byte*>(words_.data()); }
  double scalar(size_t i) const;

 private:
  DataType type_;
  size_t n_;
  size_t stride_;
  std::vector<uint64_t> words_;
};

// Stored values (no tree arithmetic): the L values of a cnode, identity where it has no row.
Values stored_values(const Report& report, Index metric, Index cnode);

// The L per-location values of (metric, cnode) with the given call-tree flavour and
// metric-tree flavour. Derived metrics throw CubePLError: ask MetricEngine (derived.hpp).
Values location_values(const Report& report, Index metric, Index cnode, Flavour metric_flavour,
                       Flavour call_flavour);

// One value per cnode (indexed like Model::cnodes), aggregated over all locations. Rows are
// aggregated first, then the tree arithmetic runs on C numbers (C×L + C work, not C×L×depth).
Values aggregated_values(const Report& report, Index metric, Flavour metric_flavour,
                         Flavour call_flavour);

// One value per system tree node and per location group (⊕ over the locations below), for
// one cnode: `nodes` is indexed like Model::system_nodes, `groups` like Model::groups.
struct SystemValues {
  Values nodes;
  Values groups;
};
SystemValues system_values(const Report& report, const Values& per_location);

// Flat profile (§8.5): one value per region, the ⊕ over all cnodes calling it, aggregated over
// all locations; `call_flavour` applies to each cnode before summing.
Values region_values(const Report& report, Index metric, Flavour metric_flavour,
                     Flavour call_flavour);
// One value per region (indexed like Model::regions): the ⊕ of `per_cnode` (one value per
// cnode, indexed like Model::cnodes) over the cnodes calling each region.
Values region_sums(const Model& model, const Values& per_cnode);

}  // namespace cubekit
