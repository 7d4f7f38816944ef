// cube_diff, cube_merge, cube_mean and cube_cmp (tools guide §1.2), option- and
// output-compatible with CubeLib 4.6: the definitions are unified input by input with
// CubeLib's progress lines in between, then the library writes the combined values.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"
#include "tools.hpp"

namespace cubekit::tools {

std::string report_name(const std::string& output) {
  const std::string suffix = ".cubex";
  if (output.size() > suffix.size() &&
      output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0)
    return output;
  return output + suffix;
}

void say(const std::string& text) {
  std::cout << text << std::flush;
}

Report read_report(const std::string& path, bool announce) {
  if (announce) say("Reading " + path + " ... ");
  Report r = Report::open(path);
  if (announce) say("done.\n");
  return r;
}

namespace {

constexpr const char* kBugs = "Report bugs to <scalasca@fz-juelich.de>\n";

// -o, -c (cube_mean: reduce unless -c) and -C, then the inputs.
struct AlgebraOptions : OutputAndSystem {
  std::vector<std::string> inputs;
};

std::string usage(const char* argv0, const char* args, const char* default_output,
                  const char* c_help, const char* C_help) {
  return std::string("Usage: ") + argv0 + " [-o output] " + args + "\n" +
         "  -o     Name of the output file (default: " + default_output + ")\n" + c_help + C_help +
         "  -h     Help; Output a brief help message.\n\n" + kBugs;
}

// CubeLib's conventions (cubelib_convention, with -?); a wrong number of inputs exits 1.
void parse(int argc, char** argv, const std::string& usage_text, AlgebraOptions& o,
           size_t min_inputs, size_t max_inputs, const char* count_error) {
  OptionTable table = cubelib_convention(OutputAndSystem::rules(), usage_text, true);
  table.operands = OperandCount{min_inputs, max_inputs, failure(usage_text + count_error)};
  o.inputs = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
               o.take(c, arg);
             }).operands;
}

// What CubeLib throws when system trees do not fit (printed as "Runtime Error: " + it).
struct IncompatibleSystems {};
constexpr const char* kIncompatible =
    "Runtime Error:  System tree seems to be incompatible to be unified in one common system "
    "tree. \n You may want to collapse or reduce the system trees.";

void unify_system(UnifiedDefinitions& defs, const Model& in, InputMapping& map,
                  SystemUnification mode) {
  if (!defs.add_system_tree(in, map, mode)) throw IncompatibleSystems{};
}

// Runs `body`, turning errors into CubeLib's messages and exit code 1.
template <class Body>
int guarded(const char* tool, Body body) {
  try {
    body();
  } catch (const IncompatibleSystems&) {
    std::cout << std::flush;
    std::cerr << kIncompatible << std::endl;
    return 1;
  } catch (const Error& e) {
    std::cout << std::flush;
    std::cerr << tool << ": " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

// Unifies input i (merge and mean announce it; diff unifies both inputs per dimension).
void unify_one(UnifiedDefinitions& defs, const Report& in, InputMapping& map, size_t i,
               const char* operation, SystemUnification mode, const char* topologies) {
  say(std::string("INFO::Start operation \"") + operation + "\" with " + std::to_string(i) +
      "-th cube...\n");
  say("INFO::Merging metric dimension...");
  defs.add_metrics(in.model(), map);
  say(" done.\nINFO::Merging program dimension...");
  defs.add_call_tree(in.model(), map);
  say(" done.\nINFO::Merging system dimension...");
  unify_system(defs, in.model(), map, mode);
  say(std::string(" done.\n") + topologies);
  defs.add_topologies(in.model(), map);
  say(" done.\n");
}

}  // namespace

int diff_main(int argc, char** argv) {
  AlgebraOptions o;
  o.output = "diff";
  const std::string text = usage(argv[0], "[-c|-C] [-h] <minuend> <subtrahend>", "diff",
                                 "  -c     Reduce system dimension, if experiments are "
                                 "incompatible. \n",
                                 "  -C     Collapse system dimension! Overrides option -c.\n");
  parse(argc, argv, text, o, 2, 2, "Error: Two files required.\n\n");
  return guarded("cube_diff", [&] {
    const Report minuend = read_report(o.inputs[0], true);
    const Report subtrahend = read_report(o.inputs[1], true);
    say("++++++++++++ Diff operation begins ++++++++++++++++++++++++++\n");
    UnifiedDefinitions defs;
    std::vector<InputMapping> maps(2);
    defs.add_mirrors(minuend.model());
    defs.add_mirrors(subtrahend.model());
    say("INFO::Merging metric dimension...");
    defs.add_metrics(minuend.model(), maps[0], MetricTypes::kSigned);
    defs.add_metrics(subtrahend.model(), maps[1], MetricTypes::kSigned);
    say(" done.\nINFO::Merging program dimension...");
    defs.add_call_tree(minuend.model(), maps[0]);
    defs.add_call_tree(subtrahend.model(), maps[1]);
    say(" done.\nINFO::Merging system dimension...");
    const SystemUnification mode = o.system();
    unify_system(defs, minuend.model(), maps[0], mode);
    unify_system(defs, subtrahend.model(), maps[1], mode);
    say(" done.\nINFO::Mapping severities... done.\nINFO::Merging topologies...");
    defs.add_topologies(minuend.model(), maps[0]);
    defs.add_topologies(subtrahend.model(), maps[1]);
    say(" done.\nINFO::Diff operation...");
    auto model = defs.finish();
    say(" done.\n++++++++++++ Diff operation ends successfully ++++++++++++++++\n");
    say("Writing " + o.output);
    write_combination({&minuend, &subtrahend}, maps, model, Combination::kDiff,
                      report_name(o.output));
    say(" done.\n");
  });
}

namespace {

// cube_merge and cube_mean: n inputs unified one after the other.
int merge_or_mean(int argc, char** argv, bool mean) {
  const char* name = mean ? "mean" : "merge";
  AlgebraOptions o;
  o.output = name;
  const std::string text =
      usage(argv[0], "[-c] [-C] [-h] <cube experiment> ...", name,
            mean ? "  -c     Do not collapse system dimension, if experiments are incompatible\n"
                 : "  -c     Reduce system dimension, if experiments are incompatible\n",
            "  -C     Collapse system dimension!\n");
  parse(argc, argv, text, o, mean ? 1 : 2, SIZE_MAX, "\nError: Wrong arguments.\n");
  const std::string title = mean ? "Mean" : "Merge";
  return guarded(mean ? "cube_mean" : "cube_merge", [&] {
    say("++++++++++++ " + title + " operation begins ++++++++++++++++++++++++++\n");
    std::vector<std::unique_ptr<Report>> inputs;
    for (const std::string& path : o.inputs)
      inputs.push_back(std::make_unique<Report>(read_report(path, !mean)));
    UnifiedDefinitions defs;
    std::vector<InputMapping> maps(inputs.size());
    std::vector<const Report*> reports;
    for (const auto& in : inputs) {
      defs.add_mirrors(in->model());
      reports.push_back(in.get());
    }
    // cube_mean reduces system trees unless -c; cube_merge only with -c.
    if (mean) o.reduce = !o.reduce;  // cube_mean reduces by default; -c means strict
    const SystemUnification mode = o.system();
    for (size_t i = 0; i < inputs.size(); ++i)
      unify_one(defs, *inputs[i], maps[i], i, mean ? "MEAN" : "MERGE", mode,
                mean ? "INFO::Adding topologies..." : "INFO::Merging topologies...");
    auto model = defs.finish();
    say("INFO::" + title + " operation... done.\n");
    say("++++++++++++ " + title + " operation ends successfully +++++++++++++++" +
        (mean ? "+" : "") + "\n");
    say("Writing " + o.output);
    write_combination_in_job(reports, maps, model, mean ? Combination::kMean : Combination::kMerge,
                             report_name(o.output));
    say(mean ? " done. \n" : " done.\n");
  });
}

}  // namespace

int merge_main(int argc, char** argv) {
  return merge_or_mean(argc, argv, false);
}
int mean_main(int argc, char** argv) {
  return merge_or_mean(argc, argv, true);
}

int cmp_main(int argc, char** argv) {
  const std::string text = std::string("Usage: ") + argv[0] +
                           " [-h] <cube experiment 1> <cube experiment 2>\n"
                           "  -h     Help; Output a brief help message.\n\n" +
                           kBugs;
  // -o and -c are in CubeLib's option string but refused; -h, -? and unknown ones are help.
  const EarlyExit wrong = failure(text + "\nError: Wrong arguments.\n");
  OptionTable table = cubelib_convention(
      {{'o', Argument::kRequired, wrong}, {'c', Argument::kNone, wrong}}, text, true);
  table.operands = OperandCount{2, 2, failure(text + "Error: Two files required.\n\n")};
  const std::vector<std::string> files = parse_command_line(table, argc, argv).operands;
  bool equal = false;
  const int rc = guarded("cube_cmp", [&] {
    const Report lhs = read_report(files[0], true);
    const Report rhs = read_report(files[1], true);
    say("++++++++++++ Compare operation begins ++++++++++++++++++++++++++\n");
    const Comparison c = compare_reports(lhs, rhs);
    equal = c.equal;
    say(c.transcript);
    say(equal ? "Experiments are equal.\n" : "Experiments are not equal.\n");
    say("+++++++++++++ Compare operation ends successfully ++++++++++++++++\n");
  });
  return rc != 0 ? rc : (equal ? 0 : 1);
}

}  // namespace cubekit::tools
