// The tools' one option parser (command_line.hpp): glibc's getopt driven by a tool's table.
#include "command_line.hpp"

#include <getopt.h>

#include <algorithm>
#include <charconv>
#include <cmath>
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

// ---- GNU-style long options (OptionTable::long_options) ----

// How the help and the errors call an option: "--name", or "-o" for a letter without one.
std::string option_text(const OptionRule& rule) {
  return rule.long_name ? std::string("--") + rule.long_name : std::string{'-', rule.letter};
}

// The rule of a word "--name[=VALUE]" or "-o[VALUE]"; `attached` gets the VALUE written in it.
const OptionRule* long_rule_of(const OptionTable& table, const std::string& word,
                               std::optional<std::string>& attached) {
  for (const OptionRule& rule : table.options) {
    if (rule.long_name && word.rfind("--", 0) == 0) {
      const std::string name = word.substr(2, word.find('=') - 2);
      if (name != rule.long_name) continue;
      if (name.size() + 2 < word.size()) attached = word.substr(name.size() + 3);
      return &rule;
    }
    if (!rule.long_only && word.size() >= 2 && word[0] == '-' && word[1] == rule.letter &&
        (word.size() == 2 || rule.argument != Argument::kNone)) {
      if (word.size() > 2) attached = word.substr(2);
      return &rule;
    }
  }
  return nullptr;
}

// The argument of `rule` read at argv[i] (the attached VALUE and/or the words after it).
std::string long_argument(const OptionTable& table, const OptionRule& rule,
                          std::optional<std::string> attached, int argc, char** argv, int& i) {
  const std::string name = option_text(rule);
  if (rule.argument == Argument::kNone) {
    if (attached) throw failure(table.program + ": " + name + " takes no value\n");
    return {};
  }
  std::string words = attached ? *attached : std::string();
  for (unsigned w = attached ? 1 : 0; w < rule.words; ++w) {
    if (++i == argc)
      throw failure(table.program + ": " + name + " needs " +
                    (rule.words > 1 ? std::to_string(rule.words) + " values" : "a value") +
                    " (see --help)\n");
    words += (w ? std::string(1, '\0') : std::string()) + argv[i];
  }
  if (!rule.choices.empty() &&
      std::find(rule.choices.begin(), rule.choices.end(), words) == rule.choices.end()) {
    std::string allowed;
    for (const std::string_view choice : rule.choices)
      allowed += (allowed.empty() ? "" : ", ") + std::string(choice);
    throw failure(table.program + ": " + name + " '" + words + "': expected one of " + allowed +
                  "\n");
  }
  return words;
}

// The long-option reading.
CommandLine parse_long_options(const OptionTable& table, int argc, char** argv,
                               const TakeOption& take) {
  CommandLine line;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") {
      for (++i; i < argc; ++i) line.operands.emplace_back(argv[i]);
      break;
    }
    if (word.size() < 2 || word[0] != '-') {
      line.operands.push_back(word);
      continue;
    }
    std::optional<std::string> attached;
    const OptionRule* rule = long_rule_of(table, word, attached);
    if (!rule)
      throw table.unknown.value_or(
          failure(table.program + ": unknown option '" + word + "' (see --help)\n"));
    if (rule->stops) throw *rule->stops;
    const std::string argument = long_argument(table, *rule, attached, argc, argv, i);
    record(line, *rule, rule->argument == Argument::kNone ? nullptr : argument.c_str(), take);
    if (rule->argument != Argument::kNone) line.options.back().argument = argument;
  }
  return line;
}

}  // namespace

std::vector<std::string> argument_words(const GivenOption& option) {
  std::vector<std::string> words;
  if (!option.argument) return words;
  for (size_t start = 0;;) {
    const size_t end = option.argument->find('\0', start);
    words.push_back(option.argument->substr(start, end - start));
    if (end == std::string::npos) return words;
    start = end + 1;
  }
}

OptionRule long_option(char key, const char* name, const char* value_name, const char* description,
                       std::vector<std::string_view> choices, unsigned words, bool letter_too) {
  return {key,
          value_name ? Argument::kRequired : Argument::kNone,
          std::nullopt,
          nullptr,
          name,
          !letter_too,
          value_name,
          description,
          std::move(choices),
          words};
}

void add_long_help(OptionTable& table, const std::string& head) {
  table.options.push_back(long_option('h', "help", nullptr, "this help", {}, 1, true));
  table.options.back().stops = help(head + options_help(table), Stream::kStdout);
}

std::string options_help(const OptionTable& table) {
  std::vector<std::pair<std::string, std::string>> lines;
  size_t width = 0;
  for (const OptionRule& rule : table.options) {
    std::string names = rule.long_only || !rule.long_name
                            ? option_text(rule)
                            : std::string{'-', rule.letter} + ", --" + rule.long_name;
    if (rule.argument != Argument::kNone)
      for (unsigned w = 0; w < rule.words; ++w)
        names += std::string(" ") + (rule.value_name ? rule.value_name : "VALUE");
    width = std::max(width, names.size());
    lines.emplace_back(names, rule.description ? rule.description : "");
  }
  std::string help = "options:\n";
  for (const auto& [names, description] : lines)
    help += "  " + names + std::string(width - names.size() + 2, ' ') + description + "\n";
  return help;
}

uint64_t whole_number_argument(const OptionTable& table, const std::string& option,
                               const std::string& text, uint64_t min, uint64_t max) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || value < min ||
      value > max)
    throw failure(table.program + ": " + option + " '" + text + "': expected a whole number from " +
                  std::to_string(min) + " to " + std::to_string(max) + "\n");
  return value;
}

double number_argument(const OptionTable& table, const std::string& option,
                       const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value))
    throw failure(table.program + ": " + option + " '" + text + "': expected a number\n");
  return value;
}

CommandLine parse_command_line(const OptionTable& table, int argc, char** argv,
                               const TakeOption& take) {
  CommandLine line = table.long_options  ? parse_long_options(table, argc, argv, take)
                     : table.whole_words ? parse_whole_words(table, argc, argv, take)
                                         : parse_with_getopt(table, argc, argv, take);
  if (table.operands &&
      (line.operands.size() < table.operands->min || line.operands.size() > table.operands->max))
    throw table.operands->otherwise;
  return line;
}

}  // namespace cubekit::tools
