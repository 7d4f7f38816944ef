// cube_calltree: the call tree of a report, optionally with one metric's values, option-
// compatible with CubeLib 4.6's tool (tools guide §1.5). Layout as the original prints it.
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
void take_option(Options& o, char c, const char* arg) {
  switch (c) {
    case 'c':
      o.full_path = true;
      break;
    case 'm':
      o.metric = arg;
      break;
    case 't': {
      const double percent = std::strtod(arg, nullptr);
      if (percent >= 100)
        throw failure(
            std::string("cube_calltree: the threshold of -t is a percentage below 100\n") + kUsage);
      o.view.threshold = percent / 100;
      break;
    }
    case 'i':
      o.view.call_flavour = Flavour::kInclusive;
      break;
    case 'p':
      o.percent = true;
      break;
    case 'f':
      o.files.emplace_back(arg);
      break;
    case 'a':
      o.annotate = true;
      break;
  }
}

Options parse(int argc, char** argv) {
  const auto value = Argument::kRequired;
  OptionTable table{{{'i'},
                     {'c'},
                     {'h', Argument::kNone, help(kUsage, Stream::kStdout)},
                     {'a'},
                     {'p'},
                     {'m', value},
                     {'f', value},
                     {'t', value}}};
  table.diagnostics = false;
  Options o;
  const std::vector<std::string> operands =
      parse_command_line(table, argc, argv, [&](char c, const char* arg) {
        take_option(o, c, arg);
      }).operands;
  if (o.view.threshold && o.metric.empty())
    throw failure(std::string("cube_calltree: -t needs a metric (-m)\n") + kUsage);
  o.files.insert(o.files.end(), operands.begin(), operands.end());
  if (o.files.empty()) throw failure(std::string("cube_calltree: no report given\n") + kUsage);
  return o;
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

// A line's name: "  | " for each level above its caller's, "  + " below a caller, the region.
void append_name(std::string& out, const Model& model, const CallTreeLine& line) {
  for (unsigned d = 1; d < line.depth; ++d) out += "  | ";
  if (line.depth > 0) out += "  + ";
  out += model.regions[model.cnodes[line.cnode].region].name;
}

size_t name_size(const Model& model, const CallTreeLine& line) {
  return 4 * size_t{line.depth} + model.regions[model.cnodes[line.cnode].region].name.size();
}

// Written in pieces: every name is padded to the longest, so a deep recursion's text grows as
// the square of its depth (a 20,000-level chain: 1.6 GB) and is not held whole.
void print(const Report& report, const std::vector<CallTreeLine>& lines, const Options& o) {
  const Model& model = report.model();
  size_t width = 0;
  for (const CallTreeLine& line : lines) width = std::max(width, name_size(model, line));
  const std::vector<CallPathKind> kinds =
      o.annotate && o.full_path ? call_path_kinds(model) : std::vector<CallPathKind>();
  constexpr size_t kPiece = size_t{1} << 20;
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (o.view.metric) out += value_column(lines[i], o.percent);
    append_name(out, model, lines[i]);
    out.append(width + 4 - name_size(model, lines[i]), ' ');
    if (!kinds.empty()) out += std::string(call_path_kind_name(kinds[lines[i].cnode])) + ':';
    if (o.full_path) out += call_tree_path(model, lines, i);
    out += '\n';
    if (out.size() >= kPiece) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out;
}

}  // namespace

int calltree_main(int argc, char** argv) {
  const Options o = parse(argc, argv);
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
