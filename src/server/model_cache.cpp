#include "server/model_cache.hpp"

#include <filesystem>

namespace cubekit::server {
namespace {

// Every report's path, size and modification time: a series changes only through these.
std::string fingerprint(const Series& series) {
  std::string out;
  for (const SeriesReport& r : series.reports) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(r.path, ec);
    const auto time = std::filesystem::last_write_time(r.path, ec);
    out += r.path + '\0' + std::to_string(size) + ':' +
           std::to_string(time.time_since_epoch().count()) + '\n';
  }
  return out;
}

}  // namespace

std::shared_ptr<const SeriesModels> SeriesModelCache::get(const Series& series,
                                                          const SeriesOptions& options) {
  SeriesOptions fitted;  // what the models depend on of the options asked for
  fitted.measure = options.measure;
  fitted.scaling = options.scaling;
  fitted.hypotheses = options.hypotheses;
  std::string key = std::to_string(static_cast<int>(fitted.measure)) + ' ' +
                    std::to_string(static_cast<int>(fitted.scaling));
  if (fitted.hypotheses) {
    for (const auto& [i, j] : fitted.hypotheses->exponents)
      key += ' ' + std::to_string(i) + '/' + std::to_string(j);
    key += " l";
    for (int l : fitted.hypotheses->log_exponents) key += ' ' + std::to_string(l);
  }
  key += '\n' + fingerprint(series);
  {
    std::lock_guard<std::mutex> guard(lock_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return it->second;
      }
  }
  auto models = std::make_shared<const SeriesModels>(model_series(series, fitted));
  std::lock_guard<std::mutex> guard(lock_);
  entries_.emplace_front(key, models);
  if (entries_.size() > capacity_) entries_.pop_back();
  return models;
}

}  // namespace cubekit::server
