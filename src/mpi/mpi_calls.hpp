// The MPI calls the MPI layer is made of, as a table of functions that the module cubekit-mpi.so
// fills (src/mpi/module/mpi_calls.cpp, the one file that includes <mpi.h>). The executable
// loads the module only when a launcher started it (launched_by_launcher): a tool started alone
// then neither loads libmpi and the six libraries it needs nor relocates them at every start.
// Every call waits for its non-blocking collective by testing it with growing pauses (20 µs to
// 1 ms), so that a rank waiting for rank 0 does not take a core from it (MPI's blocking calls
// spin).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cubekit::mpi {

// Records travel in units of this many bytes, so that MPI's int counts reach 8 TiB per step.
constexpr size_t kUnitBytes = 4096;

// Raised whenever the table changes: a module of another build is refused.
constexpr int kMpiCallsVersion = 1;

struct MpiCalls {
  int version;
  // MPI_Init, then this process's rank and the size of MPI_COMM_WORLD.
  void (*init)(int* argc, char*** argv, int* rank, int* size);
  void (*finalize)();
  // The smallest `key` over the ranks and the lowest rank holding it (MPI_MINLOC).
  void (*first_by_key)(int key, int* first_key, int* first_rank);
  // `count` chars / 64-bit words of rank `from` on every rank.
  void (*broadcast_chars)(char* data, int count, int from);
  void (*broadcast_words)(uint64_t* words, int count, int from);
  // Every rank's `value` into at_root[rank] on rank 0 (at_root: unused elsewhere).
  void (*gather_int)(int value, int* at_root);
  // Every rank's `units` units of kUnitBytes at `send` into `receive` on rank 0, rank r's at
  // unit starts[r] (counts and starts: unused elsewhere).
  void (*gather_units)(const void* send, int units, void* receive, const int* counts,
                       const int* starts);
};

}  // namespace cubekit::mpi

// The module's one entry point: its table (the module's name and this symbol are what the
// executable looks for).
#define CUBEKIT_MPI_MODULE_FILE "cubekit-mpi.so"
#define CUBEKIT_MPI_MODULE_ENTRY "cubekit_mpi_calls"
