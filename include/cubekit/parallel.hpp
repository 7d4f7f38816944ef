// Runs independent jobs on all cores: the large tools work metric by metric, and metrics are
// independent, so they are spread over threads (a Report may be queried from several threads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace cubekit {

// Threads used when a caller does not say: the environment variable CUBEKIT_THREADS when it
// holds a positive number (to share a machine, or to measure the speedup per core), otherwise
// one per core.
inline unsigned default_thread_count() {
  if (const char* text = std::getenv("CUBEKIT_THREADS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(text, &end, 10);
    if (end != text && *end == '\0' && n > 0 && n <= 4096) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace detail {
// Set while a thread runs jobs of a parallel_for that uses several threads: a parallel_for
// nested in such a job runs on its caller's thread (the cores are busy already; metrics in
// parallel, each streamed in shares, would otherwise start threads × threads streams).
inline thread_local bool in_parallel_job = false;

// Test hook: called before each worker thread is started; a test makes it throw
// std::system_error to play a system that has no threads left.
inline void (*before_thread_start)() = nullptr;
}  // namespace detail

// Threads a parallel_for started here would use: 1 inside a job of a multi-threaded one.
inline unsigned available_threads() {
  return detail::in_parallel_job ? 1u : default_thread_count();
}

// Calls job(i) for i in [0, n) on up to `threads` threads (0: default_thread_count()). The
// first exception thrown by a job is rethrown here after all threads stopped. A thread that
// cannot be started (the system's thread limit) is not an error: the jobs run on the threads
// that did start, at least the calling one.
template <class Job>
void parallel_for(size_t n, Job job, unsigned threads = 0) {
  if (threads == 0) threads = default_thread_count();
  if (detail::in_parallel_job) threads = 1;
  threads = static_cast<unsigned>(std::min<size_t>(threads, n));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) job(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto worker = [&] {
    const bool outer = detail::in_parallel_job;
    detail::in_parallel_job = true;
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard<std::mutex> guard(failure_lock);
        if (!failure) failure = std::current_exception();
        next = n;  // stop handing out work
      }
    }
    detail::in_parallel_job = outer;  // the calling thread runs jobs too
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      if (detail::before_thread_start) detail::before_thread_start();
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // fewer threads, same result
    }
  }
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cubekit
