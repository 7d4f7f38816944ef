// cube_regioninfo: regions with their kind, trace buffer cost and exclusive metric values, and
// totals per kind, with and without the regions of a filter list, as CubeLib 4.6 prints them
// (tools guide §1.5). The numbers come from the library (region_info.hpp).

#include <functional>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/region_info.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr int kNumberWidth = 14, kPercentWidth = 8;

std::string usage(const char* self) {
  return std::string("Usage: ") + self +
         " [-l filename] [-m filename] [-h] [-s] cubefile\n"
         "  -h     Help; Output this help message\n"
         "  -r     be verbose, print info about any region\n"
         "  -l     Specify a list of regions for the blacklist\n"
         "  -m     Specify a list of metrics, the list has to be comma-seperated, no spaces "
         "allowed\n\n"
         "Report bugs to <scalasca@fz-juelich.de>\n";
}

struct Column {
  std::string name;
  Index metric = kNoIndex;
  bool fractional = false;  // CubeLib prints two decimals for FLOAT metrics only
  RegionValues values;
};

struct Request {
  std::vector<std::string> metrics;
  bool max_tbc = false, total_tbc = false;
};

// -m's comma-separated list: "max_tbc" and "total_tbc" are columns, the rest metrics; without
// -m: time and max_tbc.
Request parse_metric_list(const std::string* list) {
  Request r;
  if (!list) {
    r.metrics = {"time"};
    r.max_tbc = true;
    return r;
  }
  size_t begin = 0;
  for (;;) {
    const size_t comma = list->find(',', begin);
    const std::string name = list->substr(begin, comma - begin);
    if (name == "max_tbc")
      r.max_tbc = true;
    else if (name == "total_tbc")
      r.total_tbc = true;
    else
      r.metrics.push_back(name);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return r;
}

double percent(double total, double part) {
  return total != 0 ? 100.0 * part / total : 0.0;
}

void print_numbers(const Request& request, uint64_t max_tbc, uint64_t total_tbc,
                   const std::vector<Column>& columns,
                   const std::function<double(const Column&)>& value) {
  std::cout << std::right;
  if (request.max_tbc) std::cout << std::setw(kNumberWidth) << max_tbc;
  if (request.total_tbc) std::cout << std::setw(kNumberWidth) << total_tbc;
  for (const Column& c : columns)
    std::cout << std::fixed << std::setprecision(c.fractional ? 2 : 0) << std::setw(kNumberWidth)
              << value(c) << std::setprecision(2) << std::setw(kPercentWidth)
              << percent(c.values.totals.all, value(c));
}

void print_header(const Request& request, const std::vector<Column>& columns) {
  std::cout << std::right << std::setw(3) << "bl" << std::setw(6) << "type";
  if (request.max_tbc) std::cout << std::setw(kNumberWidth) << "max_tbc";
  if (request.total_tbc) std::cout << std::setw(kNumberWidth) << "total_tbc";
  for (const Column& c : columns)
    std::cout << std::setw(kNumberWidth)
              << c.name.substr(0, c.name.size() > kNumberWidth ? 5 : std::string::npos)
              << std::setw(kPercentWidth) << "%";
  std::cout << std::left << " region\n";
}

using Totals = KindTotals<uint64_t>;
using Sums = KindTotals<double>;

// One summary line: the kind's label, its trace costs and each metric's sum.
void print_summary(const Request& request, const char* label, const char* name,
                   const TraceCosts& costs, uint64_t Totals::*cost,
                   const std::vector<Column>& columns,
                   const std::function<double(const Sums&)>& sum) {
  std::cout << std::right << "   " << std::setw(6) << label;
  print_numbers(request, costs.max.*cost, costs.total.*cost, columns,
                [&](const Column& c) { return sum(c.values.totals); });
  std::cout << std::left << " (summary) " << name << '\n';
}

void print_report(const Model& model, const Request& request, const std::vector<Column>& columns,
                  const std::vector<RegionKind>& kinds, const std::vector<bool>& filtered,
                  const TraceCosts& costs, bool per_region, bool with_filter) {
  print_header(request, columns);
  if (per_region) {
    for (Index r = 0; r < model.regions.size(); ++r) {
      std::cout << (!filtered.empty() && filtered[r] ? " * " : "   ") << std::right << std::setw(6)
                << region_kind_name(kinds[r]);
      print_numbers(request, costs.max_by_region[r], costs.total_by_region[r], columns,
                    [&](const Column& c) { return c.values.exclusive[r]; });
      std::cout << std::left << ' ' << model.regions[r].name << '\n';
    }
    std::cout << '\n';
  }
  print_summary(request, "ANY", "ALL", costs, &Totals::all, columns,
                [](const Sums& s) { return s.all; });
  print_summary(request, "MPI", "MPI", costs, &Totals::mpi, columns,
                [](const Sums& s) { return s.mpi; });
  print_summary(request, "USR", "USR", costs, &Totals::usr, columns,
                [](const Sums& s) { return s.usr; });
  print_summary(request, "COM", "COM", costs, &Totals::com, columns,
                [](const Sums& s) { return s.com; });
  if (!with_filter) return;
  print_summary(request, "BL", "BL", costs, &Totals::filtered, columns,
                [](const Sums& s) { return s.filtered; });
  print_summary(request, "ANY", "ALL-BL", costs, &Totals::all_kept, columns,
                [](const Sums& s) { return s.all - s.filtered; });
  print_summary(request, "MPI", "MPI-BL", costs, &Totals::mpi_kept, columns,
                [](const Sums& s) { return s.mpi_kept; });
  print_summary(request, "USR", "USR-BL", costs, &Totals::usr_kept, columns,
                [](const Sums& s) { return s.usr_kept; });
  print_summary(request, "COM", "COM-BL", costs, &Totals::com_kept, columns,
                [](const Sums& s) { return s.com_kept; });
}

}  // namespace

int regioninfo_main(int argc, char** argv) {
  // -h, no argument at all, or fewer words than the options count print the usage on stdout
  // and exit 0; unknown options are ignored.
  const EarlyExit usage_stop = help(usage(argv[0]), Stream::kStdout);
  if (argc == 1) throw usage_stop;
  bool per_region = false;
  std::string filter_file, metric_list;
  bool has_filter = false, has_metrics = false;
  int expected = 1;  // CubeLib counts the words its options take; the file is the last word
  OptionTable table{{{'m', Argument::kRequired},
                     {'h', Argument::kNone, usage_stop},
                     {'r'},
                     {'l', Argument::kRequired}}};
  table.diagnostics = false;
  parse_command_line(table, argc, argv, [&](char c, const char* arg) {
    if (c == 'r') per_region = true, expected += 1;
    if (c == 'l') filter_file = arg, has_filter = true, expected += 2;
    if (c == 'm') metric_list = arg, has_metrics = true, expected += 2;
  });
  if (expected == argc) throw usage_stop;
  const std::string file = expected == argc - 1 ? argv[argc - 1] : "";
  const Report report = Report::open(file);
  say(" done.\n");
  const Model& model = report.model();
  MetricEngine engine(report);
  const std::vector<RegionKind> kinds = region_kinds(model);
  std::vector<bool> filtered;
  if (has_filter)
    filtered = filtered_regions(model, kinds, filter_file,
                                [](const std::string& w) { std::cerr << w << std::endl; });
  const Request request = parse_metric_list(has_metrics ? &metric_list : nullptr);
  std::vector<Column> columns;
  for (const std::string& name : request.metrics) {
    const auto m = model.metric_by_uniq_name(name);
    if (!m) {
      std::cout << "unknown metric: " << name << std::endl;
      return 1;
    }
    columns.push_back({name, *m, model.metrics[*m].dtype_text == "FLOAT",
                       region_values(engine, *m, kinds, filtered)});
  }
  const TraceCosts costs = trace_costs(engine, kinds, filtered);
  print_report(model, request, columns, kinds, filtered, costs, per_region, has_filter);
  return 0;
}

}  // namespace cubekit::tools
