// The options of cubekit's own tools (generate, model, serve), read by the one table-driven
// parser (src/tools/command_line.hpp) in its GNU-style mode: every option the README's synopsis
// names is in the help, the spellings "--name VALUE", "--name=VALUE", "-oVALUE" and "--" mean
// the same, and bad options end with one line naming them, exit 1 and no file written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace cubekit::test {
namespace {

namespace fs = std::filesystem;

// The options ("--name" and "-x") in the README's synopsis block of `cubekit <tool>`.
std::set<std::string> readme_synopsis_options(const std::string& tool) {
  std::ifstream in(fs::path(CUBEKIT_SOURCE_DIR) / "README.md");
  const std::string head = "cubekit " + tool + " ";
  std::set<std::string> options;
  bool in_block = false, in_synopsis = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      in_synopsis = false;
      continue;
    }
    if (in_block && line.rfind(head, 0) == 0) in_synopsis = true;
    if (!in_synopsis) continue;
    const std::regex option(R"((^|[\[ (|])(--[a-z][a-z-]*|-[a-zA-Z])\b)");
    for (std::sregex_iterator m(line.begin(), line.end(), option), end; m != end; ++m)
      options.insert((*m)[2]);
  }
  return options;
}

TEST(OwnToolOptions, HelpListsEveryOptionOfTheReadmeSynopsis) {
  for (const std::string tool : {"generate", "model", "serve"}) {
    const std::set<std::string> documented = readme_synopsis_options(tool);
    ASSERT_GE(documented.size(), 3u) << "no synopsis of cubekit " << tool << " in README.md";
    for (const std::string help : {"-h", "--help"}) {
      const RunResult r = run_tool("cubekit", {tool, help});
      EXPECT_EQ(r.exit_code, 0) << tool << " " << help;
      EXPECT_EQ(r.err, "") << tool << " " << help;
      for (const std::string& option : documented)
        EXPECT_NE(r.out.find(option), std::string::npos)
            << "cubekit " << tool << " " << help << " does not list " << option << ":\n"
            << r.out;
    }
  }
}

// One location (1 machine, 1 node, 1 rank, 1 thread) and 40 call paths.
const std::vector<std::string> kSmall = {"--call-paths", "40", "--nodes",   "1",
                                         "--processes",  "1",  "--threads", "1"};

TEST(OwnToolOptions, GenerateSpellingsWriteTheSameReport) {
  TempDir dir("own-options");
  const std::string a = (dir.path() / "a.cubex").string(), b = (dir.path() / "b.cubex").string(),
                    c = (dir.path() / "c.cubex").string();
  std::vector<std::string> separate = {"generate", "-o", a};
  separate.insert(separate.end(), kSmall.begin(), kSmall.end());
  const RunResult r1 = run_tool("cubekit", separate);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_NE(r1.out.find("40 call paths, 1 locations"), std::string::npos) << r1.out;
  const RunResult r2 = run_tool("cubekit", {"generate", "--call-paths=40", "--nodes=1",
                                            "--processes=1", "--threads=1", "--output=" + b});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const RunResult r3 = run_tool("cubekit", {"generate", "--call-paths", "40", "--nodes", "1",
                                            "--processes", "1", "--threads", "1", "-o" + c, "--"});
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  EXPECT_EQ(read_file(a), read_file(b));
  EXPECT_EQ(read_file(a), read_file(c));
}

struct BadLine {
  std::vector<std::string> args;
  std::vector<std::string> named;  // what the one error line must name
};

TEST(OwnToolOptions, BadOptionsEndWithOneLineNamingThemAndNoFile) {
  const std::vector<BadLine> lines = {
      {{"generate", "-o", "x.cubex", "--seed", "abc"}, {"--seed", "abc"}},
      {{"generate", "-o", "x.cubex", "--depth", "1.5"}, {"--depth", "1.5"}},
      {{"generate", "-o", "x.cubex", "--seed", "-1"}, {"--seed", "-1"}},
      {{"generate", "-o", "x.cubex", "--noise", "x"}, {"--noise", "'x'"}},
      {{"generate", "-o", "x.cubex", "--bogus"}, {"'--bogus'"}},
      {{"generate", "-o", "x.cubex", "--papi=yes"}, {"--papi"}},
      {{"generate", "-o", "x.cubex", "extra"}, {"operand"}},
      {{"generate", "-o"}, {"--output"}},
      {{"model", "-s", "xml", "."}, {"-s", "'xml'", "table, json, csv"}},
      {{"model", "--measure", "avg", "."}, {"--measure", "mean, median, minimum, maximum"}},
      {{"model", "--scaling=medium", "."}, {"--scaling", "weak, strong"}},
      {{"model", "--point", "p=2"}, {"--point", "2 values"}},
      {{"model", "a", "b"}, {"one folder"}},
      {{"model", "-k"}, {"'-k'"}},
      {{"serve", "--port", "70000"}, {"--port", "70000", "0 to 65535"}},
      {{"serve", "--port", "-1"}, {"--port", "-1"}},
      {{"serve", "--threads", "0"}, {"--threads", "1 to 256"}},
      {{"serve", "--threads", "300"}, {"--threads", "1 to 256"}},
      {{"serve", "--root"}, {"--root"}},
      {{"serve", "extra"}, {"operand"}},
      {{"serve", "-k"}, {"'-k'"}},
  };
  TempDir dir("own-options");
  RunLimits limits;
  limits.working_dir = dir.path();
  for (const BadLine& line : lines) {
    std::string shown;
    for (const std::string& a : line.args) shown += a + " ";
    const RunResult r = run_tool("cubekit", line.args, limits);
    EXPECT_EQ(r.exit_code, 1) << shown << r.err;
    EXPECT_EQ(r.out, "") << shown;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << r.err;
    EXPECT_EQ(r.err.rfind("cubekit " + line.args[0] + ": ", 0), 0u) << shown << r.err;
    for (const std::string& word : line.named)
      EXPECT_NE(r.err.find(word), std::string::npos) << shown << "does not name " << word << ":\n"
                                                     << r.err;
  }
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a rejected command line wrote a file";
}

TEST(OwnToolOptions, ModelSpellingsAndOperandPlacesMeanTheSame) {
  TempDir dir("own-options");
  const std::string series = (dir.path() / "s").string();
  const RunResult g = run_tool("cubekit", {"generate", "--series", series, "--law", "time=3*p",
                                           "--points", "p=2,4,8,16,32", "--seed", "3"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const RunResult base = run_tool("cubekit", {"model", "-s", "csv", "--measure", "median", series});
  ASSERT_EQ(base.exit_code, 0) << base.err;
  EXPECT_EQ(base.out.rfind("callpath,metric,flavour,model,", 0), 0u) << base.out;
  const std::vector<std::vector<std::string>> same = {
      {"model", "-scsv", "--measure=median", series},
      {"model", series, "-s", "csv", "--measure", "median"},
      {"model", "--measure", "median", "-s", "csv", "--", series},
  };
  for (const std::vector<std::string>& args : same) {
    const RunResult r = run_tool("cubekit", args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, base.out) << args[1] << " " << args[2];
  }
  // --point takes two words: the point and its report.
  std::vector<std::string> points = {"model", "-s", "csv", "--measure", "median"};
  for (const int p : {2, 4, 8, 16, 32}) {
    points.push_back("--point");
    points.push_back("p=" + std::to_string(p));
    points.push_back(
        (fs::path(series) / ("exp.p" + std::to_string(p) + ".r1") / "profile.cubex").string());
  }
  const RunResult explicit_points = run_tool("cubekit", points);
  ASSERT_EQ(explicit_points.exit_code, 0) << explicit_points.err;
  EXPECT_EQ(explicit_points.out, base.out);
}

}  // namespace
}  // namespace cubekit::test
