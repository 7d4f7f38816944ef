#include "cubekit/flat_profile.hpp"

#include <algorithm>

#include "cubekit/algebra.hpp"
#include "cubekit/calc.hpp"
#include "cubekit/value_text.hpp"

namespace cubekit {

namespace {

std::vector<Index> regions_by_id(const Model& model) {
  std::vector<Index> regions(model.regions.size());
  for (Index i = 0; i < regions.size(); ++i) regions[i] = i;
  std::stable_sort(regions.begin(), regions.end(),
                   [&](Index a, Index b) { return model.regions[a].id < model.regions[b].id; });
  return regions;
}

// into = into ⊕ x, or x when into is still empty.
void add_to(std::optional<Values>& into, const Values& x) {
  if (!into)
    into.emplace(x);
  else
    plus_rows(x.type(), into->data(), x.data(), x.size());
}

// CubeLib adds up, as a region's "Subroutines", the exclusive values of every call path below one
// of the region's own call paths that belongs to another region, each call path once: so a call
// path counts for every region on the path above it other than its own. Adding values, never
// subtracting exclusive from inclusive ones, keeps MIN/MAX types and recursion right (a region
// calling itself would count its callees twice) and leaves no rounding residues.
//
// Calls visit(cnode, regions) for every call path in document pre-order (Model's order), with
// the regions of the call paths above it, each once.
template <class Visit>
void walk_with_regions_above(const Model& model, Visit visit) {
  std::vector<uint32_t> on_path(model.regions.size(), 0);  // call paths of each region on it
  std::vector<Index> path;                                 // the current path's call paths
  std::vector<Index> path_regions;  // its regions, each once, in the order they came on it
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    while (!path.empty() && path.back() != model.cnodes[c].parent) {
      // The deepest occurrence leaves first, so a region leaving for good is the last one come.
      if (--on_path[model.cnodes[path.back()].region] == 0) path_regions.pop_back();
      path.pop_back();
    }
    visit(c, path_regions);
    path.push_back(c);
    if (on_path[model.cnodes[c].region]++ == 0) path_regions.push_back(model.cnodes[c].region);
  }
}

// Per region: whether CubeLib has no value where `added` says whether anything adds to it.
std::vector<bool> without_value(DataType type, const std::vector<bool>& added) {
  std::vector<bool> none(added.size(), false);
  if (!has_value_where_nothing_adds(type))
    for (Index r = 0; r < added.size(); ++r) none[r] = !added[r];
  return none;
}

std::string text_of(const Values& values, const std::vector<bool>& no_value, Index region) {
  return no_value[region] ? kNoValueText : value_text(values.type(), values.at(region));
}

}  // namespace

bool has_value_where_nothing_adds(DataType type) {
  return type.is_integer() || type.kind() == TypeKind::kDouble;
}

std::string exclusive_text(const FlatProfile& profile, Index region) {
  return text_of(profile.exclusive, profile.no_exclusive, region);
}

std::string subroutines_text(const FlatProfile& profile, Index region) {
  return text_of(profile.subroutines, profile.no_subroutines, region);
}

FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour) {
  return flat_profile(engine.report().model(),
                      engine.aggregated_values(metric, metric_flavour, Flavour::kExclusive));
}

FlatProfile flat_profile(const Model& model, const Values& per_cnode) {
  Values subroutines(per_cnode.type(), model.regions.size());
  std::vector<bool> called(model.regions.size(), false), has_callees(model.regions.size(), false);
  walk_with_regions_above(model, [&](Index c, const std::vector<Index>& above) {
    called[model.cnodes[c].region] = true;
    for (Index r : above)
      if (r != model.cnodes[c].region) {
        plus_rows(per_cnode.type(), subroutines.at(r), per_cnode.at(c), 1);
        has_callees[r] = true;
      }
  });
  return {regions_by_id(model), region_sums(model, per_cnode), std::move(subroutines),
          without_value(per_cnode.type(), called), without_value(per_cnode.type(), has_callees)};
}

LocationFlatProfile location_flat_profile(MetricEngine& engine, Index metric,
                                          Flavour metric_flavour, SubroutineRule rule) {
  const Model& model = engine.report().model();
  LocationFlatProfile out;
  out.regions = regions_by_id(model);
  out.exclusive.resize(model.regions.size());
  out.subroutines.resize(model.regions.size());
  std::optional<DataType> type;  // of the values: known once a call path's came
  walk_with_regions_above(model, [&](Index c, const std::vector<Index>& above) {
    const Index region = model.cnodes[c].region;
    const Values excl = engine.location_values(metric, c, metric_flavour, Flavour::kExclusive);
    type = excl.type();
    if (rule == SubroutineRule::kEachCallPathOnce)
      for (Index r : above)
        if (r != region) add_to(out.subroutines[r], excl);
    add_to(out.exclusive[region], excl);
  });
  if (rule == SubroutineRule::kDirectCalleesInclusive)
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      const Index region = model.cnodes[c].region;
      for (Index callee : model.cnodes[c].children)
        if (model.cnodes[callee].region != region)
          add_to(out.subroutines[region],
                 engine.location_values(metric, callee, metric_flavour, Flavour::kInclusive));
    }
  else if (type && has_value_where_nothing_adds(*type))
    for (auto* per_region : {&out.exclusive, &out.subroutines})
      for (std::optional<Values>& v : *per_region)
        if (!v) v.emplace(*type, model.locations.size());  // CubeLib's 0 of each location
  return out;
}

}  // namespace cubekit
