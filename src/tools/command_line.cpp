// The tools' one option parser (command_line.hpp): glibc's getopt driven by a tool's table.
#include "command_line.hpp"

#include <getopt.h>

#include <iostream>
#include <utility>

namespace cubekit::tools {

EarlyExit failure(std::string text) {
  return EarlyExit{Stream::kStderr, 1, std::move(text)};
}

EarlyExit help(std::string text, Stream stream, int status) {
  return EarlyExit{stream, status, std::move(text)};
}

int print_stop(const EarlyExit& stop) {
  std::ostream& out = stop.stream == Stream::kStdout ? std::cout : std::cerr;
  out << stop.text << std::flush;
  return stop.status;
}

OptionTable cubelib_convention(std::vector<OptionRule> options, const std::string& usage,
                               bool question_mark, Stream stream) {
  const EarlyExit usage_stop = help(usage + "\n", stream);
  options.push_back({'h', Argument::kNone, usage_stop});
  if (question_mark) options.push_back({'?', Argument::kNone, usage_stop});
  OptionTable table{std::move(options)};
  table.unknown = usage_stop;
  return table;
}

namespace {

// getopt's option string: each letter, with ':' after those that take an argument.
std::string getopt_letters(const OptionTable& table) {
  std::string letters;
  for (const OptionRule& rule : table.options) {
    letters += rule.letter;
    if (rule.argument != Argument::kNone) letters += ':';
  }
  return letters;
}

const OptionRule* rule_of(const OptionTable& table, int letter) {
  for (const OptionRule& rule : table.options)
    if (rule.letter == letter) return &rule;
  return nullptr;
}

// The argument of `rule` as getopt read it; kWordIf gives a separate word it does not accept
// back to the operands (CubeLib's cube_dump -w). An attached one (-wxyz) stays: giving it back
// would have getopt read the same word again, for ever.
const char* argument_of(const OptionRule& rule, char** argv) {
  if (rule.argument == Argument::kNone) return nullptr;
  if (rule.argument == Argument::kWordIf && !rule.accepts(optarg) && optarg == argv[optind - 1]) {
    --optind;
    return nullptr;
  }
  return optarg;
}

const OptionRule* rule_named(const OptionTable& table, const std::string& word) {
  for (const OptionRule& rule : table.options) {
    if (rule.long_name && word == std::string("--") + rule.long_name) return &rule;
    if (!rule.long_only && word.size() == 2 && word[0] == '-' && word[1] == rule.letter)
      return &rule;
  }
  return nullptr;
}

void record(CommandLine& line, const OptionRule& rule, const char* argument,
            const TakeOption& take) {
  if (take) take(rule.letter, argument);
  line.options.push_back(
      {rule.letter, argument ? std::optional<std::string>(argument) : std::nullopt});
}

// The whole-word reading (OptionTable::whole_words).
CommandLine parse_whole_words(const OptionTable& table, int argc, char** argv,
                              const TakeOption& take) {
  CommandLine line;
  for (int i = 1; i < argc; ++i) {
    const OptionRule* rule = rule_named(table, argv[i]);
    if (!rule) {
      line.operands.emplace_back(argv[i]);
      continue;
    }
    if (rule->stops) throw *rule->stops;
    const char* argument = nullptr;
    if (rule->argument != Argument::kNone) {
      if (i + 1 == argc) throw table.missing_argument.value_or(failure("missing argument\n"));
      argument = argv[++i];
    }
    record(line, *rule, argument, take);
  }
  return line;
}

// The getopt reading.
CommandLine parse_with_getopt(const OptionTable& table, int argc, char** argv,
                              const TakeOption& take) {
  const std::string letters = getopt_letters(table);
  CommandLine line;
  optind = 1;
  opterr = table.diagnostics ? 1 : 0;
  for (;;) {
    optopt = 0;  // glibc sets it only for an unknown option or a missing argument
    const int c = getopt(argc, argv, letters.c_str());
    if (c == -1) break;
    const OptionRule* rule = c == '?' && optopt != 0 ? nullptr : rule_of(table, c);
    if (!rule) {
      if (table.unknown) throw *table.unknown;
      continue;
    }
    if (rule->stops) throw *rule->stops;
    record(line, *rule, argument_of(*rule, argv), take);
  }
  for (int i = optind; i < argc; ++i) line.operands.emplace_back(argv[i]);
  return line;
}

}  // namespace

CommandLine parse_command_line(const OptionTable& table, int argc, char** argv,
                               const TakeOption& take) {
  CommandLine line = table.whole_words ? parse_whole_words(table, argc, argv, take)
                                       : parse_with_getopt(table, argc, argv, take);
  if (table.operands &&
      (line.operands.size() < table.operands->min || line.operands.size() > table.operands->max))
    throw table.operands->otherwise;
  return line;
}

}  // namespace cubekit::tools
