// The checks of `cube_sanity` (tools guide §1.5): region names, files and lines, measurement
// regions where they should not be, and negative metric values, in CubeLib 4.6's order. The
// checks report to a SanityReporter one test at a time, so that a report with millions of
// (metric, call path, location) values needs no memory for them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cubekit/derived.hpp"

namespace cubekit {

struct SanityOptions {
  bool negative_inclusive = true;  // -n turns it off
  bool negative_exclusive = true;  // -x turns it off
  bool line_numbers = true;        // -l turns it off
  // -f: shell patterns (fnmatch) no region name may match; empty: the check is not run.
  std::vector<std::string> filter_patterns;
};

class SanityReporter {
 public:
  virtual ~SanityReporter() = default;
  // A check begins: its name, its depth in the tree of checks (a check below another runs
  // after it), and how often the original shows progress (0: never).
  virtual void begin(const std::string& check, unsigned depth, size_t progress_every) = 0;
  // One test: `what` names it (built only when asked for), `why` says why it failed.
  virtual void test(const std::function<std::string()>& what, bool passed,
                    const std::string& why) = 0;
  virtual void end() = 0;
};

// Runs every check on the report behind `engine`:
//   Name not empty or UNKNOWN (per region, in the order the call tree first reaches them,
//   children first), then below it [Regions properly filtered], No ANONYMOUS functions, No
//   TRUNCATED functions, File name not empty (and below it Proper line numbers), No TRACING
//   outside Init and Finalize (per call path); then No negative inclusive metrics and No
//   negative exclusive metrics (per metric, call path and location: below −1e-12 fails).
void check_sanity(MetricEngine& engine, const SanityOptions& options, SanityReporter& reporter);

// A filter file's patterns: every word (whitespace-separated). Error when it cannot be read.
std::vector<std::string> read_filter_patterns(const std::string& path);

}  // namespace cubekit
