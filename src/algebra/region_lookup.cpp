#include "algebra/region_lookup.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "cubekit/report_algebra.hpp"

namespace cubekit {

size_t hash_combine(size_t seed, size_t part) {
  return seed ^ (part + 0x9e3779b97f4a7c15u + (seed << 6) + (seed >> 2));
}

size_t region_hash(const Region& r) {
  size_t h = std::hash<std::string>()(r.name);
  for (size_t part : {std::hash<std::string>()(r.mod), std::hash<int64_t>()(r.begin),
                      std::hash<int64_t>()(r.end)})
    h = hash_combine(h, part);
  return h;
}

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
