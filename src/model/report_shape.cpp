#include "model/report_shape.hpp"

namespace cubekit {
namespace {

Index add_region(Model& model, const std::string& name) {
  Region region;
  region.id = uint32_t(model.regions.size());
  region.name = region.mangled_name = name;
  model.regions.push_back(region);
  return region.id;
}

}  // namespace

Index add_call_path(ReportShape& shape, const std::vector<std::string>& callpath,
                    bool share_regions) {
  Model& model = *shape.model;
  Index parent = kNoIndex;
  for (size_t depth = 1; depth <= callpath.size(); ++depth) {
    const std::vector<std::string> prefix(callpath.begin(), callpath.begin() + long(depth));
    const auto [it, added] = shape.cnode_of.emplace(prefix, Index(model.cnodes.size()));
    if (added) {
      Cnode cnode;
      cnode.id = uint32_t(model.cnodes.size());
      if (!share_regions) {
        cnode.region = add_region(model, prefix.back());
      } else {
        const auto [region, added_region] =
            shape.region_of.emplace(prefix.back(), Index(model.regions.size()));
        if (added_region) add_region(model, prefix.back());
        cnode.region = region->second;
      }
      cnode.parent = parent;
      model.cnodes.push_back(cnode);
      if (parent != kNoIndex) model.cnodes[parent].children.push_back(cnode.id);
    }
    parent = it->second;
  }
  return parent;
}

void add_one_location(Model& model, const std::string& node, const std::string& process,
                      const std::string& thread) {
  SystemNode system_node;
  system_node.name = system_node.class_name = node;
  system_node.groups.push_back(0);
  model.system_nodes.push_back(system_node);
  LocationGroup group;
  group.name = process;
  group.node = 0;
  group.locations.push_back(0);
  model.groups.push_back(group);
  Location location;
  location.name = thread;
  location.group = 0;
  model.locations.push_back(location);
}

}  // namespace cubekit
