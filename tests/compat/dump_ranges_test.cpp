// cube_dump -c / -t id ranges are bounded by the report's trees (a huge range once aborted with
// std::bad_alloc after expanding it id by id), and numbers beyond 64 bits are an error naming
// the option and exiting 1. call_tree_test.cubex: cnode ids 0..17, one location (cube-format.md
// §12).
#include <gtest/gtest.h>

#include "test_support.hpp"

using cubekit::test::run_tool;
using cubekit::test::shared_dir;

namespace {

class DumpRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    CUBEKIT_REQUIRE_SHARED();
    report_ = (shared_dir() / "data/real/pycubexr/call_tree_test/call_tree_test.cubex").string();
  }
  cubekit::test::RunResult dump(const std::string& option, const std::string& ids) {
    return run_tool("cube_dump", {"-m", "visits", option, ids, "-s", "csv2", report_});
  }
  std::string report_;
};

TEST_F(DumpRanges, HugeCallPathRangeSelectsTheWholeTree) {
  const auto all = dump("-c", "all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto huge = dump("-c", "0-9223372036854775807");
  EXPECT_EQ(huge.exit_code, 0) << huge.err;
  EXPECT_EQ(huge.out, all.out);
  const auto tail = dump("-c", "16-18446744073709551615");
  EXPECT_EQ(tail.out, "Cnode ID, Thread ID,visits\n16,0,8\n17,0,12\n");
}

TEST_F(DumpRanges, HugeLocationRangeSelectsEveryLocation) {
  const auto r = dump("-t", "0-9223372036854775807");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dump("-t", "0").out);
}

TEST_F(DumpRanges, NumbersBeyond64BitsAreAnError) {
  auto r = dump("-c", "0-99999999999999999999");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "cube_dump: -c 0-99999999999999999999: '0-99999999999999999999': 99999999999999999999 "
            "is larger than any id (at most 18446744073709551615)\n");
  r = dump("-t", "18446744073709551616");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "cube_dump: -t 18446744073709551616: '18446744073709551616': 18446744073709551616 is "
            "larger than any id (at most 18446744073709551615)\n");
  r = dump("-c", "3-4-5");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "cube_dump: -c 3-4-5: '3-4-5' is not an id or a range of ids such as 5-10\n");
}

}  // namespace
