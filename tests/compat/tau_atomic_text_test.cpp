// TAU_ATOMIC values without data (N = 0) print as CubeLib prints them: min and max are shown
// like MINDOUBLE / MAXDOUBLE values, "-" while they are the identity: "(0,-,-):-,-".
#include <gtest/gtest.h>

#include "algebra_oracle.hpp"

namespace {

using namespace cubekit::test;

TEST(TauAtomicText, CallPathsWithoutMessagesShowDashes) {
  TempDir tmp("tau-text");
  const std::string report = (tmp.path() / "types.cubex").string();
  const RunResult g = run_tool("cubekit", {"generate", "--all-types", "--call-paths", "60",
                                           "--processes", "1", "--threads", "1", "-o", report});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  // The root (a user function) sends no message: no row of message_size.
  const RunResult d = run_tool("cube_dump", {"-m", "message_size", "-c", "0", "-z", "excl", "-t",
                                             "aggr", "-s", "csv2", report});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.out, "Cnode ID,message_size\n0,(0,-,-):-,-\n");
}

}  // namespace
