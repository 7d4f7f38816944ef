// cube_test: checks that two or more reports agree call path by call path, as CubeLib 4.6's
// tool does (tools guide §1.5): options act in the order given (-c copies a part of the call
// tree, -a / -r / -x cut it down, -e / -s check a metric on it), a summary line per check, and
// with -v or -o the details. The comparisons are the library's (call_path_checks.hpp).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cubekit/atomic_file.hpp"
#include "cubekit/call_path_checks.hpp"
#include "cubekit/error.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

const char* const kGreen = "\033[32m";
const char* const kRed = "\033[31m";
const char* const kYellow = "\033[33m";
const char* const kDefault = "\033[39m";

std::string usage(const char* self) {
  return std::string("Usage: ") + self +
         " [ flags ] <cube1> <cube2>\n"
         "where flags is any combination of the following options:\n"
         "  -?                        Help; Output a brief help message.\n"
         "  -h                        Help; Output a long help message.\n"
         "  -o                        Set the output file. If omitted, STDOUT is used. \n"
         "  -c tree1[,tree2]          Create a new copy of the tree \"tree2\" that is called "
         "\"tree1\".\n"
         "                            If \"tree2\" is omitted, \"tree1\" will be a copy of the "
         "\"ALL\" \n"
         "  -e metric[,tree]          Checks whether the metric is equal for all provided "
         "CUBE files and for all nodes of the tree \"tree\" (default: all nodes).\n"
         "  -s metric,type,tol[,tree] Checks whether the metric is similar for all CUBE "
         "files: type ABS (differences below tol) or REL (below tol times the mean value).\n"
         "  -a metric,thrh[,tree]     Removes the nodes whose values are below thrh.\n"
         "  -r metric,thrh[,tree]     Removes the nodes whose values are below thrh times the "
         "value of their root.\n"
         "  -x metric,thrh[,tree]     Keeps, below each node, the children that make up "
         "1-thrh of it.\n"
         "  -v [0,1,2,3]              Verbosity level: 0 - silent, 1 - report only summary, 2 - "
         "report only errors, 3 - report status of all tests\n"
         "\n"
         "\n"
         "WARNING: The order of the options matters.\n\n"
         "Report bugs to <scalasca@fz-juelich.de>\n";
}

enum Verbosity { kSilent, kSummary, kErrors, kTests };

// "metric[,rest]": the part before the first comma and the rest (empty without a comma).
std::pair<std::string, std::string> split_first(const std::string& arg) {
  const size_t comma = arg.find(',');
  if (comma == std::string::npos) return {arg, ""};
  return {arg.substr(0, comma), arg.substr(comma + 1)};
}

struct Session {
  CallPathChecks& checks;
  Verbosity verbosity;
  std::ostream& details;
};

std::string check_name(const std::string& metric, double tolerance, bool relative) {
  if (tolerance == 0) return "Equality " + metric;
  std::ostringstream s;
  s << "Similarity " << metric << (relative ? " (relative, " : " (absolute, ") << tolerance << ")";
  return s.str();
}

// Why a call path failed, in the original's layout: where it is, a table of each report's
// value along the call path (the call path, then each caller), and the difference.
std::string failure_text(Session& s, const CallPathChecks::CheckedMetric& metric,
                         const CallPathChecks::Outcome& o) {
  const Model& tree = s.checks.call_tree();
  const InfoColumn& format =
      *std::find_if(metric.columns.begin(), metric.columns.end(),
                    [](const InfoColumn& c) { return c.metric != kNoIndex; });
  std::ostringstream out;
  out << "In call node with id " << tree.cnodes[o.cnode].id
      << " (Name: " << tree.regions[tree.cnodes[o.cnode].region].name << ")\n"
      << "   for cnode metric " << metric.display << " (" << metric.name << ")\n| ";
  for (size_t i = 0; i < metric.columns.size(); ++i)
    out << std::setw(15) << metric.display.substr(0, 13) << " | ";
  out << "Call path\n";
  for (Index c = o.cnode; c != kNoIndex; c = tree.cnodes[c].parent) {
    const Region& r = tree.regions[tree.cnodes[c].region];
    out << "| ";
    for (double v : s.checks.values(metric, c)) out << info_value_text(format, v) << " | ";
    out << (c == o.cnode ? "           " : " called by ") << r.name << " (File: " << r.mod
        << ", Line: " << r.begin << ")\n";
  }
  out << "Absolute difference between the file with id " << o.report
      << " and a file with a lower id is " << o.difference << " but should be lower than "
      << o.allowed << ".";
  return out.str();
}

void run_check(Session& s, const std::string& metric_text, const std::string& forest,
               double tolerance, bool relative) {
  const CallPathChecks::CheckedMetric metric = s.checks.metric(metric_text);
  s.checks.forest(forest);  // "Could not find tree" before anything is printed
  const std::string name = check_name(metric.name, tolerance, relative);
  const auto outcomes = s.checks.check(forest, metric, tolerance, relative);
  const Model& tree = s.checks.call_tree();
  size_t failed = 0;
  for (const auto& o : outcomes) {
    if (&o == &outcomes.front() && s.verbosity > kSilent) s.details << name << " ... " << std::endl;
    if (s.verbosity >= kTests)
      s.details << "    " << name << " :: \"" << tree.regions[tree.cnodes[o.cnode].region].name
                << "\" ... ";
    if (!o.passed) ++failed;
    if (s.verbosity >= kTests)
      s.details << (o.passed ? kGreen : kRed) << (o.passed ? "OK" : "FAIL") << kDefault
                << std::endl;
    if (!o.passed && s.verbosity >= kErrors) {
      std::istringstream lines(failure_text(s, metric, o));
      for (std::string line; std::getline(lines, line);) s.details << "      " << line << '\n';
    }
  }
  const size_t n = outcomes.size();
  std::cout << '\r' << name << " ... " << n - failed << " / " << n << kGreen << " OK" << kDefault
            << std::endl;
  if (s.verbosity > kSilent)
    s.details << kGreen << "    Passed:  " << n - failed << " / " << n << kDefault << '\n'
              << kRed << "    Failed:  " << failed << " / " << n << kDefault << '\n'
              << kYellow << "    Skipped: 0 / " << n << kDefault << std::endl;
}

void run_similarity(Session& s, const std::string& arg) {
  const size_t first = arg.find(',');
  if (first == std::string::npos) throw Error("Could not find comma in argument " + arg);
  const size_t second = arg.find(',', first + 1);
  if (second == std::string::npos) throw Error("Could not find second comma in argument " + arg);
  const size_t third = arg.find(',', second + 1);
  const std::string mode = arg.substr(first + 1, second - first - 1);
  const double tolerance = std::atof(arg.substr(second + 1, third - second - 1).c_str());
  const std::string forest = third == std::string::npos ? "all" : arg.substr(third + 1);
  bool relative = false;
  if (mode == "REL" || mode == "RELATIVE")
    relative = true;
  else if (mode != "ABS" && mode != "ABSOLUTE")
    throw Error("Unknown mode " + mode + "!");
  run_check(s, arg.substr(0, first), forest, tolerance, relative);
}

void run_abridge(Session& s, const std::string& arg, InfoAbridge kind) {
  const size_t first = arg.find(',');
  if (first == std::string::npos) throw Error("Could not find comma in argument " + arg);
  const size_t second = arg.find(',', first + 1);
  const double threshold = std::atof(arg.substr(first + 1, second - first - 1).c_str());
  const std::string forest = second == std::string::npos ? "all" : arg.substr(second + 1);
  const CallPathChecks::CheckedMetric metric = s.checks.metric(arg.substr(0, first));
  abridge(
      s.checks.forest(forest), [&](Index c) { return s.checks.values(metric, c); }, threshold,
      kind);
}

void run_option(Session& s, int option, const std::string& arg) {
  if (option == 'c') {
    const auto [to, from] = split_first(arg);
    s.checks.copy_forest(to, arg.find(',') == std::string::npos ? "all" : from);
  } else if (option == 'e') {
    const auto [metric, tree] = split_first(arg);
    run_check(s, metric, arg.find(',') == std::string::npos ? "all" : tree, 0, false);
  } else if (option == 's') {
    run_similarity(s, arg);
  } else if (option == 'a' || option == 'r' || option == 'x') {
    run_abridge(s, arg,
                option == 'a'   ? InfoAbridge::kAbsolute
                : option == 'r' ? InfoAbridge::kRootRelative
                                : InfoAbridge::kCumulative);
  }
}

// -h prints a line about the tool and the usage, -? and unknown options the usage alone, on
// stderr, and exit 0. -v and -o act as they are read; the checks once the reports are read.
OptionTable test_options(const char* self) {
  const std::string text = usage(self) + "\n";
  const auto value = Argument::kRequired;
  OptionTable table{
      {{'v', value},
       {'o', value},
       {'c', value},
       {'e', value},
       {'s', value},
       {'a', value},
       {'r', value},
       {'x', value},
       {'h', Argument::kNone,
        help("\nCompares two or more experiments according to some specified criteria and "
             "prints a summary of the outcome of the tests (details with -v or -o).\n\n" +
                 text,
             Stream::kStderr)},
       {'?', Argument::kNone, help(text, Stream::kStderr)}}};
  table.unknown = help(text, Stream::kStderr);
  table.operands = OperandCount{2, SIZE_MAX, failure("Please provide exactly two cube files.\n")};
  return table;
}

Verbosity verbosity_of(const char* level_text) {
  static const char* const kSaid[] = {"0 (silent)", "1 (summary)", "2 (errors report)",
                                      "3 (all tests report)"};
  const int level = std::strlen(level_text) == 1 ? level_text[0] - '0' : -1;
  if (level < 0 || level > 3) {
    std::cerr << " Verbosity level is unknown. Set to 1 (summary)." << std::endl;
    return kSummary;
  }
  std::cout << " Set verbosity level to " << kSaid[level] << '.' << std::endl;
  return static_cast<Verbosity>(level);
}

}  // namespace

int test_main(int argc, char** argv) {
  Verbosity verbosity = kSilent;
  std::optional<AtomicFile> details_file;  // -o's; appears when the checks are done
  std::string details_path;
  const CommandLine line =
      parse_command_line(test_options(argv[0]), argc, argv, [&](char c, const char* arg) {
        if (c == 'v') verbosity = verbosity_of(arg);
        if (c != 'o') return;
        // CubeLib 4.6 writes the details to the last -o and empties the earlier files (it
        // opens each and forgets it; its "at most one output file" error is commented out):
        // an empty file would read as "no failures".
        if (details_file)
          throw failure("cube_test: -o given twice ('" + details_path + "', then '" + arg +
                        "'): the details go to one file\n");
        if (verbosity == kSilent) verbosity = kErrors;
        try {
          details_file.emplace(arg);
          details_path = arg;
        } catch (const Error& e) {
          throw failure(std::string("cube_test: ") + e.what() + "\n");
        }
      });
  const std::vector<Report> reports = open_reports(line.operands);
  CallPathChecks checks(report_pointers(reports));
  say_cubelib_merge(reports.size());
  Session session{checks, verbosity, details_file ? details_file->stream() : std::cout};
  for (const auto& [c, arg] : line.options)
    if (arg) run_option(session, c, *arg);
  if (details_file) details_file->commit();
  return 0;
}

}  // namespace cubekit::tools
