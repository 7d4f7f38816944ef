// Pieces of the small reports unit tests build by hand, so that each test states only what
// matters to it (its metrics, regions and call tree).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cubekit/data_type.hpp"
#include "cubekit/model.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"

namespace cubekit::test {

// One machine holding a process per entry of `threads` (group "rank p", rank p) with that many
// threads ("thread t", rank t); locations numbered 0, 1, ... in that order.
inline void add_one_machine(Model& model, const std::vector<uint32_t>& threads) {
  SystemNode node;
  node.name = node.class_name = "machine";
  for (uint32_t p = 0; p < threads.size(); ++p) {
    node.groups.push_back(p);
    LocationGroup group;
    group.id = p;
    group.name = "rank " + std::to_string(p);
    group.rank = p;
    group.node = 0;
    for (uint32_t t = 0; t < threads[p]; ++t) {
      Location loc;
      loc.id = static_cast<uint32_t>(model.locations.size());
      loc.name = "thread " + std::to_string(t);
      loc.rank = t;
      loc.group = p;
      group.locations.push_back(loc.id);
      model.locations.push_back(loc);
    }
    model.groups.push_back(group);
  }
  model.system_nodes.push_back(node);
}

// One region and one call path per entry of `names` (ids in that order), call path c under
// `parents[c]` (kNoIndex: a root), children in id order.
inline void add_call_tree(Model& model, const std::vector<std::string>& names,
                          const std::vector<Index>& parents) {
  for (uint32_t c = 0; c < names.size(); ++c) {
    Region region;
    region.id = c;
    region.name = region.mangled_name = names[c];
    model.regions.push_back(region);
    Cnode cnode;
    cnode.id = c;
    cnode.region = c;
    cnode.parent = parents[c];
    model.cnodes.push_back(cnode);
    if (parents[c] != kNoIndex) model.cnodes[parents[c]].children.push_back(c);
  }
}

// A region per entry of `names` (ids in that order; names may repeat) and a call path per
// entry of `region_of` (ids in that order, in pre-order): call path c of region `region_of[c]`
// under `parent_of[c]` (kNoIndex: a root), children in id order.
inline void add_regions_and_calls(Model& model, const std::vector<std::string>& names,
                                  const std::vector<Index>& region_of,
                                  const std::vector<Index>& parent_of) {
  for (const std::string& name : names) {
    Region region;
    region.id = static_cast<uint32_t>(model.regions.size());
    region.name = region.mangled_name = name;
    model.regions.push_back(region);
  }
  for (uint32_t c = 0; c < region_of.size(); ++c) {
    Cnode cnode;
    cnode.id = c;
    cnode.region = region_of[c];
    cnode.parent = parent_of[c];
    model.cnodes.push_back(cnode);
    if (cnode.parent != kNoIndex) model.cnodes[cnode.parent].children.push_back(c);
  }
}

// The call tree of the call graph, flame graph and call graph API tests: regions main (0),
// foo (1), bar (2), a second foo (3) and baz (4); call paths in pre-order
//   0 main → 1 foo (1) → 2 bar → 3 foo (3) → 4 foo (1)   (foo calling foo)
//                               → 5 baz
//          → 6 bar → 7 baz
inline void add_two_foo_call_tree(Model& model) {
  add_regions_and_calls(model, {"main", "foo", "bar", "foo", "baz"}, {0, 1, 2, 3, 1, 4, 2, 4},
                        {kNoIndex, 0, 1, 2, 3, 2, 0, 6});
}

// A metric with the same unique and display name, numbered by its position in `model`.
inline Metric& add_metric(Model& model, const std::string& name, const char* dtype,
                          MetricKind kind) {
  Metric m;
  m.id = static_cast<uint32_t>(model.metrics.size());
  m.uniq_name = m.disp_name = name;
  m.dtype_text = dtype;
  m.dtype = DataType::parse(dtype);
  m.kind = kind;
  model.metrics.push_back(m);
  return model.metrics.back();
}

// Finalizes `model`, writes its metric 0 (stored EXCLUSIVE, one location: `values[c]` is call
// path c's value, a double or the bits of the metric's other 8-byte type) to `path` and opens
// the report.
template <class Value>
Report write_first_metric(const std::string& path, std::shared_ptr<Model> model,
                          const Value* values) {
  static_assert(sizeof(Value) == 8, "one 8-byte value per call path");
  model->finalize(path);
  ReportWriter writer(path, model);
  writer.begin_metric(0);
  for (Index c : storage_order(*model, MetricKind::kExclusive))
    writer.write_row(c, reinterpret_cast<const std::byte*>(&values[c]));
  writer.end_metric();
  writer.finish();
  return Report::open(path);
}

}  // namespace cubekit::test
