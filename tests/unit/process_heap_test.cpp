// use_huge_page_heap: after it, the blocks a program allocates, on its main thread and on the
// worker threads of parallel_for, lie in the heap and in huge pages, so touching them faults a
// page per 2 MiB, not per 4 KiB; the tools run with it.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/huge_pages.hpp"
#include "cubekit/parallel.hpp"
#include "cubekit/process_heap.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

constexpr bool kSanitized = core::kSanitizerAllocator;

// The kernel's transparent huge page mode ("always", "madvise" or "never"): the one in brackets.
std::string huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? "never"
             : line.substr(open + 1, close - open - 1);
}

long minor_faults(int who) {
  rusage usage{};
  ::getrusage(who, &usage);
  return usage.ru_minflt;
}

constexpr size_t kBlock = size_t{2} << 20;

// Writes 12 blocks of 2 MiB (6,144 pages of 4 KiB) and keeps them: the calling thread's page
// faults meanwhile.
long faults_writing_blocks(std::vector<char*>& blocks) {
  const long before = minor_faults(RUSAGE_THREAD);
  for (int i = 0; i < 12; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
    std::memset(blocks.back(), i + 1, kBlock);
  }
  return minor_faults(RUSAGE_THREAD) - before;
}

struct HeapUse {
  bool set_up = false;
  bool blocks_in_heap = false;  // every block below the heap's end (not a mapping of its own)
  long faults = 0;              // while the main thread wrote its blocks
  long worker_faults = -1;      // while a worker thread of parallel_for wrote its blocks
};

// The probe runs in a fresh process: this test binary again, asked for the calling test alone,
// with kProbeFd naming the pipe to report through. A forked child inherited the heap of the
// tests run before it, whose free chunks malloc hands out before the heap the probe grows: the
// test failed in one order of the tests and passed in another.
constexpr const char* kProbeFd = "CUBEKIT_TEST_HEAP_PROBE_FD";

// In the probe's process: calls use_huge_page_heap, then writes blocks on the main thread and
// on a worker thread of parallel_for; reports through the pipe and ends the process.
void probe_if_asked() {
  const char* fd_text = std::getenv(kProbeFd);
  if (fd_text == nullptr) return;
  const int fd = std::atoi(fd_text);
  HeapUse use;
  use.set_up = use_huge_page_heap();
  std::vector<char*> blocks;
  use.faults = faults_writing_blocks(blocks);
  const auto heap_end = reinterpret_cast<uintptr_t>(::sbrk(0));
  use.blocks_in_heap = true;
  for (char* b : blocks) use.blocks_in_heap &= reinterpret_cast<uintptr_t>(b) < heap_end;
  // Two jobs that wait (up to 10 s, not forever: a thread may fail to start) for each other:
  // one runs on the worker thread. Only with the heap set up (a sanitizer's runtime may not
  // start threads the same way).
  const std::thread::id main_thread = std::this_thread::get_id();
  std::atomic<int> started{0};
  std::vector<char*> worker_blocks;
  if (use.set_up)
    parallel_for(
        2,
        [&](size_t) {
          ++started;
          const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (started < 2 && std::chrono::steady_clock::now() < give_up)
            std::this_thread::yield();
          if (std::this_thread::get_id() != main_thread)
            use.worker_faults = faults_writing_blocks(worker_blocks);
        },
        2);
  const bool written = ::write(fd, &use, sizeof use) == sizeof use;
  ::_exit(written ? 0 : 1);
}

// Runs the probe (see kProbeFd) for the test `test_name`, with the setting off when `disabled`.
HeapUse heap_use_in_fresh_process(const std::string& test_name, bool disabled) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_ends[0]);
    if (disabled) ::setenv("CUBEKIT_HUGE_PAGES", "0", 1);
    ::setenv(kProbeFd, std::to_string(pipe_ends[1]).c_str(), 1);
    // The one test, whatever shard of the tests this process runs, and no report file.
    for (const char* name : {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "GTEST_OUTPUT"})
      ::unsetenv(name);
    const std::string filter = "--gtest_filter=ProcessHeap." + test_name;
    ::execl("/proc/self/exe", "cubekit_tests", filter.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  HeapUse use;
  const bool read_all = pid > 0 && ::read(pipe_ends[0], &use, sizeof use) == sizeof use;
  ::close(pipe_ends[0]);
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  EXPECT_TRUE(read_all && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return use;
}

TEST(ProcessHeap, BlocksLieInTheHeapInHugePages) {
  probe_if_asked();
  const HeapUse use = heap_use_in_fresh_process("BlocksLieInTheHeapInHugePages", false);
  if (kSanitized) {
    EXPECT_FALSE(use.set_up) << "the sanitizers' allocators are not glibc's: nothing to set up";
    return;
  }
  ASSERT_TRUE(use.set_up);
  EXPECT_TRUE(use.blocks_in_heap);
  if (huge_page_mode() == "never") {
    EXPECT_GE(use.faults, 6144) << "huge pages are off on this machine: a fault per 4 KiB";
    EXPECT_GE(use.worker_faults, 6144);
  } else {
    EXPECT_LT(use.faults, 200) << "24 MiB written in 4 KiB pages would fault 6,144 times";
    EXPECT_GE(use.worker_faults, 0);
    EXPECT_LT(use.worker_faults, 200) << "a worker thread's heap";
  }
}

TEST(ProcessHeap, ZeroInTheEnvironmentLeavesMallocAlone) {
  probe_if_asked();
  const HeapUse use = heap_use_in_fresh_process("ZeroInTheEnvironmentLeavesMallocAlone", true);
  EXPECT_FALSE(use.set_up);
}

// The tools call it: opening an anchor of 20,000 call paths faults a fraction of the pages it
// does with the setting off, and prints the same.
TEST(ProcessHeap, ToolsRunInHugePages) {
  test::TempDir dir("heap");
  const std::string report = (dir.path() / "wide.cubex").string();
  ASSERT_EQ(test::run_tool("cubekit",
                           {"generate", "--call-paths", "20000", "--size", "2MB", "-o", report})
                .exit_code,
            0);
  auto info_faults = [&](bool disabled, std::string& out) {
    const long before = minor_faults(RUSAGE_CHILDREN);
    test::RunLimits limits;
    if (disabled) limits.env = {{"CUBEKIT_HUGE_PAGES", "0"}};
    const test::RunResult r = test::run_tool("cube_info", {report}, limits);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    out = r.out;
    return minor_faults(RUSAGE_CHILDREN) - before;
  };
  std::string with_huge_pages, without;
  const long faults = info_faults(false, with_huge_pages);
  const long faults_off = info_faults(true, without);
  EXPECT_EQ(with_huge_pages, without);
  if (!kSanitized && huge_page_mode() != "never") {
    EXPECT_LT(3 * faults, faults_off) << faults << " page faults against " << faults_off;
  }
}

}  // namespace
}  // namespace cubekit
