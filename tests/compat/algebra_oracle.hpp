// Running CubeLib's multi-input tool steps of ../shared/oracle/_algebra with our tools: the
// step's command with its inputs resolved (INPUTS.txt) and its output put in a temporary
// directory, then our cube_dump of the written report against the original's dumps.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace cubekit::test {

namespace fs = std::filesystem;

// The real file behind an INPUTS.txt origin ("extrap__single_parameter__mm.x10y1z1.r1__profile.
// cubex", "vendor/cubelib/examples/tools/ReMap2/scorep.spec (cube4 snapshot)"); empty if none.
inline fs::path algebra_input(const std::string& origin) {
  const fs::path real = shared_dir() / "data" / "real";
  if (origin.rfind("data/real/", 0) == 0) return shared_dir() / origin;
  const std::string single = "extrap__single_parameter__";
  if (origin.rfind(single, 0) == 0) {
    std::string d = origin.substr(single.size());
    return real / "extrap" / "single_parameter" /
           (d.substr(0, d.find("__profile.cubex")) + ".cubex");
  }
  const std::string threaded = "extrap__simple_threaded__";
  if (origin.rfind(threaded, 0) == 0) {
    const std::string d = origin.substr(threaded.size());
    return real / "extrap" / "simple_threaded" / d.substr(d.find("__") + 2);
  }
  if (origin.rfind("data/real/", 0) == 0) return shared_dir() / origin;
  if (origin == "cubelib__examples__cube__summary.cubex")
    return real / "cubelib" / "examples" / "summary.cubex";
  const std::string test = "cubelib__test__";
  if (origin.rfind(test, 0) == 0) {
    std::string rest = origin.substr(test.size());
    const size_t sep = rest.find("__");
    const fs::path p = real / "cubelib" / rest.substr(0, sep) / rest.substr(sep + 2);
    return fs::exists(p) ? p : fs::path();
  }
  const std::string remap = "vendor/cubelib/examples/tools/ReMap2/";
  if (origin.rfind(remap, 0) == 0) {
    const std::string name = origin.substr(remap.size(), origin.find(' ') - remap.size());
    return real / "cubelib" / "remap" / name;
  }
  return {};
}

// INPUTS.txt of a case: local name → real file (only those that exist).
inline std::map<std::string, fs::path> algebra_inputs(const fs::path& case_dir) {
  std::map<std::string, fs::path> out;
  std::ifstream in(case_dir / "INPUTS.txt");
  for (std::string line; std::getline(in, line);) {
    const size_t arrow = line.find(" <- ");
    if (arrow == std::string::npos) continue;
    std::string origin = line.substr(arrow + 4);
    origin = origin.substr(0, origin.find(" ("));
    // "a.spec, b.spec <- data/real/…/ (…)": several files of one folder.
    std::istringstream names(line.substr(0, arrow));
    for (std::string name; std::getline(names >> std::ws, name, ',');) {
      const fs::path p = algebra_input(origin.back() == '/' ? origin + name : origin);
      if (!p.empty()) out[name] = p;
    }
  }
  return out;
}

// A .cmd line split into words as bash does it: backslash escapes, '…' and "…" quoting.
inline std::vector<std::string> command_words(const std::string& cmd) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;  // the open quote character, 0 outside quotes
  for (size_t i = 0; i < cmd.size(); ++i) {
    const char c = cmd[i];
    if (quote == '\'' && c != '\'') {
      word += c;
    } else if (quote == '"' && c == '\\' && i + 1 < cmd.size() &&
               std::string("\"\\$`").find(cmd[i + 1]) != std::string::npos) {
      word += cmd[++i];
    } else if (quote == '"' && c != '"') {
      word += c;
    } else if (quote) {
      quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < cmd.size()) {
      word += cmd[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// Runs the words of a .cmd with the working directory `dir`, as the oracle was made; a leading
// `env NAME=value …` sets those variables for the tool only.
inline RunResult run_in(const fs::path& dir, std::vector<std::string> words) {
  std::vector<std::string> set_variables;
  if (!words.empty() && words.front() == "env") {
    words.erase(words.begin());
    while (!words.empty() && words.front().find('=') != std::string::npos) {
      const std::string& assignment = words.front();
      const size_t eq = assignment.find('=');
      set_variables.push_back(assignment.substr(0, eq));
      ::setenv(set_variables.back().c_str(), assignment.c_str() + eq + 1, 1);
      words.erase(words.begin());
    }
  }
  const fs::path back = fs::current_path();
  fs::current_path(dir);
  const RunResult r =
      run_tool(words.front(), std::vector<std::string>(words.begin() + 1, words.end()));
  fs::current_path(back);
  for (const std::string& name : set_variables) ::unsetenv(name.c_str());
  return r;
}

// Runs the tool step `step` of `case_dir` (its .cmd) with inputs resolved and the output name
// (-o) placed in `out_dir`. Returns the tool's result; `report` gets the written report's path.
inline RunResult run_algebra_step(const fs::path& case_dir, const std::string& step,
                                  const fs::path& out_dir, fs::path& report) {
  const auto inputs = algebra_inputs(case_dir);
  std::vector<std::string> args = command_words(read_file(case_dir / (step + ".cmd")));
  const std::string tool = args.front();
  args.erase(args.begin());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) {
      args[i + 1] = (out_dir / args[i + 1]).string();
      report = args[i + 1] + ".cubex";
      ++i;
    } else if (auto it = inputs.find(args[i]); it != inputs.end()) {
      args[i] = it->second.string();
    }
  }
  return run_tool(tool, args);
}

// Every dump kept for the written report `<name>.cubex` of a case: our cube_dump on `report`
// must print what the original printed. Failures name the first differing line.
// A dump without the values of the metrics `left_out`: their "Print out the data of the metric"
// sections, or their columns of a csv2 table. Other text is kept as it is.
inline std::string without_metrics(const std::string& dump,
                                   const std::vector<std::string>& left_out) {
  const auto is_left_out = [&](const std::string& name) {
    return std::find(left_out.begin(), left_out.end(), name) != left_out.end();
  };
  const std::string section = "Print out the data of the metric ";
  std::istringstream in(dump);
  std::ostringstream out;
  std::vector<bool> drop_column;  // csv2: by column, from its header
  bool dropping = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(section, 0) == 0) dropping = is_left_out(line.substr(section.size()));
    if (line.rfind("Cnode ID, Thread ID,", 0) == 0) {
      std::istringstream header(line);
      drop_column.clear();
      for (std::string cell; std::getline(header, cell, ',');)
        drop_column.push_back(is_left_out(cell));
    }
    if (dropping) continue;
    if (drop_column.empty()) {
      out << line << '\n';
      continue;
    }
    std::istringstream cells(line);
    std::string kept;
    size_t column = 0;
    for (std::string cell; std::getline(cells, cell, ','); ++column)
      if (column >= drop_column.size() || !drop_column[column])
        kept += (kept.empty() ? "" : ",") + cell;
    out << kept << '\n';
  }
  return out.str();
}

inline void expect_dumps_equal(const fs::path& case_dir, const std::string& name,
                               const fs::path& report,
                               const std::vector<std::string>& left_out = {}) {
  int compared = 0;
  for (const auto& f : fs::directory_iterator(case_dir)) {
    const std::string file = f.path().filename();
    const std::string prefix = name + ".cubex.dump_";
    if (file.rfind(prefix, 0) != 0 || f.path().extension() != ".cmd") continue;
    const std::string step = file.substr(0, file.size() - 4);
    std::vector<std::string> args = command_words(read_file(case_dir / (step + ".cmd")));
    args.erase(args.begin());
    args.back() = report.string();
    const RunResult r = run_tool("cube_dump", args);
    const std::string expected = without_metrics(read_file(case_dir / (step + ".out")), left_out);
    const std::string got = without_metrics(r.out, left_out);
    ++compared;
    if (got != expected)
      ADD_FAILURE() << step << ": " << first_difference(got, expected) << "\n" << r.err;
  }
  EXPECT_GT(compared, 0) << "no dumps of " << name << " in " << case_dir;
}

}  // namespace cubekit::test
