// parallel_for: every job runs once, failures propagate, CUBEKIT_THREADS sets the default.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <latch>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "cubekit/parallel.hpp"

namespace {

// Restores CUBEKIT_THREADS when a test ends.
class ThreadsEnv {
 public:
  ThreadsEnv() {
    if (const char* v = std::getenv("CUBEKIT_THREADS")) saved_ = v, had_ = true;
  }
  ~ThreadsEnv() {
    if (had_)
      setenv("CUBEKIT_THREADS", saved_.c_str(), 1);
    else
      unsetenv("CUBEKIT_THREADS");
  }

 private:
  std::string saved_;
  bool had_ = false;
};

TEST(Parallel, EveryJobRunsExactlyOnce) {
  std::vector<std::atomic<int>> runs(1000);
  cubekit::parallel_for(
      runs.size(), [&](size_t i) { ++runs[i]; }, 4);
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(Parallel, FirstFailureIsRethrown) {
  EXPECT_THROW(cubekit::parallel_for(
                   100,
                   [](size_t i) {
                     if (i == 17) throw std::runtime_error("job 17");
                   },
                   2),
               std::runtime_error);
}

// A parallel_for inside a job of a multi-threaded one runs on the job's own thread; the caller
// can start parallel work again afterwards.
TEST(Parallel, NestedLoopsRunOnTheirCallersThread) {
  std::atomic<int> foreign{0};
  cubekit::parallel_for(
      4,
      [&](size_t) {
        const auto self = std::this_thread::get_id();
        cubekit::parallel_for(
            8, [&](size_t) { foreign += std::this_thread::get_id() != self; }, 4);
      },
      2);
  EXPECT_EQ(foreign.load(), 0);
  // Both threads of an outer loop take jobs: jobs 0 and 1 wait for each other, so they run on
  // two threads at once (no timing involved).
  std::mutex lock;
  std::set<std::thread::id> seen;
  std::latch both(2);
  cubekit::parallel_for(
      64,
      [&](size_t i) {
        if (i < 2) both.arrive_and_wait();
        std::lock_guard<std::mutex> guard(lock);
        seen.insert(std::this_thread::get_id());
      },
      2);
  EXPECT_EQ(seen.size(), 2u);
}

TEST(Parallel, EnvironmentSetsTheDefaultThreadCount) {
  ThreadsEnv restore;
  setenv("CUBEKIT_THREADS", "1", 1);
  EXPECT_EQ(cubekit::default_thread_count(), 1u);
  std::mutex lock;
  std::set<std::thread::id> seen;
  cubekit::parallel_for(64, [&](size_t) {
    std::lock_guard<std::mutex> guard(lock);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(*seen.begin(), std::this_thread::get_id());  // one thread: the caller's own
  setenv("CUBEKIT_THREADS", "3", 1);
  EXPECT_EQ(cubekit::default_thread_count(), 3u);
}

TEST(Parallel, MalformedEnvironmentFallsBackToOnePerCore) {
  ThreadsEnv restore;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (const char* bad : {"", "0", "-2", "two", "3x", "99999999999"}) {
    setenv("CUBEKIT_THREADS", bad, 1);
    EXPECT_EQ(cubekit::default_thread_count(), cores) << "CUBEKIT_THREADS=" << bad;
  }
}

}  // namespace

// A system out of threads (std::thread throws std::system_error) must not end in
// std::terminate: the jobs run on the threads that did start, here only the calling one.
TEST(ParallelFor, ThreadsThatCannotStartLeaveTheWorkToTheCaller) {
  for (int started : {0, 1}) {
    static int allowed;
    allowed = started;
    cubekit::set_thread_start_hook([] {
      if (allowed-- <= 0)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    });
    std::vector<std::atomic<int>> runs(100);
    std::mutex lock;
    std::set<std::thread::id> threads;
    cubekit::parallel_for(
        runs.size(),
        [&](size_t i) {
          ++runs[i];
          std::lock_guard<std::mutex> guard(lock);
          threads.insert(std::this_thread::get_id());
        },
        4);
    cubekit::set_thread_start_hook(nullptr);
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
    EXPECT_LE(threads.size(), static_cast<size_t>(started + 1));
    if (started == 0) {
      EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
    }
  }
}
