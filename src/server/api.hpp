// The JSON API of `cubekit serve` (docs/server.md), independent of the HTTP library: each
// endpoint takes the request's query parameters and returns the JSON text of a 200 answer, or
// throws HttpError.
#pragma once

#include <map>
#include <string>

#include "server/confinement.hpp"
#include "server/model_cache.hpp"
#include "server/report_cache.hpp"
#include "server/source_files.hpp"

namespace cubekit::server {

using Params = std::multimap<std::string, std::string>;

class Api {
 public:
  Api(const Confinement& confinement, ReportCache& cache, const SourceFiles& sources)
      : confinement_(confinement), cache_(cache), sources_(sources) {}

  std::string reports(const Params& p);
  std::string tree(const Params& p);
  std::string source(const Params& p);
  std::string children(const Params& p);
  std::string search(const Params& p);
  std::string values(const Params& p);
  std::string flat(const Params& p);
  std::string callgraph(const Params& p);
  std::string flame(const Params& p);
  std::string path(const Params& p);
  std::string statistics(const Params& p);
  std::string diff(const Params& p);
  std::string pop(const Params& p);
  std::string model(const Params& p);

  // The report with derived metrics added (derived_report.cpp): a file to download.
  struct Download {
    std::string file_name;
    std::string bytes;
  };
  Download derived_report(const Params& p);

 private:
  std::shared_ptr<OpenReport> open(const Params& p, const char* key = "report");
  const Confinement& confinement_;
  ReportCache& cache_;
  const SourceFiles& sources_;
  SeriesModelCache models_;
};

}  // namespace cubekit::server
