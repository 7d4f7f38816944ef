// The models of the series /api/v1/model was asked about, so that a viewer clicking through
// the call paths of a series does not refit all of it (a second of CPU for 2,000 call paths ×
// 6 metrics) on every click.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "cubekit/perf_model.hpp"

namespace cubekit::server {

class SeriesModelCache {
 public:
  explicit SeriesModelCache(size_t entries = 4) : capacity_(entries) {}

  // The models of `series` with `options` (measure, scaling and hypotheses; the other options
  // keep model_series' defaults), fitted again when a report of it was added, removed, rewritten or
  // touched since (paths, sizes and modification times). Two requests for a series not cached
  // yet may both fit it.
  std::shared_ptr<const SeriesModels> get(const Series& series, const SeriesOptions& options = {});

 private:
  size_t capacity_;
  std::mutex lock_;
  // (fingerprint, models), most recently used first.
  std::list<std::pair<std::string, std::shared_ptr<const SeriesModels>>> entries_;
};

}  // namespace cubekit::server
