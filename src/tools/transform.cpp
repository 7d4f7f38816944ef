// cube_cut, cube_clean, cube_part, cube_canonize, cube_commoncalltree, cube_exclusify and
// cube_inclusify (tools guide §1.2), option- and output-compatible with CubeLib 4.6: each input
// is written on its own as `<input stem>_excl.cubex` / `<input stem>_incl.cubex` in the working
// directory, or `<o>_excl.cubex`, `<o>1_excl.cubex`, ... with -o; cube_cut and cube_clean write
// `<o>.cubex` (default cut / clean); cube_commoncalltree `<input>_commoncalltree.cubex` beside
// each input. Unlike CubeLib,
// cube_inclusify does not crash on MIN/MAXDOUBLE metrics: they stay EXCLUSIVE
// (docs/algebra_tools.md).

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/report_algebra.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

constexpr const char* kWrongArguments = "\nError: Wrong arguments.\n";

// The name without its Cube extension (CubeLib's get_cube4_name).
std::string cube4_stem(std::string name) {
  for (const char* ext : {".cubex", ".cube.gz", ".cube"})
    if (const size_t at = name.rfind(ext); at != std::string::npos) {
      name.resize(at);
      break;
    }
  return name;
}

// CubeLib's default output stem: the file name without its folder and Cube extension.
std::string default_stem(const std::string& input) {
  std::string stem = cube4_stem(input);
  if (const size_t slash = stem.rfind('/'); slash != std::string::npos) stem.erase(0, slash + 1);
  return stem;
}

int call_flavour_main(int argc, char** argv, MetricKind kind) {
  const bool inclusive = kind == MetricKind::kInclusive;
  const std::string usage =
      std::string("Usage: ") + argv[0] +
      (inclusive ? " [-h] [-c|-C]  <cube1> <cube2> ...\n" : " [-h] [-c|-C] <cube1> <cube2> ...\n") +
      "  -o     Name of the output file.\n"
      "  -c     Reduce system dimension. \n"
      "  -C     Collapse system dimension! Overrides option -c.\n"
      "  -h     Help; Output a brief help message.\n\n"
      "Report bugs to <scalasca@fz-juelich.de>\n";
  CallFlavourOptions options;
  options.stored_as = kind;
  options.note = [](const std::string& text) { std::cerr << text << std::endl; };
  OutputAndSystem o;
  OptionTable table = cubelib_convention(OutputAndSystem::rules(), usage, true);
  table.operands =
      OperandCount{1, SIZE_MAX, failure(usage + "Error: At least one file is required.\n\n")};
  const std::vector<std::string> inputs =
      parse_command_line(table, argc, argv, [&](char c, const char* arg) {
        o.take(c, arg);
      }).operands;
  options.system = o.system();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& input = inputs[i];
    say("Reading " + input + " ... ");
    std::string name = o.output.empty() ? default_stem(input) : o.output;
    if (!o.output.empty() && i > 0) name += std::to_string(i);
    const Report report = Report::open(input);
    write_call_flavoured(report, options, name + (inclusive ? "_incl.cubex" : "_excl.cubex"));
    say("done.\n");
  }
  return 0;
}

std::string cut_usage(const char* argv0) {
  return std::string("Usage: ") + argv0 +
         " [-h] [-c|-C] [-r nodename] [-p nodename] [-o output] <cube experiment>\n"
         "  -r     Re-root calltree at named node\n"
         "  -p     Prune calltree from named node (== \"inline\")\n"
         "  -o     Name of the output file (default: cut)\n"
         "  -c     Reduce system dimension, if experiments are incompatible. \n"
         "  -C     Collapse system dimension! Overrides option -c.\n"
         "  -h     Help; Show this brief help message and exit.\n\n"
         "Report bugs to <scalasca@fz-juelich.de>\n";
}

}  // namespace

int cut_main(int argc, char** argv) {
  const std::string usage = cut_usage(argv[0]);
  CutOptions options;
  OutputAndSystem o{"cut"};
  std::vector<OptionRule> rules = OutputAndSystem::rules();
  rules.push_back({'r', Argument::kRequired});
  rules.push_back({'p', Argument::kRequired});
  OptionTable table = cubelib_convention(std::move(rules), usage, false);
  table.operands = OperandCount{1, 1, failure(usage + kWrongArguments)};
  const std::string file = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
                             if (c == 'p') options.prunes.push_back(arg);
                             if (c == 'r') options.root = arg;  // CubeLib keeps the last -r
                             o.take(c, arg);
                           }).operands[0];
  if (options.root.empty() && options.prunes.empty()) {
    std::cerr << "Must specify new root node and/or node(s) to prune" << std::endl;
    return 1;
  }
  for (const std::string& prune : options.prunes)
    if (prune == options.root) {
      std::cerr << "Can't both reroot and prune node '" << prune << "'" << std::endl;
      return 1;
    }
  options.system = o.system();
  options.progress = say;
  options.warning = [](const std::string& text) { std::cerr << "WARNING: " << text << std::endl; };
  try {
    const Report input = read_report(file, true);
    say("++++++++++++ Cut operation begins ++++++++++++++++++++++++++\n");
    write_cut(input, options, report_name(o.output));
  } catch (const LookupError& e) {
    std::cout << std::flush;
    std::cerr << "ERROR: " << e.what();  // CubeLib ends without a newline
    return 1;
  }
  say("++++++++++++ Cut operation ends successfully ++++++++++++++++\n");
  say("Writing " + o.output + " ... done.\n");
  return 0;
}

int clean_main(int argc, char** argv) {
  const std::string usage = std::string("Usage: ") + argv[0] +
                            " [-o output] [-c|-C] [-h] <cube experiment>\n"
                            "  -o     Name of the output file (default: clean)\n"
                            "  -c     Reduce system dimension, if experiments are incompatible. \n"
                            "  -C     Collapse system dimension! Overrides option -c.\n"
                            "  -h     Help; Output a brief help message.\n\n"
                            "Report bugs to <scalasca@fz-juelich.de>\n";
  OutputAndSystem o{"clean"};
  OptionTable table = cubelib_convention(OutputAndSystem::rules(), usage, true);
  table.operands = OperandCount{1, 1, failure(usage + kWrongArguments)};
  const std::string file = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
                             o.take(c, arg);
                           }).operands[0];
  say("++++++++++++ Clean operation begins ++++++++++++++++++++++++++\n");
  say("Reading " + file + " ... \n");
  const Report input = Report::open(file);
  say("done.\n");
  write_clean(input, o.system(), say, report_name(o.output));
  say("++++++++++++ Clean operation ends successfully ++++++++++++++++\n");
  say("Writing " + o.output + " done.\n");
  return 0;
}

int part_main(int argc, char** argv) {
  const std::string usage = std::string(
                                "Partition some of system tree (processes) and void the remainder\n"
                                "Usage: ") +
                            argv[0] +
                            " [-h] [-I] [-R ranks] [-o output] <cubefile>\n"
                            "  -I     Invert sense of partition\n"
                            "  -R     List of process ranks for partition (e.g., \"0-3,7,13-\")\n"
                            "  -o     Name of the output file (default: part)\n"
                            "  -h     Help; Show this brief help message and exit.\n\n"
                            "Report bugs to <scalasca@fz-juelich.de>\n";
  bool invert = false;
  std::string ranks, output = "part";
  OptionTable table = cubelib_convention(
      {{'I'}, {'R', Argument::kRequired}, {'o', Argument::kRequired}}, usage, false);
  table.operands = OperandCount{1, 1, failure(usage + kWrongArguments)};
  const std::string file = parse_command_line(table, argc, argv, [&](char c, const char* arg) {
                             if (c == 'I') invert = true;
                             if (c == 'R') ranks = arg;
                             if (c == 'o') output = arg;
                           }).operands[0];
  if (ranks.empty()) {
    std::cerr << "Must specify partition criteria" << std::endl;
    return 1;
  }
  const auto to_stderr = [](const std::string& text) { std::cerr << text << std::endl; };
  say("Open the cube " + file + "...");
  const Report input = Report::open(file);
  say("done.\nCopy the  cube object...done.\n");
  say("++++++++++++ Part operation begins ++++++++++++++++++++++++++\n");
  const size_t groups = input.model().groups.size();
  std::vector<bool> kept = select_ranks(ranks, groups, to_stderr);
  if (invert) kept.flip();
  const size_t voided = write_part(input, kept, to_stderr, report_name(output));
  if (voided == groups || voided == 0) {
    std::cerr << "Error: partition contains " << (voided == 0 ? "all" : "none") << " of the "
              << groups << " processes." << std::endl;
    return 1;
  }
  say("Voiding " + std::to_string(voided) + " of " + std::to_string(groups) +
      " processes.\n++++++++++++ Part operation ends successfully ++++++++++++++++\n");
  say("Writing " + output + " ... done.\n");
  return 0;
}

int canonize_main(int argc, char** argv) {
  const std::string usage = std::string("Usage: ") + argv[0] +
                            " [ flags ] <input> <output>\n"
                            "where flags is any combination of the following:\n"
                            "   -h         Print this help\n"
                            "   -p         Use PDT format\n"
                            "   -m <num>   Maximum length\n"
                            "   -c         Lower case\n"
                            "   -f         Remove file names\n"
                            "   -l         Remove line numbers\n\n"
                            "Report bugs to <scalasca@fz-juelich.de>\n";
  CanonizeOptions options;
  const auto take = [&](char c, const char* arg) {
    if (c == 'c') options.lower_case = true;
    if (c == 'm') options.max_length = static_cast<size_t>(std::max(0, std::atoi(arg)));
    if (c == 'f') options.remove_file_names = true;
    if (c == 'l') options.remove_line_numbers = true;
    if (c == 'p') options.pdt = true;
  };
  OptionTable table = cubelib_convention({{'m', Argument::kRequired}, {'f'}, {'l'}, {'p'}, {'c'}},
                                         usage, true, Stream::kStdout);
  table.operands =
      OperandCount{2, 2,
                   EarlyExit{Stream::kStderr, 2,
                             "Please provide an input and an output cube file!\n" + usage + "\n"}};
  const std::vector<std::string> files = parse_command_line(table, argc, argv, take).operands;
  try {
    const Report input = Report::open(files[0]);
    write_canonized(input, options, cube4_stem(files[1]) + ".cubex");
  } catch (const Error& e) {
    std::cerr << "cube_canonize: " << e.what() << std::endl;
    return 255;  // CubeLib returns -1
  }
  return 0;
}

// Writes `<input stem>_commoncalltree.cubex` beside each input (CubeLib keeps the folder).
int commoncalltree_main(int argc, char** argv) {
  const std::string usage = std::string("Usage: ") + argv[0] +
                            " [-h] <cube experiment> ...\n"
                            "  -h     Help; Output a brief help message.\n\n"
                            "Report bugs to <scalasca@fz-juelich.de>\n";
  OptionTable table = cubelib_convention({}, usage, true);
  table.operands = OperandCount{2, SIZE_MAX, failure(usage + kWrongArguments)};
  const std::vector<std::string> files = parse_command_line(table, argc, argv).operands;
  say("++++++++++++ Minimal common calltree operation begins ++++++++++++++++++++++++++\n");
  std::vector<Report> reports;
  for (const std::string& file : files) {
    say("Reading " + file + " ... ");
    reports.push_back(Report::open(file));
    say("done.\n");
  }
  std::vector<const Model*> models;
  for (const Report& r : reports) models.push_back(&r.model());
  const std::vector<std::vector<bool>> kept = common_call_paths(models);
  // Refused before anything is written: CubeLib writes reports without call paths that no
  // reader, its own included, can open.
  if (std::find(kept[0].begin(), kept[0].end(), true) == kept[0].end())
    throw Error("the reports share no call path (no root with the same region)");
  for (size_t i = 0; i < reports.size(); ++i) {
    const std::string name = cube4_stem(files[i]) + "_commoncalltree";
    say("Writing " + name);
    write_call_tree_subset(reports[i], kept[i], name + ".cubex");
    say("done.\n");
  }
  say("++++++++++++ Minimal common calltree operation ends successfully ++++++++++++++++\n");
  say(" done.\n");
  return 0;
}

int exclusify_main(int argc, char** argv) {
  return call_flavour_main(argc, argv, MetricKind::kExclusive);
}
int inclusify_main(int argc, char** argv) {
  return call_flavour_main(argc, argv, MetricKind::kInclusive);
}

}  // namespace cubekit::tools
