// The oracle comparisons rely on first_difference to notice and show a difference, and every
// tool test on run_tool telling a tool that could not be started (exit code 127, as a shell
// says it) from one that ran.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

using cubekit::test::first_difference;
using cubekit::test::run_tool;
using cubekit::test::RunLimits;

TEST(TestSupport, FirstDifferenceNamesTheLine) {
  EXPECT_EQ(first_difference("a\nb\n", "a\nb\n"), "");
  EXPECT_EQ(first_difference("a\nb\n", "a\nc\n"), "line 2\n  cubekit:  b\n  original: c");
  EXPECT_EQ(first_difference("a\n", "a\nb\n"), "line 2\n  cubekit:  (end)\n  original: b");
  EXPECT_NE(first_difference("a", "a\n"), "");  // a missing final newline is a difference
}

// posix_spawn starts a tool unless a resource limit is asked for; then fork and exec do.
TEST(TestSupport, AToolThatCannotBeStartedExitsWith127) {
  RunLimits missing;
  missing.executable = "/nonexistent/cubekit";
  EXPECT_EQ(run_tool("cube_info", {"--help"}, missing).exit_code, 127);
  missing.file_bytes = size_t{1} << 20;
  EXPECT_EQ(run_tool("cube_info", {"--help"}, missing).exit_code, 127);
}

TEST(TestSupport, AToolThatRunsGivesItsExitCodeAndOutput) {
  const auto help = run_tool("cubekit", {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.err.find("usage: cubekit <tool>"), std::string::npos) << help.err;
  RunLimits limited;
  limited.file_bytes = size_t{1} << 20;
  EXPECT_EQ(run_tool("cubekit", {"no-such-tool"}, limited).exit_code, 1);
}

}  // namespace
