// Reports the server has open: each opened on its first request, kept while the sizes of the
// open files fit the cache, closed least recently used first. Also bounds what one request may
// decode (413) and what all requests decode together (503).
#pragma once

#include <cstdint>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cubekit/calc.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/report.hpp"

namespace cubekit::server {

// What a values question names: a metric by unique name or as a CubePL expression, and the
// metric-tree and call-tree flavours.
struct MetricQuery {
  std::string metric;
  Flavour metric_flavour = Flavour::kInclusive;
  Flavour call_flavour = Flavour::kInclusive;
};

// Memory that requests decoding values hold at the same time.
class DecodeBudget {
 public:
  DecodeBudget(uint64_t per_request, uint64_t total) : per_request_(per_request), total_(total) {}
  class Claim {
   public:
    Claim(DecodeBudget* owner, uint64_t bytes) : owner_(owner), bytes_(bytes) {}
    Claim(Claim&& other) noexcept : owner_(other.owner_), bytes_(other.bytes_) {
      other.owner_ = nullptr;
    }
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim();

   private:
    DecodeBudget* owner_;
    uint64_t bytes_;
  };
  // HttpError 413 above the per-request limit, 503 when the total is in use.
  Claim claim(uint64_t bytes);

 private:
  uint64_t per_request_, total_, in_use_ = 0;
  std::mutex mutex_;
};

// One open report and the aggregated values already asked for.
class OpenReport {
 public:
  OpenReport(Report report, std::string name, DecodeBudget& budget);
  const Model& model() const { return report_.model(); }
  const std::string& name() const { return name_; }  // relative path, for messages

  // One value per cnode (indexed like Model::cnodes), summed over all locations; cached.
  std::shared_ptr<const std::vector<double>> aggregated(const MetricQuery& q);
  // One value per location (indexed by location id) for one cnode.
  std::vector<double> per_location(const MetricQuery& q, Index cnode);
  // Flat profile: per region (indexed like Model::regions) the exclusive and inclusive values
  // (cubekit/flat_profile.hpp).
  struct RegionValues {
    std::vector<double> exclusive, subroutines;
  };
  RegionValues flat(const MetricQuery& q);
  // Display name of the metric a query names (the expression itself for expressions).
  std::string metric_name(const std::string& metric);
  // The report itself, for library calls that take reports (POP metrics); whoever decodes
  // through it claims the budget first (claim_cells).
  const Report& report() const { return report_; }
  // Claims the decode budget for `matrices` matrices of doubles of this report's size.
  DecodeBudget::Claim claim_cells(uint64_t matrices);

 private:
  struct Target {
    MetricEngine* engine;
    Index metric;
  };
  Target target(const std::string& metric);  // HttpError 400 for a bad expression
  // aggregated() as the engine gives it (typed), cached: what is derived from it (the flat
  // profile) then does not wait for the engine while it decodes something else.
  std::shared_ptr<const Values> aggregated_values(const MetricQuery& q);
  DecodeBudget::Claim claim(const Target& t);
  MetricEngine& engine();

  Report report_;
  std::string name_;
  DecodeBudget& budget_;
  std::mutex mutex_;  // guards the maps below, not the engines (they lock themselves)
  std::unique_ptr<MetricEngine> engine_;
  std::map<std::string, std::unique_ptr<MetricEngine>> expression_engines_;
  std::map<std::string, std::shared_ptr<const Values>> aggregated_;
};

class ReportCache {
 public:
  ReportCache(uint64_t capacity_bytes, DecodeBudget& budget)
      : capacity_(capacity_bytes), budget_(budget) {}
  // The open report of a resolved file, opened now if needed. Library errors about the file
  // become HttpError 422 with the message (naming `name`, the path relative to the root).
  std::shared_ptr<OpenReport> get(const std::filesystem::path& file, const std::string& name);

 private:
  struct Entry {
    std::filesystem::path file;
    uint64_t size;
    std::shared_ptr<OpenReport> report;
  };
  uint64_t capacity_;
  DecodeBudget& budget_;
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
};

}  // namespace cubekit::server
