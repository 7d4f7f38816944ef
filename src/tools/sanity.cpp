// cube_sanity: CubeLib 4.6's sanity checks of one report (tools guide §1.5), a summary line per
// check on standard output, details with -v (and to the -o file). On a terminal it shows its
// progress and colours as the original does; otherwise it prints plain lines, which is what
// the original's output reads as once the progress is overwritten. The -o file gets the colour
// codes always, as the original writes them (CubeLib's test 24 compares the file byte for byte).
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cubekit/atomic_file.hpp"
#include "cubekit/error.hpp"
#include "cubekit/sanity.hpp"
#include "tools.hpp"

namespace cubekit::tools {
namespace {

std::string usage(const char* self) {
  return std::string("Usage: ") + self +
         " [ flags ] <cube experiment>\n"
         "where flags basically turns certains tests on or off:\n"
         "  -h                   Help; Output a brief help message.\n"
         "  -n                   Disables the (time consuming) check for negative\n"
         "                          inclusive metric values.\n"
         "  -x                   Disables the (time consuming) check for negative\n"
         "                          exclusive metric values.\n"
         "  -l                   Disables checks for line numbers.\n"
         "  -f <file.filt>       Checks whether a node's name is matched by a\n"
         "                          pattern in file.filt.\n"
         "  -o <output_file>     Path of the output file. If no output file is\n"
         "                          given, detailed output will be suppressed. A\n"
         "                          summary will always be printed out to stdout.\n"
         "  -v <0|1|2|3>         Verbosity level of output\n\n"
         "Report bugs to <scalasca@fz-juelich.de>\n";
}

// Prints as CubeLib's constraints do: summary lines on standard output, details (by
// verbosity: 1 headers and totals, 2 also failures, 3 every test) to `details`.
class PrintingReporter : public SanityReporter {
 public:
  PrintingReporter(int verbosity, std::ostream& details, bool details_coloured)
      : verbosity_(verbosity),
        details_(details),
        terminal_(isatty(STDOUT_FILENO) == 1),
        details_coloured_(details_coloured) {}

  void begin(const std::string& check, unsigned depth, size_t progress_every) override {
    name_ = check;
    indent_ = std::string(2 * depth, ' ');
    progress_every_ = progress_every;
    tests_ = failed_ = 0;
  }

  void test(const std::function<std::string()>& what, bool passed,
            const std::string& why) override {
    if (tests_++ == 0 && verbosity_ > 0) details_ << indent_ << name_ << " ... " << std::endl;
    if (terminal_ && progress_every_ != 0 && tests_ % progress_every_ == 0)
      std::cout << '\r' << indent_ << name_ << " ... " << tests_ << std::flush;
    if (verbosity_ >= 3)
      details_ << indent_ << "    " << name_ << " :: " << what() << " ... "
               << colour(details_coloured_, passed ? "\033[32m" : "\033[31m")
               << (passed ? "OK" : "FAIL") << colour(details_coloured_, "\033[39m") << std::endl;
    if (passed) return;
    ++failed_;
    if (verbosity_ >= 2) {
      std::istringstream lines(why);
      for (std::string line; std::getline(lines, line);)
        details_ << indent_ << "      " << line << '\n';
    }
  }

  void end() override {
    std::cout << (terminal_ ? "\r" : "") << indent_ << name_ << " ... " << tests_ - failed_ << " / "
              << tests_ << colour(terminal_, "\033[32m") << " OK" << colour(terminal_, "\033[39m")
              << std::endl;
    if (verbosity_ > 0)
      details_ << indent_ << colour(details_coloured_, "\033[32m")
               << "    Passed:  " << tests_ - failed_ << " / " << tests_
               << colour(details_coloured_, "\033[39m") << '\n'
               << indent_ << colour(details_coloured_, "\033[31m") << "    Failed:  " << failed_
               << " / " << tests_ << colour(details_coloured_, "\033[39m") << '\n'
               << indent_ << colour(details_coloured_, "\033[33m") << "    Skipped: 0 / " << tests_
               << colour(details_coloured_, "\033[39m") << std::endl;
  }

 private:
  static const char* colour(bool on, const char* code) { return on ? code : ""; }

  int verbosity_;
  std::ostream& details_;
  bool terminal_, details_coloured_;
  std::string name_, indent_;
  size_t progress_every_ = 0, tests_ = 0, failed_ = 0;
};

// The original says everything on stdout: -h the usage (exit 0); -?, an unknown option or a
// missing argument the usage and the option as a number, "-63" for '?' (exit 1); a wrong
// number of reports the usage and an empty line (exit 1). glibc says nothing.
OptionTable sanity_options(const char* self) {
  const std::string text = usage(self);
  const EarlyExit unknown{Stream::kStdout, 1, text + "Error: Unknown option -63\n"};
  const auto value = Argument::kRequired;
  OptionTable table{{{'o', value},
                     {'f', value},
                     {'n'},
                     {'x'},
                     {'v', value},
                     {'l'},
                     {'h', Argument::kNone, help(text, Stream::kStdout)},
                     {'?', Argument::kNone, unknown}}};
  table.diagnostics = false;
  table.unknown = unknown;
  table.operands = OperandCount{1, 1, EarlyExit{Stream::kStdout, 1, text + "\n"}};
  return table;
}

}  // namespace

int sanity_main(int argc, char** argv) {
  SanityOptions options;
  std::string output, filter_file;
  int verbosity = 0;
  const std::string path =
      parse_command_line(sanity_options(argv[0]), argc, argv, [&](char c, const char* arg) {
        if (c == 'n') options.negative_inclusive = false;
        if (c == 'x') options.negative_exclusive = false;
        if (c == 'l') options.line_numbers = false;
        if (c == 'f') filter_file = arg;
        if (c == 'o') output = arg;
        if (c == 'v') verbosity = static_cast<int>(std::strtol(arg, nullptr, 0));
      }).operands[0];
  if (!filter_file.empty()) options.filter_patterns = read_filter_patterns(filter_file);
  const Report report = Report::open(path);
  MetricEngine engine(report);
  std::optional<AtomicFile> file;  // the details appear whole or not at all
  if (!output.empty()) file.emplace(output);
  PrintingReporter reporter(verbosity, file ? file->stream() : std::cout,
                            file || isatty(STDOUT_FILENO) == 1);
  check_sanity(engine, options, reporter);
  if (file) file->commit();
  return 0;
}

}  // namespace cubekit::tools
