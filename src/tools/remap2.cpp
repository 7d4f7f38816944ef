// cube_remap2: a report with the metric hierarchy of a remapping specification (tools guide
// §1.4), option-compatible with CubeLib 4.6's tool: -r <spec> (default: the report's own
// remapping.spec member), -c copy mode, -d derived metrics computed and stored, -s Scalasca's
// heuristic metrics, -o output name (default "remap"; ".cubex" is appended).

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "Usage: cube_remap2 -r <remap specification file> [-o output] [-c] [-d] [-s] [-h] <cube "
    "experiment>\n"
    "  -r     Name of the remapping specification file. By omitting this option the\n"
    "         specification file from the cube experiment is taken if present.\n"
    "  -c     Create output file with the same structure as an input file. It overrides\n"
    "         option \"-r\"\n"
    "  -o     Name of the output file (default: remap)\n"
    "  -d     Convert all prederived metrics into usual metrics, calculate and store their\n"
    "         values as a data.\n"
    "  -s     Add hardcoded SCALASCA metrics \"Idle threads\" and \"Limited parallelizm\"\n"
    "  -h     Help; Output a brief help message.\n";

struct Options {
  std::string spec_file;  // empty: the report's remapping.spec
  std::string output = "remap";
  bool copy = false;
  RemapOptions remap;
  std::string input;
};

// CubeLib's conventions (cubelib_convention, without -?); no input exits 1.
void parse(int argc, char** argv, Options& o) {
  const auto take = [&](char c, const char* arg) {
    if (c == 'r') o.spec_file = arg;
    if (c == 'o') o.output = arg;
    if (c == 'c') o.copy = true;
    if (c == 'd') o.remap.convert_derived = true;
    if (c == 's') o.remap.scalasca_metrics = true;
  };
  const OptionTable table = cubelib_convention(
      {{'r', Argument::kRequired}, {'o', Argument::kRequired}, {'c'}, {'d'}, {'s'}}, kUsage, false);
  const std::vector<std::string> operands = parse_command_line(table, argc, argv, take).operands;
  if (operands.size() != 1 || o.output.empty())
    throw failure(std::string(kUsage) + "\nError: exactly one cube experiment is required.\n");
  o.input = operands[0];
}

// The specification: the file given with -r, or the report's remapping.spec member.
RemapSpec load_spec(const Options& o, const Report& input) {
  if (!o.spec_file.empty()) {
    std::ifstream in(o.spec_file, std::ios::binary);
    if (!in)
      throw IoError(o.spec_file + ": cannot read the remapping specification file (No such " +
                    "file or not readable)");
    std::ostringstream text;
    text << in.rdbuf();
    RemapSpec spec = parse_remap_spec(text.str(), o.spec_file);
    // The user's own file: its expressions may read the environment (CubeLib's void.spec
    // switches metrics to VOID by an environment variable); an embedded one may not.
    for (Metric& m : spec.metrics) m.user_expressions = true;
    return spec;
  }
  const auto member = input.member_content("remapping.spec");
  if (!member || member->empty())
    throw LookupError(input.path() + ": no remapping specification inside the report (member " +
                      "remapping.spec); give one with -r");
  std::cout << "Found remapping specification file inside of cube. Use it." << std::endl;
  return parse_remap_spec(*member, input.path() + ":remapping.spec");
}

}  // namespace

int remap2_main(int argc, char** argv) {
  Options o;
  parse(argc, argv, o);
  o.remap.progress = [](const std::string& line) { std::cout << line << std::endl; };
  o.remap.note = [](const std::string& line) { std::cerr << line << std::endl; };
  std::cout << "++++++++++++ Remapping operation begins ++++++++++++++++++++++++++" << std::endl;
  std::cout << "Reading " << o.input << " ... " << std::flush;
  const Report input = Report::open(o.input);
  std::cout << " done." << std::endl;
  std::optional<RemapSpec> spec;
  if (!o.copy) spec = load_spec(o, input);
  const std::string name = report_name(o.output);
  remap_report(input, spec ? &*spec : nullptr, o.remap, name);
  std::cout << "++++++++++++ Remapping operation ends successfully ++++++++++++++++" << std::endl;
  std::cout << "Writing " << o.output << " ... done." << std::endl;
  return 0;
}

}  // namespace cubekit::tools
