#include "cubekit/flat_profile.hpp"

#include <algorithm>

#include "calc/kernels.hpp"
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

// Each region's call paths (indexed like Model::regions), in document pre-order (Model's).
std::vector<std::vector<Index>> calls_by_region(const Model& model) {
  std::vector<std::vector<Index>> calls(model.regions.size());
  for (Index c = 0; c < model.cnodes.size(); ++c) calls[model.cnodes[c].region].push_back(c);
  return calls;
}

// CubeLib adds up, as a region's "Subroutines", the exclusive values of every call path below one
// of the region's own call paths that belongs to another region, each call path once. Adding
// values, never subtracting exclusive from inclusive ones, keeps MIN/MAX types and recursion
// right (a region calling itself would count its callees twice) and leaves no rounding residues.
// These are those call paths of `region` (whose call paths are `calls`), in the order CubeLib
// adds them, which decides the last digits of a sum: the callees of another region of the
// region's call paths, then breadth first below them, never into a call path of the region
// (whose callees come in their own turn).
std::vector<Index> subroutine_call_paths(const Model& model, const std::vector<Index>& calls,
                                         Index region) {
  std::vector<Index> below;
  for (Index c : calls)
    for (Index callee : model.cnodes[c].children)
      if (model.cnodes[callee].region != region) below.push_back(callee);
  for (size_t i = 0; i < below.size(); ++i)
    for (Index callee : model.cnodes[below[i]].children)
      if (model.cnodes[callee].region != region) below.push_back(callee);
  return below;
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
  return flat_profile(engine, metric, metric_flavour, [&](Index k) {
    return engine.aggregated_values(k, Flavour::kInclusive, Flavour::kExclusive);
  });
}

FlatProfile flat_profile(MetricEngine& engine, Index metric, Flavour metric_flavour,
                         const std::function<Values(Index metric)>& inclusive_of) {
  const Model& model = engine.report().model();
  const std::vector<Index>& subs = engine.metric(metric).children;
  if (metric_flavour == Flavour::kInclusive || subs.empty())
    return flat_profile(model, inclusive_of(metric));
  // The call paths that add to each region's subroutines are the same for the metric and its
  // sub-metrics, and finding them is most of a profile's time: found once for all of them
  // (unless their lists would be huge, as the server bounds them).
  constexpr size_t kMaxShapeEntries = size_t{8} << 20;  // 32 MiB of call paths
  const std::optional<FlatProfileShape> shape = flat_profile_shape(model, kMaxShapeEntries);
  auto profile_of = [&](Index m) {
    return shape ? flat_profile(model, *shape, inclusive_of(m))
                 : flat_profile(model, inclusive_of(m));
  };
  FlatProfile out = profile_of(metric);
  for (Index k : subs) {
    const FlatProfile sub = profile_of(k);
    subtract_sub_metric(engine.report(), metric, k, out.exclusive, sub.exclusive);
    subtract_sub_metric(engine.report(), metric, k, out.subroutines, sub.subroutines);
  }
  return out;
}

FlatProfile flat_profile(const Model& model, const Values& per_cnode) {
  const std::vector<std::vector<Index>> calls = calls_by_region(model);
  Values subroutines(per_cnode.type(), model.regions.size());
  std::vector<bool> called(model.regions.size(), false), has_callees(model.regions.size(), false);
  for (Index r = 0; r < model.regions.size(); ++r) {
    called[r] = !calls[r].empty();
    for (Index c : subroutine_call_paths(model, calls[r], r)) {
      plus_rows(per_cnode.type(), subroutines.at(r), per_cnode.at(c), 1);
      has_callees[r] = true;
    }
  }
  return {regions_by_id(model), region_sums(model, per_cnode), std::move(subroutines),
          without_value(per_cnode.type(), called), without_value(per_cnode.type(), has_callees)};
}

std::optional<FlatProfileShape> flat_profile_shape(const Model& model, size_t max_entries) {
  const std::vector<std::vector<Index>> calls = calls_by_region(model);
  FlatProfileShape shape;
  shape.first.reserve(model.regions.size() + 1);
  shape.called.resize(model.regions.size());
  for (Index r = 0; r < model.regions.size(); ++r) {
    shape.first.push_back(shape.call_paths.size());
    shape.called[r] = !calls[r].empty();
    const std::vector<Index> below = subroutine_call_paths(model, calls[r], r);
    if (shape.call_paths.size() + below.size() > max_entries) return std::nullopt;
    shape.call_paths.insert(shape.call_paths.end(), below.begin(), below.end());
  }
  shape.first.push_back(shape.call_paths.size());
  return shape;
}

FlatProfile flat_profile(const Model& model, const FlatProfileShape& shape,
                         const Values& per_cnode) {
  Values subroutines(per_cnode.type(), model.regions.size());
  std::vector<bool> has_callees(model.regions.size(), false);
  for (Index r = 0; r < model.regions.size(); ++r) {
    for (size_t i = shape.first[r]; i < shape.first[r + 1]; ++i)
      plus_rows(per_cnode.type(), subroutines.at(r), per_cnode.at(shape.call_paths[i]), 1);
    has_callees[r] = shape.first[r + 1] > shape.first[r];
  }
  return {regions_by_id(model), region_sums(model, per_cnode), std::move(subroutines),
          without_value(per_cnode.type(), shape.called),
          without_value(per_cnode.type(), has_callees)};
}

namespace {

// location_flat_profile of the metric-inclusive values.
LocationFlatProfile inclusive_location_flat_profile(MetricEngine& engine, Index metric,
                                                    SubroutineRule rule) {
  const Flavour metric_flavour = Flavour::kInclusive;
  const Model& model = engine.report().model();
  LocationFlatProfile out;
  out.regions = regions_by_id(model);
  out.exclusive.resize(model.regions.size());
  out.subroutines.resize(model.regions.size());
  std::optional<DataType> type;  // of the values: known once a call path's came
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const Values excl = engine.location_values(metric, c, metric_flavour, Flavour::kExclusive);
    type = excl.type();
    add_to(out.exclusive[model.cnodes[c].region], excl);
  }
  // A call path's values are asked again for every region they add to, not kept: a report's
  // call paths × locations need not fit in memory.
  if (rule == SubroutineRule::kEachCallPathOnce) {
    const std::vector<std::vector<Index>> calls = calls_by_region(model);
    for (Index r = 0; r < model.regions.size(); ++r)
      for (Index c : subroutine_call_paths(model, calls[r], r))
        add_to(out.subroutines[r],
               engine.location_values(metric, c, metric_flavour, Flavour::kExclusive));
  }
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

}  // namespace

// Metric-exclusive: region by region, as the aggregated profile (flat_profile above).
LocationFlatProfile location_flat_profile(MetricEngine& engine, Index metric,
                                          Flavour metric_flavour, SubroutineRule rule) {
  LocationFlatProfile out = inclusive_location_flat_profile(engine, metric, rule);
  if (metric_flavour == Flavour::kExclusive)
    for (Index k : engine.metric(metric).children) {
      const LocationFlatProfile sub = inclusive_location_flat_profile(engine, k, rule);
      for (auto [into, from] : {std::pair{&out.exclusive, &sub.exclusive},
                                std::pair{&out.subroutines, &sub.subroutines}})
        for (Index r = 0; r < into->size(); ++r)
          if ((*into)[r] && (*from)[r])
            subtract_sub_metric(engine.report(), metric, k, *(*into)[r], *(*from)[r]);
    }
  return out;
}

}  // namespace cubekit
