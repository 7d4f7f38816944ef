// ${cube::…} from a Model (cubepl.md §7.4). CubeLib leaves several declared arrays empty
// (§13 Q20); we fill the ones with an unambiguous meaning (stn::parent::id, stn::description)
// and leave the per-entity child lists empty, since an array of numbers cannot hold them.
#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cubekit/cubepl.hpp"

namespace cubekit::cubepl {
namespace {

double id_or_minus_one(Index index) {
  return index == kNoIndex ? -1.0 : static_cast<double>(index);
}

bool is_void(const std::string& name) {
  return name.find("VOID") != std::string::npos;
}

double location_type(const std::string& type) {
  if (type.find("accel") != std::string::npos || type.find("gpu") != std::string::npos ||
      type.find("GPU") != std::string::npos) {
    return 1;
  }
  return type.find("metric") != std::string::npos ? 2 : 0;
}

// Appends each listed string field of `entity` to its variable (one value per entity).
template <class Entity>
void append_strings(std::map<std::string, std::vector<std::string>, std::less<>>& strings,
                    const Entity& entity,
                    std::initializer_list<std::pair<const char*, std::string Entity::*>> fields) {
  for (const auto& [variable, field] : fields) strings[variable].push_back(entity.*field);
}

// Positions of `entities` by their ids when the ids are 0..n−1 (each position holds the entity
// with that id), else in model order.
template <class Entity>
std::vector<Index> in_id_order(const std::vector<Entity>& entities) {
  std::vector<Index> order(entities.size(), kNoIndex);
  for (Index i = 0; i < entities.size(); ++i) {
    const uint32_t id = entities[i].id;
    if (id >= order.size() || order[id] != kNoIndex) {
      for (Index k = 0; k < order.size(); ++k) order[k] = k;
      return order;
    }
    order[id] = i;
  }
  return order;
}

}  // namespace

CubeVariables::CubeVariables(const Model& model, std::string filename) {
  strings_["cube::filename"] = {std::move(filename)};
  metrics(model);
  callpaths(model);
  regions(model);
  system(model);
  counts(model);
}

std::optional<ArrayView> CubeVariables::find(std::string_view name) const {
  if (auto it = numbers_.find(name); it != numbers_.end()) return ArrayView{it->second, {}, false};
  if (auto it = strings_.find(name); it != strings_.end()) return ArrayView{{}, it->second, false};
  return std::nullopt;
}

void CubeVariables::metrics(const Model& model) {
  for (const Metric& m : model.metrics) {
    append_strings(strings_, m,
                   {{"cube::metric::uniq::name", &Metric::uniq_name},
                    {"cube::metric::disp::name", &Metric::disp_name},
                    {"cube::metric::url", &Metric::url},
                    {"cube::metric::description", &Metric::descr},
                    {"cube::metric::dtype", &Metric::dtype_text},
                    {"cube::metric::uom", &Metric::uom},
                    {"cube::metric::expression", &Metric::expression},
                    {"cube::metric::initexpression", &Metric::init_expression}});
    numbers_["cube::metric::#children"].push_back(static_cast<double>(m.children.size()));
    numbers_["cube::metric::parent::id"].push_back(id_or_minus_one(m.parent));
  }
}

void CubeVariables::callpaths(const Model& model) {
  // Indexed and valued by the ids the report writes (${calculation::callpath::id} is one):
  // Score-P numbers call paths in the order it first saw them, not in tree order.
  auto region_id = [&](Index r) { return r == kNoIndex ? -1.0 : model.regions[r].id; };
  auto cnode_id = [&](Index c) { return c == kNoIndex ? -1.0 : model.cnodes[c].id; };
  for (Index k : in_id_order(model.cnodes)) {
    const Cnode& c = model.cnodes[k];
    strings_["cube::callpath::mod"].push_back(c.mod);
    numbers_["cube::callpath::line"].push_back(static_cast<double>(c.line));
    numbers_["cube::callpath::#children"].push_back(static_cast<double>(c.children.size()));
    numbers_["cube::callpath::calleeid"].push_back(region_id(c.region));
    numbers_["cube::callpath::parent::id"].push_back(cnode_id(c.parent));
  }
}

void CubeVariables::regions(const Model& model) {
  for (Index k : in_id_order(model.regions)) {
    const Region& r = model.regions[k];
    append_strings(strings_, r,
                   {{"cube::region::name", &Region::name},
                    {"cube::region::mangled::name", &Region::mangled_name},
                    {"cube::region::paradigm", &Region::paradigm},
                    {"cube::region::role", &Region::role},
                    {"cube::region::url", &Region::url},
                    {"cube::region::description", &Region::descr},
                    {"cube::region::mod", &Region::mod}});
    numbers_["cube::region::begin::line"].push_back(static_cast<double>(r.begin));
    numbers_["cube::region::end::line"].push_back(static_cast<double>(r.end));
  }
}

void CubeVariables::system(const Model& model) {
  const double groups_base = static_cast<double>(model.system_nodes.size());
  for (const SystemNode& n : model.system_nodes) {
    append_strings(strings_, n,
                   {{"cube::stn::name", &SystemNode::name},
                    {"cube::stn::class", &SystemNode::class_name},
                    {"cube::stn::description", &SystemNode::descr}});
    numbers_["cube::stn::#children"].push_back(static_cast<double>(n.children.size()));
    numbers_["cube::stn::#locationgroups"].push_back(static_cast<double>(n.groups.size()));
    numbers_["cube::stn::parent::id"].push_back(id_or_minus_one(n.parent));
    numbers_["cube::stn::parent::sysid"].push_back(id_or_minus_one(n.parent));
  }
  for (const LocationGroup& g : model.groups) {
    strings_["cube::locationgroup::name"].push_back(g.name);
    numbers_["cube::locationgroup::rank"].push_back(static_cast<double>(g.rank));
    numbers_["cube::locationgroup::type"].push_back(g.type.view().find("metric") !=
                                                    std::string::npos);
    numbers_["cube::locationgroup::void"].push_back(is_void(g.name));
    numbers_["cube::locationgroup::#locations"].push_back(static_cast<double>(g.locations.size()));
    numbers_["cube::locationgroup::parent::id"].push_back(id_or_minus_one(g.node));
    numbers_["cube::locationgroup::parent::sysid"].push_back(id_or_minus_one(g.node));
  }
  for (const Location& l : model.locations) {
    strings_["cube::location::name"].push_back(l.name);
    numbers_["cube::location::rank"].push_back(static_cast<double>(l.rank));
    numbers_["cube::location::type"].push_back(location_type(l.type));
    numbers_["cube::location::void"].push_back(is_void(l.name));
    numbers_["cube::location::parent::id"].push_back(id_or_minus_one(l.group));
    numbers_["cube::location::parent::sysid"].push_back(
        l.group == kNoIndex ? -1.0 : groups_base + static_cast<double>(l.group));
  }
}

void CubeVariables::counts(const Model& model) {
  auto count = [&](const char* name, size_t n) { numbers_[name] = {static_cast<double>(n)}; };
  count("cube::#mirrors", model.mirrors.size());
  count("cube::#metrics", std::count_if(model.metrics.begin(), model.metrics.end(),
                                        [](const Metric& m) { return !m.ghost; }));
  count("cube::#root::metrics", model.metric_roots().size());
  count("cube::#regions", model.regions.size());
  count("cube::#callpaths", model.cnodes.size());
  count("cube::#root::callpaths", model.cnode_roots().size());
  count("cube::#locations", model.locations.size());
  count("cube::#locationgroups", model.groups.size());
  count("cube::#stns", model.system_nodes.size());
  count("cube::#rootstns", model.system_roots().size());
  // "void" locations are those whose location group is named VOID (§7.4).
  size_t void_locations = 0;
  for (const Location& l : model.locations) {
    void_locations += l.group != kNoIndex && is_void(model.groups[l.group].name);
  }
  count("cube::#locations::void", void_locations);
  count("cube::#locations::nonvoid", model.locations.size() - void_locations);
  const size_t void_groups = std::count_if(model.groups.begin(), model.groups.end(),
                                           [](const LocationGroup& g) { return is_void(g.name); });
  count("cube::#locationgroups::void", void_groups);
  count("cube::#locationgroups::nonvoid", model.groups.size() - void_groups);
}

}  // namespace cubekit::cubepl
