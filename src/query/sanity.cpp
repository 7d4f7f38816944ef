// cube_sanity's checks (sanity.hpp) with CubeLib 4.6's rules, names and messages.
#include "cubekit/sanity.hpp"

#include <fnmatch.h>

#include <cfloat>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "calc/kernels.hpp"
#include "cubekit/algebra.hpp"
#include "cubekit/error.hpp"
#include "cubekit/info_tree.hpp"

namespace cubekit {
namespace {

constexpr double kNegative = -1e-12;  // the original's threshold

// A MAXDOUBLE value at its identity (−DBL_MAX) says that nothing was measured there, not that a
// negative value was: CubeLib 4.6 counts it negative (docs/compatibility.md), cubekit does not.
bool is_negative(DataType type, double value) {
  if (type.kind() == TypeKind::kMaxDouble && value == -DBL_MAX) return false;
  return value < kNegative;
}

using RegionRule = std::function<std::string(const Region&)>;  // "" passes, else why not

// A check per region, each region once, in the order the call tree reaches them (children
// first, as CubeLib's traversal goes).
void check_regions(const Model& model, const std::vector<Index>& order, const std::string& name,
                   unsigned depth, const RegionRule& rule, SanityReporter& reporter) {
  reporter.begin(name, depth, 0);
  std::vector<bool> seen(model.regions.size(), false);
  for (Index c : order) {
    const Index r = model.cnodes[c].region;
    if (seen[r]) continue;
    seen[r] = true;
    const Region& region = model.regions[r];
    const std::string why = rule(region);
    reporter.test([&] { return "\"" + region.name + "\""; }, why.empty(),
                  why.empty() ? why
                              : "In region with id " + std::to_string(region.id) +
                                    " (Name: " + region.name + ")\n" + why);
  }
  reporter.end();
}

// The call path as the original's backtrace shows it (without metric columns): the call
// path, then each caller.
std::string call_path_text(const Model& model, Index cnode) {
  std::string text = "Call path\n";
  for (Index c = cnode; c != kNoIndex; c = model.cnodes[c].parent) {
    const Region& r = model.regions[model.cnodes[c].region];
    text += std::string(c == cnode ? "           " : " called by ") + r.name + " (File: " + r.mod +
            ", Line: " + std::to_string(r.begin) + ")\n";
  }
  return text;
}

void check_tracing(const Model& model, const std::vector<Index>& order, SanityReporter& reporter) {
  reporter.begin("No TRACING outside Init and Finalize", 1, 0);
  for (Index c : order) {
    const std::string& name = model.regions[model.cnodes[c].region].name;
    std::string why;
    if (name == "TRACING") {
      const Index parent = model.cnodes[c].parent;
      // A root TRACING has no caller at all (the original crashes there).
      const std::string caller =
          parent == kNoIndex ? "" : model.regions[model.cnodes[parent].region].name;
      if (caller != "MPI_Init" && caller != "MPI_Finalize")
        why = "In call node with id " + std::to_string(model.cnodes[c].id) + " (Name: " + name +
              ")\n" + call_path_text(model, c) +
              "Found TRACING outside MPI_Init and MPI_Finalize.\nParent's name is " +
              (parent == kNoIndex ? "(none: a root)" : caller);
    }
    reporter.test([&] { return "\"" + name + "\""; }, why.empty(), why);
  }
  reporter.end();
}

// Per metric, call path and location: the value must not be below −1e-12.
void check_negative(MetricEngine& engine, bool inclusive, SanityReporter& reporter) {
  const Model& model = engine.report().model();
  const std::string name =
      inclusive ? "No negative inclusive metrics" : "No negative exclusive metrics";
  reporter.begin(name, 0, 10000);
  for (Index m = 0; m < model.metrics.size(); ++m) {
    const std::string& metric = model.metrics[m].uniq_name;
    size_t count = 0;  // the original's test number within the metric
    const auto check_row = [&](Index c, DataType type, const std::byte* row, size_t stride) {
      for (size_t l = 0; l < model.locations.size(); ++l) {
        const size_t test = ++count;
        const double value = scalar(type, row + l * stride);
        std::string why;
        if (is_negative(model.metrics[m].dtype, value))
          why = std::string(inclusive ? "metric: " : "exclusive metric: ") + metric +
                ", cnode: " + model.regions[model.cnodes[c].region].name +
                " (id: " + std::to_string(model.cnodes[c].id) +
                "), thread id: " + std::to_string(model.locations[l].id) + " is negative.";
        // The name's parts behind one reference: a closure of one pointer lives inside the
        // std::function, where four references cost a heap block per test (73 million tests
        // for a report of 382,000 call paths: a fifth of cube_sanity's time in malloc/free).
        const struct {
          const std::string &check, &metric;
          size_t test, location;
        } parts{name, metric, test, l + 1};
        reporter.test(
            [&parts] {
              return parts.check + " :: " + parts.metric + " :: " + std::to_string(parts.test) +
                     " :: " + std::to_string(parts.location);
            },
            why.empty(), why);
      }
    };
    // Inclusive: metric and call path inclusive; exclusive: both exclusive. A stored metric's
    // inclusive rows come from one pass over its rows, not one per call path.
    if (inclusive && !is_derived(model.metrics[m].kind)) {
      const DataType type = model.metrics[m].dtype;
      visit_inclusive_rows(engine.report(), m, [&](Index c, const std::byte* row) {
        check_row(c, type, row, type.memory_size());
      });
      continue;
    }
    const Flavour flavour = inclusive ? Flavour::kInclusive : Flavour::kExclusive;
    for (Index c = 0; c < model.cnodes.size(); ++c) {
      const Values v = engine.location_values(m, c, flavour, flavour);
      check_row(c, v.type(), v.data(), v.stride());
    }
  }
  reporter.end();
}

std::string name_rule(const Region& r) {
  if (r.name.empty()) return "The region's name is empty.";
  if (r.name == "UNKNOWN") return "The region's name is UNKNOWN.";
  return "";
}

std::string line_rule(const Region& r) {
  if (r.begin < 0 && r.end < 0) return "Begin and end line numbers are negative.";
  if (r.begin < 0) return "Begin line number is negative.";
  if (r.end < 0) return "End line number is negative.";
  return "";
}

}  // namespace

std::vector<std::string> read_filter_patterns(const std::string& path) {
  // A device or pipe (/dev/zero) could feed one endless word: only files are read.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(path + ": the filter file is not a regular file");
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the filter file");
  std::vector<std::string> patterns;
  for (std::string word; in >> word;) patterns.push_back(word);
  return patterns;
}

void check_sanity(MetricEngine& engine, const SanityOptions& options, SanityReporter& reporter) {
  const Model& model = engine.report().model();
  const std::vector<Index> order = CallForest::whole(model).post_order();
  check_regions(model, order, "Name not empty or UNKNOWN", 0, name_rule, reporter);
  if (!options.filter_patterns.empty())
    check_regions(
        model, order, "Regions properly filtered.", 1,
        [&](const Region& r) -> std::string {
          for (const std::string& p : options.filter_patterns)
            if (fnmatch(p.c_str(), r.name.c_str(), 0) == 0) return "Filter matches region.";
          return "";
        },
        reporter);
  check_regions(
      model, order, "No ANONYMOUS functions", 1,
      [](const Region& r) -> std::string {
        return r.name.rfind("ANONYMOUS@", 0) == 0 ? "cube::Region's name is \"ANONYMOUS\"." : "";
      },
      reporter);
  check_regions(
      model, order, "No TRUNCATED functions", 1,
      [](const Region& r) -> std::string {
        return r.name.find("TRUNCATED") != std::string::npos
                   ? "The region's name contains the std::string \"TRUNCATED\"."
                   : "";
      },
      reporter);
  check_regions(
      model, order, "File name not empty", 1,
      [](const Region& r) -> std::string {
        return r.mod.empty() ? "The region's file name is empty." : "";
      },
      reporter);
  if (options.line_numbers)
    check_regions(model, order, "Proper line numbers", 2, line_rule, reporter);
  check_tracing(model, order, reporter);
  if (options.negative_inclusive) check_negative(engine, true, reporter);
  if (options.negative_exclusive) check_negative(engine, false, reporter);
}

}  // namespace cubekit
