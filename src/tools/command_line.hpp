// How every tool reads its command line: one declarative table per tool, one parser, one usage
// printer and one error path.
//
// The table (OptionTable) says, as data, what CubeLib's tool does with each option:
//   - OptionRule: the letter, whether it takes an argument (Argument), and either nothing more
//     (the option is handed to the tool) or an EarlyExit: print this text to this stream and end
//     with this status (-h prints the usage to stdout and exits 0 in one tool, to stderr in
//     another;
//     -? exits 1 in some). Argument::kWordIf is cube_dump's -w: the next word is its argument
//     only when `accepts` says so, otherwise it stays an operand.
//   - diagnostics: whether glibc's getopt prints its own line ("invalid option -- 'k'", "option
//     requires an argument -- 'o'") for an unknown option or a missing argument (opterr);
//   - unknown: what such an option does then: ignored (unset) or an EarlyExit;
//   - operands: how many operands the tool takes and the EarlyExit when that does not fit (unset:
//     the tool checks them itself, e.g. after another check CubeLib makes first).
// The parser is POSIX getopt (glibc's) under the table, so clustering (-pc), attached
// arguments (-ofile), "--", operands before options and the first-stop-wins order stay what
// CubeLib's tools do. Options are handed to `take` in command-line order as they are read, a
// repeated option each time (the last one wins where the tool keeps one value), and an option
// after an EarlyExit is never read: `-z bad -h` fails on -z, `-h -z bad` prints the help.
//
// cubekit's own tools (generate, model, serve) read GNU-style long options instead
// (OptionTable::long_options): "--name VALUE", "--name=VALUE", "-o VALUE", "-oVALUE", options
// and operands in any order, "--" ends the options. There the table also carries each option's
// help (value_name, description: options_help() prints them), its allowed values (choices) and
// how many words its argument takes (--point x=10 FILE). An unknown option, a missing argument or
// a value outside the choices is an error naming the option, before the tool does anything.
//
// The one error path: an EarlyExit thrown anywhere in a tool (by the parser, by `take`, by a later
// check of the operands) is printed whole and ends the tool with its status, in src/cli/main.cpp's
// run(). Errors print their text on stderr and end with status 1 (`failure`); the
// help ends as the original tool's does. No tool calls std::exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::tools {

enum class Stream { kStdout, kStderr };

// Ends the tool: `text` (verbatim; CubeLib's usage texts) on `stream`, then exit `status`.
struct EarlyExit {
  Stream stream = Stream::kStderr;
  int status = 1;
  std::string text;
};
// An error: `text` on stderr, status 1.
EarlyExit failure(std::string text);
// The help: `text` on `stream`, status `status` (0 unless CubeLib's tool says otherwise).
EarlyExit help(std::string text, Stream stream, int status = 0);
// The usage printer: writes an EarlyExit's text to its stream and returns its status.
int print_stop(const EarlyExit& stop);

enum class Argument {
  kNone,
  kRequired,
  kWordIf,  // the next word, when `accepts` says it is one (else the option has none)
};

struct OptionRule {
  char letter = 0;
  Argument argument = Argument::kNone;
  std::optional<EarlyExit> stops = std::nullopt;       // set: the option ends the tool (help)
  bool (*accepts)(const std::string& word) = nullptr;  // Argument::kWordIf only
  // Whole-word tables only: the option's "--name" form, and whether "-<letter>" is not one
  // (the letter then only tells `take` which option it is).
  const char* long_name = nullptr;
  bool long_only = false;
  // Long-option tables only (OptionTable::long_options):
  const char* value_name = nullptr;   // the argument in the help ("FILE"); nullptr: "VALUE"
  const char* description = nullptr;  // the option's line in the help
  std::vector<std::string_view> choices = {};  // the argument's allowed values (empty: any)
  unsigned words = 1;  // words of the argument: 2 for "--point x=10 FILE" (see argument_words)
};

struct OperandCount {
  size_t min = 0, max = SIZE_MAX;
  EarlyExit otherwise;
};

struct OptionTable {
  std::vector<OptionRule> options;
  bool diagnostics = true;                          // glibc's own line for unknown options (opterr)
  std::optional<EarlyExit> unknown = std::nullopt;  // unset: unknown options are ignored
  std::optional<OperandCount> operands = std::nullopt;  // unset: the tool checks them itself
  // Whole words instead of getopt (tau2cube): each word is an option ("-o", "--user-events")
  // or an operand; no clusters, no attached arguments, no "--", no reordering; an option's
  // argument is the next word, whatever it is, and `missing_argument` ends a last option that
  // lacks one. Unknown options are operands.
  bool whole_words = false;
  std::optional<EarlyExit> missing_argument = std::nullopt;
  // GNU-style long options instead of getopt (cubekit's own tools; see the top of this file).
  // `program` names the tool in the errors ("cubekit model: unknown option '--x'").
  bool long_options = false;
  std::string program = {};
};

// One option as given: its letter and argument (absent for options without one). An argument of
// several words (OptionRule::words) holds them joined by '\0', which no command-line word
// contains; argument_words() splits them, and `take` sees only the first.
struct GivenOption {
  char letter = 0;
  std::optional<std::string> argument;
};

struct CommandLine {
  std::vector<GivenOption> options;  // in command-line order; repeated ones repeated
  std::vector<std::string> operands;
};

// The words of an option's argument (OptionRule::words of them; one for most options).
std::vector<std::string> argument_words(const GivenOption& option);

// The rows of a long-option table: "--name VALUE" (an argument named `value_name`, of `words`
// words, one of `choices` when given) or, with value_name nullptr, the flag "--name". `key` is
// the letter `take` sees; "-<key>" is an option too only when `letter_too`.
OptionRule long_option(char key, const char* name, const char* value_name, const char* description,
                       std::vector<std::string_view> choices = {}, unsigned words = 1,
                       bool letter_too = false);
// Adds -h and --help to a long-option table: `head` and options_help() on stdout, exit 0.
void add_long_help(OptionTable& table, const std::string& head);

// The help of a long-option table: a line per option with its value name and description.
std::string options_help(const OptionTable& table);

// An option's argument as a number (long-option tools): a whole number in [min, max] or any
// finite real number; otherwise failure("PROGRAM: OPTION 'TEXT': expected ...").
uint64_t whole_number_argument(const OptionTable& table, const std::string& option,
                               const std::string& text, uint64_t min = 0,
                               uint64_t max = UINT64_MAX);
double number_argument(const OptionTable& table, const std::string& option,
                       const std::string& text);

// The convention most of CubeLib's tools share: -h (and -? when `question_mark`) and unknown
// options, after glibc's line, print `usage` and a newline on `stream` and exit 0.
OptionTable cubelib_convention(std::vector<OptionRule> options, const std::string& usage,
                               bool question_mark, Stream stream = Stream::kStderr);

using TakeOption = std::function<void(char letter, const char* argument)>;

// Reads argv[1..argc) by `table`, handing each option to `take` (when given) as it is read;
// throws the EarlyExit the table or `take` says. argv is permuted as getopt does.
CommandLine parse_command_line(const OptionTable& table, int argc, char** argv,
                               const TakeOption& take = {});

}  // namespace cubekit::tools
