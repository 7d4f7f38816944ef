// The module cubekit-mpi.so (mpi_calls.hpp): the MPI layer's calls into MPI, loaded by the
// executable only when a launcher started it. Links MPI and nothing of cubekit.
#include "mpi/mpi_calls.hpp"

#include <mpi.h>

#include <algorithm>
#include <ctime>

namespace cubekit::mpi {
namespace {

void wait_gently(MPI_Request& request) {
  long pause_ns = 20'000;
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    const timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min(pause_ns * 2, 1'000'000L);
  }
}

MPI_Datatype unit_type() {
  static MPI_Datatype unit = [] {
    MPI_Datatype t;
    MPI_Type_contiguous(kUnitBytes, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
  }();
  return unit;
}

void init(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

void finalize() {
  MPI_Finalize();
}

void first_by_key(int key, int* first_key, int* first_rank) {
  struct {
    int key, rank;
  } mine{key, 0}, first{};
  MPI_Comm_rank(MPI_COMM_WORLD, &mine.rank);
  MPI_Request request;
  MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &request);
  wait_gently(request);
  *first_key = first.key;
  *first_rank = first.rank;
}

void broadcast_chars(char* data, int count, int from) {
  MPI_Request request;
  MPI_Ibcast(data, count, MPI_CHAR, from, MPI_COMM_WORLD, &request);
  wait_gently(request);
}

void broadcast_words(uint64_t* words, int count, int from) {
  MPI_Request request;
  MPI_Ibcast(words, count, MPI_UINT64_T, from, MPI_COMM_WORLD, &request);
  wait_gently(request);
}

void gather_int(int value, int* at_root) {
  MPI_Request request;
  MPI_Igather(&value, 1, MPI_INT, at_root, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  wait_gently(request);
}

void gather_units(const void* send, int units, void* receive, const int* counts,
                  const int* starts) {
  MPI_Request request;
  MPI_Igatherv(send, units, unit_type(), receive, counts, starts, unit_type(), 0, MPI_COMM_WORLD,
               &request);
  wait_gently(request);
}

constexpr MpiCalls kCalls{kMpiCallsVersion, init,       finalize,    first_by_key, broadcast_chars,
                          broadcast_words,  gather_int, gather_units};

}  // namespace
}  // namespace cubekit::mpi

extern "C" __attribute__((visibility("default"))) const cubekit::mpi::MpiCalls*
cubekit_mpi_calls() {
  return &cubekit::mpi::kCalls;
}
