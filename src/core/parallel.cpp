#include "cubekit/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/huge_pages.hpp"

namespace cubekit {
namespace {

// Set while a thread runs jobs of a parallel_for that uses several threads.
thread_local bool in_parallel_job = false;
std::atomic<void (*)()> thread_start_hook{nullptr};

}  // namespace

unsigned default_thread_count() {
  if (const char* text = std::getenv("CUBEKIT_THREADS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(text, &end, 10);
    if (end != text && *end == '\0' && n > 0 && n <= 4096) return static_cast<unsigned>(n);
  }
  // Asked once: glibc reads /sys/devices/system/cpu/online each time (an open, a read and a
  // close), and a tool asks before every parallel step.
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return cores;
}

unsigned available_threads() {
  return in_parallel_job ? 1u : default_thread_count();
}

void set_thread_start_hook(void (*hook)()) {
  thread_start_hook = hook;
}

void parallel_for(size_t n, const std::function<void(size_t)>& job, unsigned threads) {
  if (threads == 0) threads = default_thread_count();
  if (in_parallel_job) threads = 1;
  threads = static_cast<unsigned>(std::min<size_t>(threads, n));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) job(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto worker = [&] {
    const bool outer = in_parallel_job;
    in_parallel_job = true;
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard<std::mutex> guard(failure_lock);
        if (!failure) failure = std::current_exception();
        next = n;  // stop handing out work
      }
    }
    in_parallel_job = outer;  // the calling thread runs jobs too
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      if (auto hook = thread_start_hook.load()) hook();
      pool.emplace_back([&worker] {
        const core::WorkerHeap heap;
        worker();
      });
    } catch (const std::system_error&) {
      break;  // fewer threads, same result
    }
  }
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cubekit
