// cube_calltree: the call tree of a report, optionally with one metric's values, option-
// compatible with CubeLib 4.6's tool (tools guide §1.5). Layout as the original prints it.
#include <getopt.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/call_tree_view.hpp"
#include "cubekit/error.hpp"
#include "cubekit/value_text.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: cube_calltree [-m <metric>] [-i] [-p] [-t <percent>] [-c] [-a] [-h] [-f] <report>...\n"
    "  -m metric   show the values of this metric (unique name), summed over all locations\n"
    "  -i          inclusive values (default: exclusive)\n"
    "  -p          also each value's share of the metric's total, in percent\n"
    "  -t percent  leave out call paths (with their subtrees) whose inclusive value is less\n"
    "              than this share of the total; 0 <= percent < 100; needs -m\n"
    "  -c          print each call path's full path of region names\n"
    "  -a          with -c: the call path's kind before it (MPI, OMP, COM: calls MPI or\n"
    "              OpenMP below, USR: other)\n"
    "  -f report   one more report to show\n"
    "  -h          this help\n";

struct Options {
  std::string metric;
  bool percent = false, full_path = false, annotate = false;
  CallTreeViewOptions view;
  std::vector<std::string> files;
};

// CubeLib's conventions: -h prints the help on stdout and exits 0; unknown options are ignored.
int parse(int argc, char** argv, Options& o) {
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt(argc, argv, "ichapm:f:t:")) != -1;) {
    switch (c) {
      case 'c':
        o.full_path = true;
        break;
      case 'm':
        o.metric = optarg;
        break;
      case 't': {
        const double percent = std::strtod(optarg, nullptr);
        if (percent >= 100) {
          std::cerr << "cube_calltree: the threshold of -t is a percentage below 100\n" << kUsage;
          return 1;
        }
        o.view.threshold = percent / 100;
        break;
      }
      case 'i':
        o.view.call_flavour = Flavour::kInclusive;
        break;
      case 'h':
        std::cout << kUsage;
        return 0;
      case 'p':
        o.percent = true;
        break;
      case 'f':
        o.files.emplace_back(optarg);
        break;
      case 'a':
        o.annotate = true;
        break;
      default:  // unknown options
        break;
    }
  }
  if (o.view.threshold && o.metric.empty()) {
    std::cerr << "cube_calltree: -t needs a metric (-m)\n" << kUsage;
    return 1;
  }
  for (int i = optind; i < argc; ++i) o.files.emplace_back(argv[i]);
  if (o.files.empty()) {
    std::cerr << "cube_calltree: no report given\n" << kUsage;
    return 1;
  }
  return -1;
}

std::string padded(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

// The value column: %g, and with -p the share with 4 significant digits below 10 %, else 5.
std::string value_column(const CallTreeLine& line, bool percent) {
  std::string text = format_double(line.value);
  if (percent) {
    const double p = line.share * 100;
    text += " (" + format_double(p, p < 10 ? 4 : 5) + "%)";
  }
  return padded(std::move(text), percent ? 32 : 16);
}

void print(const Report& report, const std::vector<CallTreeLine>& lines, const Options& o) {
  const Model& model = report.model();
  std::vector<std::string> names;
  size_t width = 0;
  for (const CallTreeLine& line : lines) {
    std::string name;
    for (unsigned d = 1; d < line.depth; ++d) name += "  | ";
    if (line.depth > 0) name += "  + ";
    name += model.regions[model.cnodes[line.cnode].region].name;
    width = std::max(width, name.size());
    names.push_back(std::move(name));
  }
  const std::vector<CallPathKind> kinds =
      o.annotate && o.full_path ? call_path_kinds(model) : std::vector<CallPathKind>();
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (o.view.metric) out += value_column(lines[i], o.percent);
    out += padded(names[i], width + 4);
    if (!kinds.empty()) out += std::string(call_path_kind_name(kinds[lines[i].cnode])) + ':';
    if (o.full_path) out += lines[i].path;
    out += '\n';
  }
  std::cout << out;
}

}  // namespace

int calltree_main(int argc, char** argv) {
  Options o;
  if (const int rc = parse(argc, argv, o); rc >= 0) return rc;
  for (const std::string& file : o.files) {
    try {
      std::cerr << "Reading " << file << "...";
      const Report report = Report::open(file);
      std::cerr << " done." << std::endl;
      MetricEngine engine(report);
      Options shown = o;
      if (!o.metric.empty()) {
        shown.view.metric = report.model().metric_by_uniq_name(o.metric);
        if (!shown.view.metric) {
          std::cerr << "cube_calltree: " << file << ": no metric '" << o.metric << "'\n";
          return 1;
        }
      }
      print(report, call_tree_view(engine, shown.view), shown);
    } catch (const Error& e) {
      std::cerr << "\ncube_calltree: " << e.what() << '\n';
      return 1;
    }
  }
  return 0;
}

}  // namespace cubekit::tools
