// The last line of defence of every tool: the tools report cubekit errors themselves, and
// anything else that escapes one (memory exhausted, a system error, a bug) still ends with one
// line naming the tool and exit status 1, never with std::terminate's abort.
#pragma once

#include <cstdio>
#include <exception>
#include <new>

#if CUBEKIT_WITH_MPI
#include "cubekit/mpi.hpp"
#endif

namespace cubekit::cli {

template <class Main>
int run_guarded(const char* tool, Main&& main) {
  try {
    return main();
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: out of memory\n", tool);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
#if CUBEKIT_WITH_MPI
  } catch (const mpi::JobFailed&) {
    throw;  // another rank failed and rank 0 says why (run_in_job)
#endif
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: unexpected error (not a std::exception)\n", tool);
  }
  return 1;
}

}  // namespace cubekit::cli
