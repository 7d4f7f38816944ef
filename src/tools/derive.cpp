// cube_derive: a report with one more metric defined by a CubePL expression, option-compatible
// with CubeLib 4.6's tool (tools guide §1.5.3). Without -t the metric's values are computed
// and stored; with -t it stays a derived metric.
#include <cstring>
#include <iostream>
#include <string>

#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "Usage: cube_derive [-h] [-t prederived|postderived] [-r exclusive|inclusive] -e <cubepl "
    "expression> [-p <parent_metric>] <targetmetric> <cube experiment> [-o <output "
    "experiment>]\n"
    "  -h     Help; Output a brief help message.\n";

constexpr const char* kLongUsage =
    "  Creates the metric <targetmetric> (unique and display name) from the CubePL expression\n"
    "  given with -e and writes the report with it to <output experiment>.cubex\n"
    "  (default: derived.cubex).\n\n"
    "  -t prederived|postderived  The new metric stays a derived metric of that kind; its\n"
    "                             values are computed whenever the report is read.\n"
    "                             Without -t the values are computed now and stored.\n"
    "  -r exclusive|inclusive     Whether a stored or prederived metric is exclusive or\n"
    "                             inclusive along the call tree (default: inclusive; no\n"
    "                             effect for postderived metrics).\n"
    "  -e <expression>            The CubePL expression.\n"
    "  -p <parent_metric>         Display name of the parent metric (default, or \"root\":\n"
    "                             the new metric is a root).\n"
    "  -o <output experiment>     Name of the written report; \".cubex\" is appended.\n";

struct Options {
  NewMetric metric;
  bool derived = false, prederived = false, exclusive = false, have_expression = false;
  std::string output = "derived";
  std::string input;
};

void take_option(Options& o, char c, const char* arg) {
  switch (c) {
    case 'o':
      if (*arg == '\0') throw failure(std::string(kUsage) + '\n');
      o.output = arg;
      break;
    case 't':
      if (std::strcmp(arg, "postderived") != 0 && std::strcmp(arg, "prederived") != 0)
        throw failure("Supported only two kind of derived metrics : postderived or prederived\n");
      o.derived = true;
      o.prederived = std::strcmp(arg, "prederived") == 0;
      break;
    case 'r':
      if (std::strcmp(arg, "exclusive") != 0 && std::strcmp(arg, "inclusive") != 0)
        throw failure("Supported only two kind of metrics : exclusive or inclusive\n");
      o.exclusive = std::strcmp(arg, "exclusive") == 0;
      break;
    case 'e':
      o.metric.expression = arg;
      o.have_expression = true;
      break;
    case 'p':
      o.metric.parent = arg;
      break;
  }
}

MetricKind kind_of(const Options& o) {
  if (!o.derived) return o.exclusive ? MetricKind::kExclusive : MetricKind::kInclusive;
  if (!o.prederived) return MetricKind::kPostDerived;
  return o.exclusive ? MetricKind::kPrederivedExclusive : MetricKind::kPrederivedInclusive;
}

// CubeLib's conventions: -h prints the long help and exits 0, an unknown option prints the
// usage and exits 0, bad values exit 1; the expression is checked before the operands.
Options parse(int argc, char** argv) {
  const auto value = Argument::kRequired;
  OptionTable table{{{'t', value},
                     {'p', value},
                     {'e', value},
                     {'o', value},
                     {'r', value},
                     {'h', Argument::kNone,
                      help(std::string(kUsage) + '\n' + kLongUsage + '\n', Stream::kStderr)}}};
  table.unknown = help(std::string(kUsage) + '\n', Stream::kStderr);
  Options o;
  const std::vector<std::string> operands =
      parse_command_line(table, argc, argv, [&](char c, const char* arg) {
        take_option(o, c, arg);
      }).operands;
  if (!o.have_expression)
    throw failure(std::string(kUsage) +
                  "\nError: Expression for metric calculation is missing. Use the option -e "
                  "<expression>.\n");
  if (operands.size() != 2) throw failure(std::string(kUsage) + "\nError: Wrong arguments.\n");
  o.metric.name = operands[0];
  o.input = operands[1];
  o.metric.kind = kind_of(o);
  return o;
}

}  // namespace

int derive_main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const Report input = Report::open(o.input);
  derive_metric(input, o.metric, report_name(o.output));
  return 0;
}

}  // namespace cubekit::tools
