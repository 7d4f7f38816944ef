// cube_nodeview: one metric summed per node of the system tree, one line per report, as
// CubeLib 4.6's tool prints it (tools guide §1.5): nodes, threads, threads per node, regions,
// call paths, then the largest, smallest and mean node total and their spread.

#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/node_view.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

std::string usage(const char* self) {
  return std::string("Usage: ") + self +
         " [-m metricname] [-h] cubefile1 cubefile2 ... cubefileN\n"
         "  -h     Help; Output this help message\n"
         "  -m     Choose metric (defaults to time)\n\n";
}

// Column widths of the original: the metric's name sets two of them.
void print_header(const std::string& metric) {
  const int w1 = 8, w0 = 16, w2 = static_cast<int>(metric.size()) + 6;
  std::cout << std::right << std::setw(w1) << "Nodes" << std::setw(w1) << "Total" << std::setw(w2)
            << "Per node" << std::setw(w1) << "Regions" << std::setw(w1) << "Cnodes"
            << std::setw(w2) << "Metric" << std::setw(w0) << "Max" << std::setw(w0) << "Min"
            << std::setw(w0) << "Avg" << std::setw(w0) << "Std_dev" << std::left << " Cubefile\n"
            << std::right << std::setw(w1) << "" << std::setw(w1) << "Threads" << std::setw(w2)
            << "Threads" << '\n';
}

void print_line(const Model& model, const NodeView& v, const std::string& metric,
                const std::string& file) {
  const int w1 = 8, w0 = 16, w2 = static_cast<int>(metric.size()) + 6;
  std::cout << std::right << std::setw(w1) << v.nodes << std::setw(w1) << v.threads << std::fixed
            << std::setprecision(2) << std::setw(w2) << v.threads_per_node() << std::setw(w1)
            << model.regions.size() << std::setw(w1) << model.cnodes.size() << std::setw(w2)
            << metric << std::setw(w0) << v.maximum << std::setw(w0) << v.minimum << std::setw(w0)
            << v.mean << std::setw(w0) << v.deviation << std::left << " " + file << '\n';
}

}  // namespace

int nodeview_main(int argc, char** argv) {
  std::string metric = "time";
  // -h, and no report, print the usage on stdout and exit 0; unknown options are ignored.
  const EarlyExit usage_stop = help(usage(argv[0]), Stream::kStdout);
  OptionTable table{{{'m', Argument::kRequired}, {'h', Argument::kNone, usage_stop}}};
  table.diagnostics = false;
  table.operands = OperandCount{1, SIZE_MAX, usage_stop};
  const std::vector<std::string> files =
      parse_command_line(table, argc, argv, [&](char c, const char* arg) {
        if (c == 'm') metric = arg;
      }).operands;
  bool header = true;
  for (const std::string& file : files) {
    try {
      const Report report = Report::open(file);
      const auto m = report.model().metric_by_uniq_name(metric);
      if (!m) {
        std::cerr << "cube_nodeview: " << file << ": no metric '" << metric << "'\n";
        return 1;
      }
      MetricEngine engine(report);
      const NodeView view = node_view(engine, *m);
      if (header) print_header(metric);
      header = false;
      print_line(report.model(), view, metric, file);
    } catch (const Error& e) {
      std::cerr << "cube_nodeview: " << e.what() << '\n';
      return 1;
    }
  }
  return 0;
}

}  // namespace cubekit::tools
