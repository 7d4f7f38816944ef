// cube_derive: a report with one more metric defined by a CubePL expression, option-compatible
// with CubeLib 4.6's tool (tools guide §1.5.3). Without -t the metric's values are computed
// and stored; with -t it stays a derived metric.
#include <getopt.h>

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

// CubeLib's conventions: -h prints the long help and exits 0, an unknown option prints the
// usage and exits 0, bad values exit 1.
int parse(int argc, char** argv, Options& o) {
  optind = 1;
  opterr = 1;
  for (int c; (c = getopt(argc, argv, "t:p:e:o:r:h")) != -1;) {
    switch (c) {
      case 'o':
        if (*optarg == '\0') {
          std::cerr << kUsage << '\n';
          return 1;
        }
        o.output = optarg;
        break;
      case 't':
        if (std::strcmp(optarg, "postderived") != 0 && std::strcmp(optarg, "prederived") != 0) {
          std::cerr << "Supported only two kind of derived metrics : postderived or prederived\n";
          return 1;
        }
        o.derived = true;
        o.prederived = std::strcmp(optarg, "prederived") == 0;
        break;
      case 'r':
        if (std::strcmp(optarg, "exclusive") != 0 && std::strcmp(optarg, "inclusive") != 0) {
          std::cerr << "Supported only two kind of metrics : exclusive or inclusive\n";
          return 1;
        }
        o.exclusive = std::strcmp(optarg, "exclusive") == 0;
        break;
      case 'e':
        o.metric.expression = optarg;
        o.have_expression = true;
        break;
      case 'p':
        o.metric.parent = optarg;
        break;
      case 'h':
        std::cerr << kUsage << '\n' << kLongUsage << '\n';
        return 0;
      default:
        std::cerr << kUsage << '\n';
        return 0;
    }
  }
  if (!o.have_expression) {
    std::cerr << kUsage
              << "\nError: Expression for metric calculation is missing. Use the option -e "
                 "<expression>.\n";
    return 1;
  }
  if (argc - optind != 2) {
    std::cerr << kUsage << "\nError: Wrong arguments.\n";
    return 1;
  }
  o.metric.name = argv[optind];
  o.input = argv[optind + 1];
  if (!o.derived)
    o.metric.kind = o.exclusive ? MetricKind::kExclusive : MetricKind::kInclusive;
  else if (!o.prederived)
    o.metric.kind = MetricKind::kPostDerived;
  else
    o.metric.kind =
        o.exclusive ? MetricKind::kPrederivedExclusive : MetricKind::kPrederivedInclusive;
  return -1;
}

}  // namespace

int derive_main(int argc, char** argv) {
  Options o;
  if (const int rc = parse(argc, argv, o); rc >= 0) return rc;
  const Report input = Report::open(o.input);
  derive_metric(input, o.metric, report_name(o.output));
  return 0;
}

}  // namespace cubekit::tools
