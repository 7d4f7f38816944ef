// The values the library answers with (cube-format.md §8) and the arithmetic on them that holds
// for every metric. Questions about a metric (inclusive / exclusive along the call and metric
// trees, aggregated, per region) go to MetricEngine (derived.hpp), which answers stored and
// derived metrics alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
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

  // Typed reads of value i. Each throws LookupError when i >= size() and Error when the type
  // does not hold such values.
  int64_t int64(size_t i) const;    // INT8 … INT64
  uint64_t uint64(size_t i) const;  // UINT8 … UINT64
  // Any single-number type (integers converted, DOUBLE, MINDOUBLE, MAXDOUBLE).
  double number(size_t i) const;
  // The doubles of a value of a type kept as doubles (DOUBLE … NDOUBLES: see DataType::lanes,
  // e.g. a COMPLEX value's real and imaginary parts); not integers, not SCALE_FUNC.
  std::span<const double> lanes(size_t i) const;

 private:
  DataType type_;
  size_t n_;
  size_t stride_;
  // Doubles, 8-byte aligned for every lane type: the values of the types kept as doubles (most)
  // are then real double objects, which lanes() can hand out without breaking strict aliasing;
  // the algebra reads and writes all types through memcpy.
  std::vector<double> words_;
};

// Stored values (no tree arithmetic): the L values of a cnode, identity where it has no row or
// the metric is derived. LookupError for a metric or cnode index out of range.
Values stored_values(const Report& report, Index metric, Index cnode);

// One value per system tree node and per location group (⊕ over the locations below), for
// one cnode: `nodes` is indexed like Model::system_nodes, `groups` like Model::groups.
struct SystemValues {
  Values nodes;
  Values groups;
};
SystemValues system_values(const Report& report, const Values& per_location);

// One value per region (indexed like Model::regions): the ⊕ of `per_cnode` (one value per
// cnode, indexed like Model::cnodes) over the cnodes calling each region.
Values region_sums(const Model& model, const Values& per_cnode);

}  // namespace cubekit
