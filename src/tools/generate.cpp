// cubekit generate: writes a deterministic, realistic synthetic profile of any size (see
// cubekit/generator.hpp) and prints one line about it.
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

// The options, as data (command_line.hpp); -h/--help prints them.
OptionTable generate_options() {
  OptionTable table{{
      long_option('o', "output", "FILE", "report to write (.cubex)", {}, 1, true),
      long_option('S', "series", "DIR", "instead of -o: write a series with known laws here"),
      long_option('l', "law", "[CALL/PATH:]METRIC=EXPRESSION",
                  "a law of the series' values (repeatable)"),
      long_option('x', "points", "NAME=V1,V2,...",
                  "a parameter's points, e.g. p=2,4,8,16,32 (repeatable: the grid of several)"),
      long_option('R', "repetitions", "N", "reports per point (1)"),
      long_option('n', "noise", "X", "relative noise of the series' values (0)"),
      long_option('s', "seed", "N", "seed of every random choice (1)"),
      long_option('c', "call-paths", "N", "call paths (5000)"),
      long_option('d', "depth", "N", "most call-tree levels (12)"),
      long_option('f', "fanout", "N", "most children per call path (8)"),
      long_option('m', "machines", "N", "machines (1)"),
      long_option('N', "nodes", "N", "nodes per machine (2)"),
      long_option('p', "processes", "N", "MPI ranks per node (4)"),
      long_option('t', "threads", "N", "threads per rank (4)"),
      long_option('g', "gpus", "N", "GPU streams per rank (0)"),
      long_option('y', "sparsity", "X",
                  "share of communicating MPI call paths without bytes (0.25)"),
      long_option('a', "all-types", nullptr, "one more metric of every other data type"),
      long_option('P', "papi", nullptr, "PAPI_TOT_INS and PAPI_FP_OPS"),
      long_option('z', "compress", nullptr, "ZCUBEX (deflated rows)"),
      long_option('D', "definitions-only", nullptr,
                  "no values at all: only the trees (to time opening huge anchors)"),
      long_option('Z', "size", "SIZE",
                  "about this much metric data (e.g. 5GB, 200MiB): picks call paths, then ranks "
                  "per node"),
  }};
  table.long_options = true;
  table.program = "cubekit generate";
  add_long_help(table,
                "usage: cubekit generate [options] -o FILE | --series DIR --law ... --points ...\n"
                "Writes a deterministic synthetic Score-P-like profile.\n");
  table.operands =
      OperandCount{0, 0, failure("cubekit generate: takes no operands (see --help)\n")};
  return table;
}

// What the command line asks for.
struct GenerateRequest {
  GeneratorOptions o;
  bool call_paths_given = false;
  std::string output, size, series;
  std::vector<std::string> points, laws;
  unsigned repetitions = 1;
  double noise = 0;
};

GenerateRequest read_generate_options(int argc, char** argv) {
  const OptionTable table = generate_options();
  GenerateRequest r;
  const auto whole = [&table](const char* option, const char* value, uint64_t max = SIZE_MAX) {
    return whole_number_argument(table, option, value, 0, max);
  };
  parse_command_line(table, argc, argv, [&](char key, const char* value) {
    if (key == 'o') r.output = value;
    if (key == 'S') r.series = value;
    if (key == 'l') r.laws.push_back(value);
    if (key == 'x') r.points.push_back(value);
    if (key == 'R') r.repetitions = unsigned(whole("--repetitions", value, UINT32_MAX));
    if (key == 'n') r.noise = number_argument(table, "--noise", value);
    if (key == 's') r.o.seed = whole("--seed", value, UINT64_MAX);
    if (key == 'c') r.o.call_paths = whole("--call-paths", value);
    if (key == 'c') r.call_paths_given = true;
    if (key == 'd') r.o.depth = whole("--depth", value);
    if (key == 'f') r.o.fanout = whole("--fanout", value);
    if (key == 'm') r.o.machines = whole("--machines", value);
    if (key == 'N') r.o.nodes_per_machine = whole("--nodes", value);
    if (key == 'p') r.o.processes_per_node = whole("--processes", value);
    if (key == 't') r.o.threads_per_process = whole("--threads", value);
    if (key == 'g') r.o.gpu_streams_per_process = whole("--gpus", value);
    if (key == 'y') r.o.sparsity = number_argument(table, "--sparsity", value);
    if (key == 'a') r.o.all_types = true;
    if (key == 'P') r.o.papi = true;
    if (key == 'z') r.o.compress = true;
    if (key == 'D') r.o.definitions_only = true;
    if (key == 'Z') r.size = value;
  });
  return r;
}

}  // namespace

int generate_main(int argc, char** argv) {
  GenerateRequest q = read_generate_options(argc, argv);
  if (q.series.empty() == q.output.empty()) {
    std::fprintf(stderr, "cubekit generate: give -o FILE or --series DIR (one of them)\n");
    return 1;
  }
  if (!q.series.empty())
    return generate_series(q.series, q.laws, q.points, q.repetitions, q.noise, q.o.seed);
  if (!q.size.empty()) {
    const std::optional<uint64_t> bytes = parse_size(q.size);
    if (!bytes) {
      std::fprintf(stderr, "cubekit generate: --size '%s': expected a size such as 5GB\n",
                   q.size.c_str());
      return 1;
    }
    q.o = fit_to_size(q.o, *bytes, q.call_paths_given);
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const GeneratedReport r = generate_report(q.output, q.o);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "%s: %zu call paths, %zu locations, %zu metrics, %llu bytes in %.2f s (%.1f MB/s)\n",
        q.output.c_str(), r.call_paths, r.locations, r.metrics,
        static_cast<unsigned long long>(r.file_bytes), seconds,
        static_cast<double>(r.file_bytes) / 1e6 / std::max(seconds, 1e-9));
  } catch (const Error& e) {
    std::fprintf(stderr, "cubekit generate: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace cubekit::tools
