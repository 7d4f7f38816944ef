// cube3to4 and cube4to3: converting between Cube 3 documents (.cube, .cube.gz) and Cube 4
// reports (.cubex), option-compatible with CubeLib 4.6's tools: `-o <name>` and `-h`, any
// number of inputs, output names derived from the input unless -o is given (then the second
// input onward get ".1", ".2", ... appended). Progress goes to stdout as CubeLib prints it.
// cubekit adds `cube4to3 -x`: values printed exactly instead of rounded as CubeLib prints them.

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cubekit/cube3_writer.hpp"
#include "cubekit/derived.hpp"
#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"
#include "cubekit/report.hpp"
#include "cubekit/writer.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

struct Options {
  std::string output;         // empty: derived from each input
  bool exact_values = false;  // cube4to3 -x (a cubekit addition)
  std::vector<std::string> files;
};

// CubeLib's conventions (cubelib_convention, with -?); no input is an error (exit 1).
Options parse(int argc, char** argv, const std::string& usage, bool to_cube4) {
  Options o;
  std::vector<OptionRule> rules{{'o', Argument::kRequired}};
  if (!to_cube4) rules.push_back({'x'});
  OptionTable table = cubelib_convention(std::move(rules), usage, true);
  table.operands =
      OperandCount{1, SIZE_MAX, failure(usage + "Error: At least one file is required.\n\n")};
  o.files = parse_command_line(table, argc, argv, [&](char option, const char* arg) {
              if (option == 'o') o.output = arg;
              if (option == 'x') o.exact_values = true;
            }).operands;
  return o;
}

// The output name for input number `i` given -o: the second and later inputs get ".<i>".
std::string numbered(const std::string& output, size_t i) {
  return i == 0 ? output : output + "." + std::to_string(i);
}

// Cuts the name at its last ".cube" (which also ends ".cube.gz" and ".cubex" names); a name
// without one is kept whole.
std::string stem(const std::string& name) {
  const size_t gz = name.rfind(".cube.gz");
  if (gz != std::string::npos) return name.substr(0, gz);
  return name.substr(0, name.rfind(".cube"));
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string usage_3to4() {
  return "Usage: cube3to4 [-o output] [-h] <cube1> <cube2> ..\n"
         "  -o     Output name; \".cubex\" is appended (default: the input name without\n"
         "         .cube / .cube.gz). With several inputs the second onward get \".1\", \".2\", "
         "...\n"
         "  -h     Print this help.\n\n";
}

std::string usage_4to3() {
  return "Usage: cube4to3 [-o output] [-h] [-x] <cube1> <cube2> ..\n"
         "  -o     Output file name, used as given; a name ending in .gz is written gzip\n"
         "         compressed (default: <input name without .cubex>.cube). With several inputs\n"
         "         the second onward get \".1\", \".2\", ...\n"
         "  -x     Exact values: print each so that it reads back bit for bit (default: 6\n"
         "         significant digits, as CubeLib prints them)\n"
         "  -h     Print this help.\n\n";
}

void convert_3to4(const std::string& input, const std::string& name) {
  std::cout << "Reading " << input << " ... " << std::flush;
  const Report report = Report::open(input);
  std::cout << "\n Start to export " << input << " into " << name << ".cubex" << std::endl;
  write_report(report, name + ".cubex");
  std::cout << " done." << std::endl;
}

// Derived metrics are written with their computed values, as CubeLib does; if the report's
// CubePL does not compile, they are left out with a warning and the rest is written.
void convert_4to3(const std::string& input, const std::string& name, bool exact_values) {
  std::cout << "Reading " << input << " ... " << std::flush;
  const Report report = Report::open(input);
  std::cout << " done." << std::endl;
  std::cout << " Start to export " << input << " into " << name << std::endl;
  const auto note = [](const std::string& text) { std::cerr << "Warning: " << text << '\n'; };
  std::optional<MetricEngine> engine;
  try {
    engine.emplace(report);
  } catch (const CubePLError& e) {
    note(std::string(e.what()) + "; derived metrics are left out");
  }
  Cube3Options options;
  options.gzip = ends_with(name, ".gz");
  options.exact_values = exact_values;
  if (engine)
    write_cube3(materialized_report(report, *engine), name, options, note);
  else
    write_cube3(report, name, options, note);
  std::cout << "done." << std::endl;
}

// Converts every input in turn and stops at the first failure, as CubeLib does.
int run(int argc, char** argv, const char* tool, const std::string& usage, bool to_cube4) {
  const Options o = parse(argc, argv, usage, to_cube4);
  for (size_t i = 0; i < o.files.size(); ++i) {
    const std::string& input = o.files[i];
    const std::string name = !o.output.empty() ? numbered(o.output, i)
                             : to_cube4        ? stem(input)
                                               : stem(input) + ".cube";
    try {
      if (to_cube4)
        convert_3to4(input, name);
      else
        convert_4to3(input, name, o.exact_values);
    } catch (const Error& e) {
      std::cout << std::flush;
      std::cerr << tool << ": " << e.what() << '\n';
      return 1;
    }
  }
  return 0;
}

}  // namespace

int cube3to4_main(int argc, char** argv) {
  return run(argc, argv, "cube3to4", usage_3to4(), true);
}

int cube4to3_main(int argc, char** argv) {
  return run(argc, argv, "cube4to3", usage_4to3(), false);
}

}  // namespace cubekit::tools
