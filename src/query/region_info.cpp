// Region kinds, trace buffer costs and per-region sums (region_info.hpp), with the rules of
// CubeLib 4.6's cube_regioninfo: its region classification, its table of event record sizes
// and its filter file reading.
#include "cubekit/region_info.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cubekit/error.hpp"

namespace cubekit {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Scalasca's kinds of event records, by region name.
enum class RecordKind {
  kUser,
  kCollective,
  kSend,
  kReceive,
  kSendReceive,
  kMpi,
  kOmp,
  kFork,
  kLock,
  kCritical,
  kRmaOperation,
  kRmaGats,
  kRmaCollective,
  kRmaLock,
  kRmaUnlock
};

bool is_mpi_collective(const std::string& r) {
  static const char* const kNames[] = {
      "mpi_allgather", "mpi_allgatherv", "mpi_allreduce", "mpi_alltoall",
      "mpi_alltoallv", "mpi_alltoallw",  "mpi_bcast",     "mpi_exscan",
      "mpi_gather",    "mpi_gatherv",    "mpi_reduce",    "mpi_reduce_scatter",
      "mpi_scan",      "mpi_scatter",    "mpi_scatterv",  "mpi_reduce_scatter_block",
      "mpi_barrier"};
  return std::find(std::begin(kNames), std::end(kNames), r) != std::end(kNames);
}

RecordKind mpi_record_kind(const std::string& r) {
  if (is_mpi_collective(r)) return RecordKind::kCollective;
  if (r == "mpi_get" || r == "mpi_put" || r == "mpi_accumulate") return RecordKind::kRmaOperation;
  if (r == "mpi_win_fence" || r == "mpi_win_create" || r == "mpi_win_free")
    return RecordKind::kRmaCollective;
  if (r == "mpi_win_post" || r == "mpi_win_wait" || r == "mpi_win_start" || r == "mpi_win_complete")
    return RecordKind::kRmaGats;
  if (r == "mpi_win_lock") return RecordKind::kRmaLock;
  if (r == "mpi_win_unlock") return RecordKind::kRmaUnlock;
  if (starts_with(r, "mpi_sendrecv")) return RecordKind::kSendReceive;
  if (r.find("send") != std::string::npos || r.find("start") != std::string::npos)
    return RecordKind::kSend;
  if (r.find("recv") != std::string::npos) return RecordKind::kReceive;
  return RecordKind::kMpi;
}

RecordKind record_kind(const std::string& name) {
  const std::string r = lower(name);
  if (r.size() <= 4) return RecordKind::kUser;
  if (starts_with(r, "mpi_")) return mpi_record_kind(r);
  // The OpenMP tests look at the name as written (CubeLib's reading).
  if (starts_with(name, "omp_"))
    return name.find("lock", 4) != std::string::npos ? RecordKind::kLock : RecordKind::kOmp;
  if (starts_with(name, "!$omp")) {
    const std::string construct = name.substr(5, name.find('@', 5) - 5);
    if (construct.find("parallel") != std::string::npos) return RecordKind::kFork;
    if (construct.find("critical") != std::string::npos) return RecordKind::kCritical;
    return RecordKind::kOmp;
  }
  return RecordKind::kUser;
}

template <class T>
void add_by_kind(KindTotals<T>& t, RegionKind kind, bool filtered, T v) {
  t.all += v;
  if (kind == RegionKind::kMpi) t.mpi += v;
  if (kind == RegionKind::kCommunication) t.com += v;
  if (kind == RegionKind::kUser) t.usr += v;
  if (filtered) {
    t.filtered += v;
    return;
  }
  t.all_kept += v;
  if (kind == RegionKind::kMpi) t.mpi_kept += v;
  if (kind == RegionKind::kCommunication) t.com_kept += v;
  if (kind == RegionKind::kUser) t.usr_kept += v;
}

bool is_filtered(const std::vector<bool>& filtered, Index region) {
  return !filtered.empty() && filtered[region];
}

}  // namespace

std::vector<RegionKind> region_kinds(const Model& model) {
  std::vector<RegionKind> kinds(model.regions.size(), RegionKind::kUser);
  for (Index r = 0; r < model.regions.size(); ++r) {
    const std::string& descr = model.regions[r].descr;
    if (descr == "MPI") kinds[r] = RegionKind::kMpi;
    if (descr == "OMP") kinds[r] = RegionKind::kOmp;
    if (descr == "EPIK") kinds[r] = RegionKind::kMeasurement;
  }
  const std::vector<CallPathKind> paths = call_path_kinds(model);
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    RegionKind& kind = kinds[model.cnodes[c].region];
    if (paths[c] == CallPathKind::kCommunication &&
        (kind == RegionKind::kUser || kind == RegionKind::kCommunication))
      kind = RegionKind::kCommunication;
  }
  return kinds;
}

const char* region_kind_name(RegionKind kind) {
  switch (kind) {
    case RegionKind::kMpi:
      return "MPI";
    case RegionKind::kOmp:
      return "OMP";
    case RegionKind::kCommunication:
      return "COM";
    case RegionKind::kMeasurement:
      return "EPK";
    case RegionKind::kUser:
      break;
  }
  return "USR";
}

uint64_t trace_record_bytes(const std::string& name) {
  switch (record_kind(name)) {
    case RecordKind::kCollective:
      return 40;
    case RecordKind::kSend:
      return 50;
    case RecordKind::kReceive:
      return 46;
    case RecordKind::kSendReceive:
    case RecordKind::kRmaOperation:
      return 72;
    case RecordKind::kFork:
    case RecordKind::kCritical:
    case RecordKind::kRmaUnlock:
      return 44;
    case RecordKind::kLock:
      return 34;
    case RecordKind::kRmaGats:
      return 33;
    case RecordKind::kRmaCollective:
      return 28;
    case RecordKind::kRmaLock:
      return 45;
    case RecordKind::kUser:
    case RecordKind::kMpi:
    case RecordKind::kOmp:
      break;
  }
  return 24;
}

std::vector<bool> filtered_regions(const Model& model, const std::vector<RegionKind>& kinds,
                                   const std::string& list_file,
                                   const std::function<void(const std::string&)>& warning) {
  // A device or pipe (/dev/zero) could feed one endless line: only files are read.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(list_file, ec))
    throw Error(list_file + ": the filter list is not a regular file");
  std::ifstream in(list_file);
  if (!in) throw Error(list_file + ": cannot open the filter list");
  std::vector<std::string> patterns;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string pattern;
    if (!(words >> pattern) || pattern[0] == '#') continue;
    if (pattern.size() > 1023) continue;  // CubeLib's limit
    patterns.push_back(pattern);
  }
  auto tell = [&](const std::string& text) {
    if (warning) warning(text);
  };
  std::vector<bool> filtered(model.regions.size(), false);
  for (Index r = 0; r < model.regions.size(); ++r) {
    const std::string& name = model.regions[r].name;
    const auto match = std::find_if(patterns.begin(), patterns.end(), [&](const std::string& p) {
      return fnmatch(p.c_str(), name.c_str(), 0) == 0;
    });
    if (match == patterns.end()) continue;
    const RegionKind kind = kinds[r];
    if (kind == RegionKind::kMpi || kind == RegionKind::kOmp) {
      tell("Warning: Filter matches region \"" + name + "\" of type " + region_kind_name(kind) +
           " which cannot be filtered.");
      continue;
    }
    if (kind == RegionKind::kMeasurement) {
      tell("Warning: Filter contains measurement-related region \"" + name +
           "\" which cannot be filtered.");
      continue;
    }
    if (kind == RegionKind::kCommunication)
      tell(*match == name
               ? "Warning: Filter contains region \"" + name + "\" of type COM"
               : "Warning: Filter \"" + *match + "\" matches region \"" + name + "\" of type COM");
    filtered[r] = true;
  }
  return filtered;
}

TraceCosts trace_costs(MetricEngine& engine, const std::vector<RegionKind>& kinds,
                       const std::vector<bool>& filtered) {
  const Model& model = engine.report().model();
  const auto visits = model.metric_by_uniq_name("visits");
  if (!visits)
    throw LookupError(engine.report().path() + ": no metric 'visits' for the trace buffer costs");
  const size_t locations = model.locations.size();
  TraceCosts costs;
  costs.total_by_region.assign(model.regions.size(), 0);
  costs.max_by_region.assign(model.regions.size(), 0);
  // Per location: the sums by kind (their largest is `max`); per region and location.
  std::vector<KindTotals<uint64_t>> per_location(locations);
  std::vector<std::vector<uint64_t>> region_location(model.regions.size(),
                                                     std::vector<uint64_t>(locations, 0));
  const Values summed = engine.aggregated_values(*visits, Flavour::kExclusive, Flavour::kExclusive);
  for (Index c = 0; c < model.cnodes.size(); ++c) {
    const Index r = model.cnodes[c].region;
    const uint64_t bytes = trace_record_bytes(model.regions[r].name);
    const Values v = engine.location_values(*visits, c, Flavour::kExclusive, Flavour::kExclusive);
    for (size_t l = 0; l < locations; ++l) {
      const uint64_t cost = static_cast<uint64_t>(v.scalar(l)) * bytes;
      region_location[r][l] += cost;
      costs.total_by_region[r] += cost;
      add_by_kind(per_location[l], kinds[r], is_filtered(filtered, r), cost);
    }
    // The totals take the visits summed over locations first, as CubeLib does.
    add_by_kind(costs.total, kinds[r], is_filtered(filtered, r),
                static_cast<uint64_t>(summed.scalar(c)) * bytes);
  }
  for (Index r = 0; r < model.regions.size(); ++r)
    for (uint64_t cost : region_location[r])
      costs.max_by_region[r] = std::max(costs.max_by_region[r], cost);
  for (const KindTotals<uint64_t>& t : per_location) {
    KindTotals<uint64_t>& m = costs.max;
    for (auto field :
         {&KindTotals<uint64_t>::all, &KindTotals<uint64_t>::mpi, &KindTotals<uint64_t>::usr,
          &KindTotals<uint64_t>::com, &KindTotals<uint64_t>::filtered,
          &KindTotals<uint64_t>::all_kept, &KindTotals<uint64_t>::mpi_kept,
          &KindTotals<uint64_t>::usr_kept, &KindTotals<uint64_t>::com_kept})
      m.*field = std::max(m.*field, t.*field);
  }
  return costs;
}

RegionValues region_values(MetricEngine& engine, Index metric, const std::vector<RegionKind>& kinds,
                           const std::vector<bool>& filtered) {
  const Model& model = engine.report().model();
  const Values v = engine.aggregated_values(metric, Flavour::kInclusive, Flavour::kExclusive);
  RegionValues out;
  out.exclusive.assign(model.regions.size(), 0.0);
  for (Index c = 0; c < model.cnodes.size(); ++c)
    out.exclusive[model.cnodes[c].region] += v.scalar(c);
  for (Index r = 0; r < model.regions.size(); ++r)
    add_by_kind(out.totals, kinds[r], is_filtered(filtered, r), out.exclusive[r]);
  return out;
}

}  // namespace cubekit
