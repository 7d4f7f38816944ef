// The oracle comparisons rely on first_difference to notice and show a difference.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

using cubekit::test::first_difference;

TEST(TestSupport, FirstDifferenceNamesTheLine) {
  EXPECT_EQ(first_difference("a\nb\n", "a\nb\n"), "");
  EXPECT_EQ(first_difference("a\nb\n", "a\nc\n"), "line 2\n  cubekit:  b\n  original: c");
  EXPECT_EQ(first_difference("a\n", "a\nb\n"), "line 2\n  cubekit:  (end)\n  original: b");
  EXPECT_NE(first_difference("a", "a\n"), "");  // a missing final newline is a difference
}

}  // namespace
