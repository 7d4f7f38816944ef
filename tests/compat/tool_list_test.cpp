// The tool list (src/cli/tools.def) against the build: every listed tool has its link beside
// the cubekit executable, and each link runs as that tool: its help and an unknown option end
// as the original tool's do (CubeLib 4.6's tools; cubekit's own follow the same rule).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "test_support.hpp"

namespace cubekit::test {
namespace {

namespace fs = std::filesystem;

// The links tools.def names, in its order.
std::vector<std::string> listed_links() {
  std::ifstream in(fs::path(CUBEKIT_SOURCE_DIR) / "src/cli/tools.def");
  const std::regex entry(R"(^CUBEKIT_TOOL\("[^"]+", *([A-Za-z0-9_]+),)");
  std::vector<std::string> links;
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, entry)) links.push_back(m[1]);
  return links;
}

enum class Stream { kStdout, kStderr };

struct Expected {
  std::string help_option;
  Stream help_stream;     // where the help goes (exit status 0, nothing on the other stream)
  std::string help_name;  // what the help calls the tool
  int unknown_status;     // the exit status after the unknown option -k
};

// What the originals do, read from CubeLib 4.6's tools (and cubekit's own ones' docs).
const std::map<std::string, Expected>& expectations() {
  const auto out = Stream::kStdout, err = Stream::kStderr;
  static const std::map<std::string, Expected> kExpected = {
      {"cube_dump", {"-h", err, "cube_dump", 0}},
      {"cube3to4", {"-h", err, "cube3to4", 0}},
      {"cube4to3", {"-h", err, "cube4to3", 0}},
      {"cube_derive", {"-h", err, "cube_derive", 0}},
      {"cube_remap2", {"-h", err, "cube_remap2", 0}},
      {"cube_pop_metrics", {"-h", out, "cube_pop_metrics", 1}},
      {"cube_diff", {"-h", err, "cube_diff", 0}},
      {"cube_merge", {"-h", err, "cube_merge", 0}},
      {"cube_mean", {"-h", err, "cube_mean", 0}},
      {"cube_cmp", {"-h", err, "cube_cmp", 0}},
      {"cube_cut", {"-h", err, "cube_cut", 0}},
      {"cube_clean", {"-h", err, "cube_clean", 0}},
      {"cube_part", {"-h", err, "cube_part", 0}},
      {"cube_canonize", {"-h", out, "cube_canonize", 0}},
      {"cube_commoncalltree", {"-h", err, "cube_commoncalltree", 0}},
      {"cube_exclusify", {"-h", err, "cube_exclusify", 0}},
      {"cube_inclusify", {"-h", err, "cube_inclusify", 0}},
      {"cube_calltree", {"-h", out, "cube_calltree", 1}},  // -k ignored: no report given
      {"cube_stat", {"-h", err, "cube_stat", 1}},
      {"cube_is_empty", {"-h", err, "cube_is_empty", 1}},
      {"cube_nodeview", {"-h", out, "cube_nodeview", 0}},  // -k ignored: no report, usage
      {"cube_rank", {"-h", err, "cube_rank", 1}},
      {"tau2cube", {"-h", out, "tau2cube", 1}},  // -k is read as the profile, not found
      {"cube_topoassist", {"-h", err, "cube_topoassist", 1}},
      {"cube_info", {"-h", out, "cube_info", 1}},
      {"cube_regioninfo", {"-h", out, "cube_regioninfo", 1}},  // -k is read as the report
      {"cube_test", {"-h", err, "cube_test", 0}},
      {"cube_sanity", {"-h", out, "cube_sanity", 1}},
      {"cube_export_peri", {"-h", out, "cubekit export-peri", 1}},
      {"cube_import_peri", {"-h", out, "cubekit import-peri", 1}},
      {"cube_generate", {"--help", out, "cubekit generate", 1}},
      {"cube_model", {"--help", out, "cubekit model", 1}},
      {"cube_serve", {"--help", out, "cubekit serve", 1}},
  };
  return kExpected;
}

fs::path link_path(const std::string& link) {
  return fs::path(CUBEKIT_TOOL).parent_path() / link;
}

TEST(ToolList, EveryListedToolHasAnExpectationAndNoOther) {
  const std::vector<std::string> links = listed_links();
  ASSERT_GE(links.size(), 28u) << "tools.def not read";
  std::map<std::string, int> seen;
  for (const std::string& link : links) {
    EXPECT_TRUE(expectations().count(link)) << link << " is listed without an expectation";
    EXPECT_EQ(++seen[link], 1) << link << " is listed twice";
  }
  for (const auto& [link, expected] : expectations())
    EXPECT_TRUE(seen.count(link)) << link << " is expected but not listed in tools.def";
}

TEST(ToolList, EveryListedToolIsLinkedToCubekit) {
  for (const std::string& link : listed_links()) {
    const fs::path path = link_path(link);
    ASSERT_TRUE(fs::is_symlink(path)) << path << " is not a link";
    EXPECT_EQ(fs::read_symlink(path), fs::path(CUBEKIT_TOOL).filename()) << path;
  }
}

TEST(ToolList, EveryLinkPrintsItsHelpAsTheOriginalDoes) {
  for (const std::string& link : listed_links()) {
    const auto found = expectations().find(link);
    if (found == expectations().end()) continue;  // reported by the test above
    const Expected& e = found->second;
    RunLimits limits;
    limits.executable = link_path(link);
    const RunResult r = run_tool(link, {e.help_option}, limits);
    const std::string& shown = e.help_stream == Stream::kStdout ? r.out : r.err;
    const std::string& other = e.help_stream == Stream::kStdout ? r.err : r.out;
    EXPECT_EQ(r.exit_code, 0) << link << " " << e.help_option << "\n" << r.err;
    EXPECT_NE(shown.find(e.help_name), std::string::npos) << link << " said:\n" << shown;
    EXPECT_EQ(other, "") << link << " " << e.help_option;
  }
}

TEST(ToolList, EveryLinkEndsAnUnknownOptionAsTheOriginalDoes) {
  TempDir dir("tool-list");
  for (const std::string& link : listed_links()) {
    const auto found = expectations().find(link);
    if (found == expectations().end()) continue;
    RunLimits limits;
    limits.executable = link_path(link);
    limits.working_dir = dir.path();
    const RunResult r = run_tool(link, {"-k"}, limits);
    EXPECT_EQ(r.exit_code, found->second.unknown_status) << link << " -k\n" << r.out << r.err;
    EXPECT_NE(r.out + r.err, "") << link << " -k said nothing";
  }
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a tool wrote a file after -k";
}

}  // namespace
}  // namespace cubekit::test
