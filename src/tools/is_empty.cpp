// cube_is_empty: whether every value of a report is zero (exit 0) or not (exit 1, naming the
// first value that is not), option-compatible with CubeLib 4.6's tool (tools guide §1.5).
// Lines as the original prints them, its spelling included, so scripts that read them work.

#include <cfloat>
#include <iostream>

#include "cubekit/error.hpp"
#include "cubekit/statistics.hpp"
#include "cubekit/value_text.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: cube_is_empty [-h] <report>\n"
    "  exit 0 when every value of the report is zero (magnitude below the smallest normal\n"
    "  double), 1 when one is not (it is printed), or on an error\n";

}  // namespace

int is_empty_main(int argc, char** argv) {
  // -h prints the usage on stderr and exits 0; -? and unknown options exit 1.
  OptionTable table{{{'h', Argument::kNone, help(kUsage, Stream::kStderr)},
                     {'?', Argument::kNone, failure(kUsage)}}};
  table.unknown = failure(kUsage);
  table.operands = OperandCount{
      1, 1, failure(std::string(kUsage) + "cube_is_empty: exactly one report expected\n")};
  const std::string file = parse_command_line(table, argc, argv).operands[0];
  std::cout << "Reading " << file << " ... " << std::flush;
  try {
    const Report report = Report::open(file);
    std::cout << "done.\n"
              << "++++++++++++ Checking operation begins ++++++++++++++++++++++++++\n";
    MetricEngine engine(report);
    const auto found = first_value_at_least(engine, DBL_MIN);
    if (found) {
      const Model& model = report.model();
      std::cout << "Triplet (" << model.metrics[found->metric].disp_name << " x "
                << model.regions[model.cnodes[found->cnode].region].name << " x "
                << model.locations[found->location].name << ") has value abouve treashold ("
                << format_double(DBL_MIN) << "): " << format_double(found->value) << "\n"
                << "Experiments are different.\n";
    }
    std::cout << "+++++++++++++ Checking operation ends successfully ++++++++++++++++\n";
    return found ? 1 : 0;
  } catch (const Error& e) {
    std::cout << std::endl;
    std::cerr << "cube_is_empty: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace cubekit::tools
