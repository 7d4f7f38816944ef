// Who reads which report in an MPI job (src/mpi/collectives.hpp, docs/mpi.md): by size within
// windows of consecutive reports. Expectations worked out by hand. Built with the MPI layer only.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "mpi/collectives.hpp"

namespace cubekit::mpi {
namespace {

// Sets CUBEKIT_MPI_WINDOW_BYTES for one test.
class WindowBytes {
 public:
  explicit WindowBytes(const char* bytes) { setenv("CUBEKIT_MPI_WINDOW_BYTES", bytes, 1); }
  ~WindowBytes() { unsetenv("CUBEKIT_MPI_WINDOW_BYTES"); }
};

TEST(MpiPlan, SpreadsBySizeNotCount) {
  // One report of 100 bytes and ten of 10: rank 0 takes the large one, rank 1 the ten small.
  std::vector<uint64_t> sizes{10, 10, 10, 10, 100, 10, 10, 10, 10, 10, 10};
  const WorkPlan plan = plan_work(sizes, 2);
  EXPECT_EQ(plan.window_ends, std::vector<size_t>{11});
  for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(plan.owner[i], i == 4 ? 0 : 1) << i;
}

TEST(MpiPlan, LargestFirstToTheLeastLoadedRank) {
  // 7, 5, 4, 3, 1 on 2 ranks: 7→0, 5→1, 4→1 (5 < 7), 3→0 (7 < 9), 1→1 (9 < 10).
  const WorkPlan plan = plan_work({3, 7, 1, 5, 4}, 2);
  EXPECT_EQ(plan.owner, (std::vector<int>{0, 0, 1, 1, 1}));
}

TEST(MpiPlan, WindowsHoldTheByteBudgetOfAllRanks) {
  const WindowBytes budget("150");  // 300 bytes per window on 2 ranks
  const WorkPlan plan = plan_work({200, 200, 50, 50, 400, 1}, 2);
  // [200] (200 + 200 > 300), [200, 50, 50], [400] (alone, over the budget), [1].
  EXPECT_EQ(plan.window_ends, (std::vector<size_t>{1, 4, 5, 6}));
}

TEST(MpiPlan, WindowsHoldAtMost64ReportsPerRank) {
  const WorkPlan plan = plan_work(std::vector<uint64_t>(200, 1), 1);
  EXPECT_EQ(plan.window_ends, (std::vector<size_t>{64, 128, 192, 200}));
  EXPECT_EQ(plan.owner, std::vector<int>(200, 0));
}

TEST(MpiPlan, EmptyReportsCountAsOneByte) {
  // Unreadable files have size 0; they still spread over the ranks.
  const WorkPlan plan = plan_work({0, 0, 0, 0}, 4);
  EXPECT_EQ(plan.owner, (std::vector<int>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace cubekit::mpi
