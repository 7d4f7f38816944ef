#include "algebra/region_lookup.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "cubekit/report_algebra.hpp"

namespace cubekit {
namespace {

// Of the fields same_region compares.
size_t region_hash(const Region& r) {
  size_t h = std::hash<std::string>()(r.name);
  for (size_t part : {std::hash<std::string>()(r.mod), std::hash<int64_t>()(r.begin),
                      std::hash<int64_t>()(r.end)})
    h ^= part + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

Index RegionLookup::find(const Region& region) {
  for (; indexed_ < model_.regions.size(); ++indexed_)
    by_hash_.emplace(region_hash(model_.regions[indexed_]), static_cast<Index>(indexed_));
  Index first = kNoIndex;
  const auto [begin, end] = by_hash_.equal_range(region_hash(region));
  for (auto it = begin; it != end; ++it)
    if (it->second < first && same_region(model_.regions[it->second], region)) first = it->second;
  return first;
}

}  // namespace cubekit
