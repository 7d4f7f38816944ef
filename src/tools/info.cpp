// cube_info: a report's call tree with chosen metric columns, abridged by thresholds, its
// metric list or its basic figures; option-compatible with CubeLib 4.6's tool (tools guide
// §1.5). Options act in the order given, as the original's do: -l and -b print and stop.
// Several reports are shown side by side, each column once per report.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/call_path_checks.hpp"
#include "cubekit/error.hpp"
#include "cubekit/info_tree.hpp"
#include "cubekit/report.hpp"
#include "cubekit/report_algebra.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kUsage =
    "usage: cube_info [-h] [-t] [-v] [-w] [-m met]... [-l] [-b] [-a met,thrh] [-r met,thrh]\n"
    "                 [-x met,thrh] <report>...\n"
    "  -t           column: inclusive time over every location\n"
    "  -v           column: exclusive visits over every location\n"
    "  -w           column: number of locations that visited the call path\n"
    "  -m met       column: the metric described by met (see below)\n"
    "  -l           list the metrics' unique names and stop\n"
    "  -b           number of nodes, processes per node, processes, wallclock time; stop\n"
    "  -a met,thrh  leave out call paths whose value is at most thrh (and their subtrees)\n"
    "  -r met,thrh  the same with thrh times the root's value\n"
    "  -x met,thrh  keep the children of each call path that make up 1-thrh of it\n"
    "  Left-out children are summed in one \"Aggregated\" line under their parent.\n"
    "met: unique_metric_name[:incl|excl[:process_rank[.thread]]], e.g. time or time:excl:2\n"
    "Several reports: their call trees merged, each column once per report.\n";

// -h prints the usage on stdout and exits 0; unknown options print it on stderr and exit 1.
// The options act after the reports are read, in the order given.
OptionTable info_options() {
  const auto value = Argument::kRequired;
  OptionTable table{{{'m', value},
                     {'a', value},
                     {'r', value},
                     {'x', value},
                     {'b'},
                     {'h', Argument::kNone, help(kUsage, Stream::kStdout)},
                     {'l'},
                     {'t'},
                     {'v'},
                     {'w'}}};
  table.unknown = failure(kUsage);
  table.operands =
      OperandCount{1, SIZE_MAX, failure(std::string(kUsage) + "cube_info: a report expected\n")};
  return table;
}

void print_basics(const InfoBasics& b) {
  std::cout << "Number of nodes    : " << b.nodes << '\n'
            << "Processes per node : " << b.children_of_first_node << '\n'
            << "Number of processes: " << b.processes << '\n'
            << "Wallclock time     : " << (b.wallclock ? *b.wallclock : -1.0) << '\n';
}

// -a / -r / -x: "met,thrh".
InfoAbridgeRule abridge_rule(const Model& model, char option, const std::string& arg) {
  const size_t comma = arg.find(',');
  if (comma == std::string::npos)
    throw LookupError("-" + std::string(1, option) + " " + arg + ": expected met,threshold");
  InfoAbridgeRule rule;
  rule.column = info_metric_column(model, arg.substr(0, comma));
  rule.threshold = std::atof(arg.substr(comma + 1).c_str());
  rule.kind = option == 'a'   ? InfoAbridge::kAbsolute
              : option == 'r' ? InfoAbridge::kRootRelative
                              : InfoAbridge::kCumulative;
  return rule;
}

// The second pass over the options, with the report open. Returns whether to print the tree.
bool apply_options(const std::vector<GivenOption>& options, MetricEngine& engine,
                   std::vector<InfoColumn>& columns, std::vector<InfoAbridgeRule>& rules) {
  const Model& model = engine.report().model();
  for (const auto& [c, given] : options) {
    const std::string arg = given.value_or("");
    switch (c) {
      case 'b':
        print_basics(info_basics(engine));
        return false;
      case 'l':
        for (const Metric& m : model.metrics) std::cout << m.uniq_name << '\n';
        return false;
      case 'm':
        columns.push_back(info_metric_column(model, arg));
        break;
      case 't':
        columns.push_back(info_metric_column(model, "time"));
        break;
      case 'v':
        columns.push_back(info_metric_column(model, "visits:excl"));
        break;
      case 'w':
        columns.push_back(info_visitors_column(model));
        break;
      default:  // a, r, x
        rules.push_back(abridge_rule(model, c, arg));
    }
  }
  return true;
}

// The metrics of several reports, as their merge defines them.
void print_metric_union(const std::vector<Report>& reports) {
  UnifiedDefinitions defs;
  for (const Report& r : reports) {
    InputMapping map;
    defs.add_metrics(r.model(), map);
  }
  for (const Metric& m : defs.model().metrics) std::cout << m.uniq_name << '\n';
}

// Several reports side by side: each column once per report over the unified call tree, as
// CubeLib's cube_info compares them; -b describes their merge, -l lists its metrics.
int several_reports(const CommandLine& line) {
  const std::vector<Report> reports = open_reports(line.operands);
  CallPathChecks checks(report_pointers(reports));
  say_cubelib_merge(reports.size());
  std::vector<CallPathChecks::CheckedMetric> columns;
  for (const auto& [c, given] : line.options) {
    const std::string arg = given.value_or("");
    if (c == 'b') {
      print_basics(info_basics(report_pointers(reports)));
      return 0;
    }
    if (c == 'l') {
      print_metric_union(reports);
      return 0;
    }
    if (c == 'm' || c == 't' || c == 'v')
      columns.push_back(checks.metric(c == 'm' ? arg : c == 't' ? "time" : "visits:excl"));
    if (c == 'w') columns.push_back(checks.visitors());
    if (c == 'a' || c == 'r' || c == 'x') {
      const size_t comma = arg.find(',');
      if (comma == std::string::npos)
        throw LookupError("-" + std::string(1, c) + " " + arg + ": expected met,threshold");
      const auto metric = checks.metric(arg.substr(0, comma));
      abridge(
          checks.forest("all"), [&](Index cnode) { return checks.values(metric, cnode); },
          std::atof(arg.substr(comma + 1).c_str()),
          c == 'a'   ? InfoAbridge::kAbsolute
          : c == 'r' ? InfoAbridge::kRootRelative
                     : InfoAbridge::kCumulative);
    }
  }
  std::cout << checks.info_text("all", columns);
  return 0;
}

}  // namespace

int info_main(int argc, char** argv) {
  const CommandLine line = parse_command_line(info_options(), argc, argv);
  if (line.operands.size() >= 2) return several_reports(line);
  const std::string file = line.operands[0];
  const Report report = Report::open(file);
  MetricEngine engine(report);
  std::vector<InfoColumn> columns;
  std::vector<InfoAbridgeRule> rules;
  try {
    if (!apply_options(line.options, engine, columns, rules)) return 0;
  } catch (const LookupError& e) {
    std::cerr << "cube_info: " << file << ": " << e.what() << '\n';
    return 1;
  }
  std::cout << info_tree_text(engine, columns, rules);
  return 0;
}

}  // namespace cubekit::tools
