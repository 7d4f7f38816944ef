// cubekit generate: writes a deterministic, realistic synthetic profile of any size (see
// cubekit/generator.hpp) and prints one line about it.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
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

}  // namespace

int generate_main(int argc, char** argv) {
  CLI::App app{"Writes a deterministic synthetic Score-P-like profile.", "cubekit generate"};
  GeneratorOptions o;
  std::string output, size;
  app.add_option("-o,--output", output, "report to write (.cubex)")->required();
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
