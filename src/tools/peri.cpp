// cubekit export-peri: a report as PERI-XML (docs/peri-xml.md); the library writes it
// (cubekit/peri_xml.hpp). The file appears whole or not at all (cubekit/atomic_file.hpp).
#include <filesystem>
#include <iostream>
#include <string>

#include "cubekit/atomic_file.hpp"
#include "cubekit/peri_xml.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: cubekit export-peri [-h] [-o out.xml] <report>\n"
    "  Writes the report as PERI-XML: metrics (each as inclusive and exclusive), code (sources,\n"
    "  regions, the call tree), space (machines, processes, threads, mappings, topologies),\n"
    "  states (call-path parameters) and the data. Default output: <report stem>.peri.xml\n";

std::string default_output(const std::string& input) {
  std::string stem = std::filesystem::path(input).filename().string();
  for (const char* ext : {".cubex", ".cube.gz", ".cube"})
    if (stem.size() > std::string(ext).size() && stem.ends_with(ext)) {
      stem.resize(stem.size() - std::string(ext).size());
      break;
    }
  return stem + ".peri.xml";
}

// [-h] [-o output] <one input>: -h prints the usage on stdout and exits 0; unknown options
// print it on stderr and exit 1.
void parse_peri_options(int argc, char** argv, const char* usage, const char* tool,
                        std::string& input, std::string& output) {
  OptionTable table{
      {{'o', Argument::kRequired}, {'h', Argument::kNone, help(usage, Stream::kStdout)}}};
  table.unknown = failure(usage);
  table.operands =
      OperandCount{1, 1, failure(std::string(usage) + tool + ": one input file expected\n")};
  input = parse_command_line(table, argc, argv, [&](char, const char* arg) {
            output = arg;  // -o
          }).operands[0];
}

}  // namespace

int export_peri_main(int argc, char** argv) {
  std::string input, output;
  parse_peri_options(argc, argv, kUsage, "cubekit export-peri", input, output);
  if (output.empty()) output = default_output(input);
  try {
    const Report report = Report::open(input);
    MetricEngine engine(report);
    AtomicFile out(output);
    for (const std::string& metric : write_peri_xml(engine, out.stream()))
      std::cerr << "cubekit export-peri: " << input << ": metric " << metric
                << " left out: PERI-XML holds one number per value\n";
    out.commit();
  } catch (const std::exception& e) {
    std::cerr << "cubekit export-peri: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

int import_peri_main(int argc, char** argv) {
  const char* usage =
      "usage: cubekit import-peri [-h] [-o out.cubex] <file.xml>\n"
      "  Writes a PERI-XML document as a report (default: <file stem>.cubex).\n";
  std::string input, output;
  parse_peri_options(argc, argv, usage, "cubekit import-peri", input, output);
  if (output.empty()) {
    std::string stem = std::filesystem::path(input).filename().string();
    for (const char* ext : {".peri.xml", ".xml"})
      if (stem.ends_with(ext)) {
        stem.resize(stem.size() - std::string(ext).size());
        break;
      }
    output = stem + ".cubex";
  }
  if (!output.ends_with(".cubex")) output += ".cubex";
  try {
    import_peri_xml(input, output);  // the writer renames a complete file only
  } catch (const std::exception& e) {
    std::cerr << "cubekit import-peri: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace cubekit::tools
