// Runs independent jobs on all cores: the large tools work metric by metric, and metrics are
// independent, so they are spread over threads (a Report may be queried from several threads).
#pragma once

#include <cstddef>
#include <functional>

namespace cubekit {

// Threads used when a caller does not say: the environment variable CUBEKIT_THREADS when it
// holds a positive number (to share a machine, or to measure the speedup per core), otherwise
// one per core.
unsigned default_thread_count();

// Threads a parallel_for started here would use: 1 inside a job of a multi-threaded one (the
// cores are busy already; metrics in parallel, each streamed in shares, would otherwise start
// threads × threads streams).
unsigned available_threads();

// Calls job(i) for i in [0, n) on up to `threads` threads (0: default_thread_count()); inside a
// job of a multi-threaded parallel_for, on the calling thread alone. The first exception thrown
// by a job is rethrown here after all threads stopped. A thread that cannot be started (the
// system's thread limit) is not an error: the jobs run on the threads that did start, at least
// the calling one.
void parallel_for(size_t n, const std::function<void(size_t)>& job, unsigned threads = 0);

// Test hook: called before each worker thread is started (nullptr: nothing); a test makes it
// throw std::system_error to play a system that has no threads left.
void set_thread_start_hook(void (*hook)());

}  // namespace cubekit
