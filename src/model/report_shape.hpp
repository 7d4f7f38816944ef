// The definitions of the small reports the model layer writes (the generated series of
// series_writer.cpp, the models as a report of model_report.cpp): call paths given by their
// region names, metrics by name, and one location.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/model.hpp"

namespace cubekit {

struct ReportShape {
  std::shared_ptr<Model> model = std::make_shared<Model>();
  std::map<std::vector<std::string>, Index> cnode_of;  // region names from the root → cnode
  std::map<std::string, Index> metric_of;
  std::map<std::string, Index> region_of;  // with add_call_path's `share_regions`
};

// The cnode of `callpath`, added with its missing prefixes. With `share_regions` call paths
// ending in the same name share one region; otherwise each call path has a region of its own.
Index add_call_path(ReportShape& shape, const std::vector<std::string>& callpath,
                    bool share_regions);

// One system node (of class `node`, named so) holding one process holding one thread.
void add_one_location(Model& model, const std::string& node, const std::string& process,
                      const std::string& thread);

}  // namespace cubekit
