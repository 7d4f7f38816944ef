// cubekit generate: writes a deterministic, realistic synthetic profile of any size (see
// cubekit/generator.hpp) and prints one line about it.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/perf_model.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

// "5GB", "200MB", "1.5G", "64KiB", "1000000" (bytes); decimal units, *iB binary.
std::optional<uint64_t> parse_size(const std::string& text) {
  size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  const bool binary = !unit.empty() && unit.back() == 'i';
  if (binary) unit.pop_back();
  static const std::string kPrefixes = "KMGT";
  double scale = 1;
  if (unit.size() > 1) return std::nullopt;
  if (unit.size() == 1) {
    const size_t power = kPrefixes.find(static_cast<char>(std::toupper(unit[0])));
    if (power == std::string::npos) return std::nullopt;
    scale = std::pow(binary ? 1024.0 : 1000.0, static_cast<double>(power + 1));
  } else if (binary) {
    return std::nullopt;
  }
  if (!(number > 0) || number * scale > 1e15) return std::nullopt;
  return static_cast<uint64_t>(number * scale);
}

// "main/solve:time=0.5*p^2" → call path main/solve (default main), metric time, expression.
SeriesLaw parse_law(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw Error("--law '" + text + "': expected [CALL/PATH:]METRIC=EXPRESSION");
  std::string head = text.substr(0, eq);
  SeriesLaw law;
  law.expression = text.substr(eq + 1);
  const size_t colon = head.rfind(':');
  std::string path = colon == std::string::npos ? "main" : head.substr(0, colon);
  law.metric = colon == std::string::npos ? head : head.substr(colon + 1);
  for (size_t start = 0;;) {
    const size_t slash = path.find('/', start);
    law.callpath.push_back(path.substr(start, slash - start));
    if (law.callpath.back().empty()) throw Error("--law '" + text + "': an empty region name");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (law.metric.empty()) throw Error("--law '" + text + "': no metric name");
  return law;
}

// "p=2,4,8" → parameter p at 2, 4, 8.
SeriesParameter parse_points(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--points '" + text + "': expected p=2,4,8");
  SeriesParameter parameter{text.substr(0, eq), {}};
  for (size_t start = eq + 1; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    size_t used = 0;
    try {
      parameter.values.push_back(std::stod(item, &used));
    } catch (const std::exception&) {
      used = std::string::npos;
    }
    if (used != item.size()) throw Error("--points '" + text + "': '" + item + "' is no number");
    start = comma + 1;
  }
  return parameter;
}

int generate_series(const std::string& folder, const std::vector<std::string>& laws,
                    const std::vector<std::string>& points, unsigned repetitions, double noise,
                    uint64_t seed) {
  try {
    SeriesSpec spec;
    if (points.empty()) throw Error("--series needs --points, e.g. --points p=2,4,8");
    SeriesParameter first = parse_points(points[0]);
    spec.parameter = first.name;
    spec.points = std::move(first.values);
    for (size_t i = 1; i < points.size(); ++i)
      spec.further_parameters.push_back(parse_points(points[i]));
    for (const std::string& law : laws) spec.laws.push_back(parse_law(law));
    spec.repetitions = repetitions;
    spec.noise = noise;
    spec.seed = seed;
    write_series(folder, spec);
    size_t grid = spec.points.size();
    for (const SeriesParameter& p : spec.further_parameters) grid *= p.values.size();
    std::printf("%s: %zu points × %u repetitions, %zu laws\n", folder.c_str(), grid, repetitions,
                spec.laws.size());
  } catch (const Error& e) {
    std::fprintf(stderr, "cubekit generate: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int generate_main(int argc, char** argv) {
  CLI::App app{"Writes a deterministic synthetic Score-P-like profile.", "cubekit generate"};
  GeneratorOptions o;
  std::string output, size;
  app.add_option("-o,--output", output, "report to write (.cubex)");
  std::string series;
  std::vector<std::string> points;
  std::vector<std::string> laws;
  unsigned repetitions = 1;
  double noise = 0;
  app.add_option("--series", series, "instead of -o: write a series with known laws here");
  app.add_option("--law", laws, "[CALL/PATH:]METRIC=EXPRESSION of the parameter (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--points", points,
                 "a parameter's points, e.g. p=2,4,8,16,32 (repeatable: the grid of several)")
      ->allow_extra_args(false);
  app.add_option("--repetitions", repetitions, "reports per point")->capture_default_str();
  app.add_option("--noise", noise, "relative noise of the series' values")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of every random choice")->capture_default_str();
  app.add_option("--call-paths", o.call_paths, "call paths (cnodes)")->capture_default_str();
  app.add_option("--depth", o.depth, "most call-tree levels")->capture_default_str();
  app.add_option("--fanout", o.fanout, "most children per call path")->capture_default_str();
  app.add_option("--machines", o.machines, "machines")->capture_default_str();
  app.add_option("--nodes", o.nodes_per_machine, "nodes per machine")->capture_default_str();
  app.add_option("--processes", o.processes_per_node, "MPI ranks per node")->capture_default_str();
  app.add_option("--threads", o.threads_per_process, "threads per rank")->capture_default_str();
  app.add_option("--gpus", o.gpu_streams_per_process, "GPU streams per rank")
      ->capture_default_str();
  app.add_option("--sparsity", o.sparsity, "share of communicating MPI call paths without bytes")
      ->capture_default_str();
  app.add_flag("--all-types", o.all_types, "one more metric of every other data type");
  app.add_flag("--papi", o.papi, "PAPI_TOT_INS and PAPI_FP_OPS");
  app.add_flag("--compress", o.compress, "ZCUBEX (deflated rows)");
  app.add_flag("--definitions-only", o.definitions_only,
               "no values at all: only the trees (to time opening huge anchors)");
  app.add_option("--size", size,
                 "about this much metric data (e.g. 5GB, 200MiB): picks call paths, then ranks "
                 "per node");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  if (series.empty() == output.empty()) {
    std::fprintf(stderr, "cubekit generate: give -o FILE or --series DIR (one of them)\n");
    return 1;
  }
  if (!series.empty()) return generate_series(series, laws, points, repetitions, noise, o.seed);
  if (!size.empty()) {
    const std::optional<uint64_t> bytes = parse_size(size);
    if (!bytes) {
      std::fprintf(stderr, "cubekit generate: --size '%s': expected a size such as 5GB\n",
                   size.c_str());
      return 1;
    }
    o = fit_to_size(o, *bytes, app.count("--call-paths") > 0);
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const GeneratedReport r = generate_report(output, o);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "%s: %zu call paths, %zu locations, %zu metrics, %llu bytes in %.2f s (%.1f MB/s)\n",
        output.c_str(), r.call_paths, r.locations, r.metrics,
        static_cast<unsigned long long>(r.file_bytes), seconds,
        static_cast<double>(r.file_bytes) / 1e6 / std::max(seconds, 1e-9));
  } catch (const Error& e) {
    std::fprintf(stderr, "cubekit generate: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace cubekit::tools
