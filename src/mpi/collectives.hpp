// The few collectives the MPI layer is made of (collectives.cpp). Every rank calls each of them
// in the same order; a rank waiting in one sleeps between tests of its request instead of
// spinning, so that waiting ranks leave the cores to the working ones (oversubscribed runs).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cubekit/mpi.hpp"

namespace cubekit::mpi {

// The rank with the smallest `key` (ties: the lowest rank), and that key.
struct FirstRank {
  int key, rank;
};
FirstRank first_by_key(int key);
// `text` / `values` of rank `from` on every rank.
void broadcast(std::string& text, int from);
void broadcast(std::vector<uint64_t>& values, int from);

// Records of a step: (item, bytes) after one another.
void append_record(std::string& records, uint64_t item, std::string_view bytes);

// What rank 0 received in a step: the bytes of every item some rank recorded.
struct Gathered {
  std::string storage;
  std::unordered_map<uint64_t, std::string_view> by_item;
};

// One collective step: every rank runs `prepare` (appending its records, setting `item` to the
// item it works on); the job agrees that no rank failed in it (Job::agree: an exception ends
// the job, the failure of the first item in item order is the one reported, as alone), then
// rank 0 gathers the records of all ranks. Other ranks get an empty Gathered.
Gathered gather_step(Job& job,
                     const std::function<void(std::string& records, size_t& item)>& prepare);

// Which rank works on each item, and the windows of consecutive items the work goes in
// (docs/mpi.md): within a window the items go to the least loaded rank, largest first.
struct WorkPlan {
  std::vector<int> owner;
  std::vector<size_t> window_ends;  // window w is [w ? window_ends[w - 1] : 0, window_ends[w])
};
// Windows hold up to CUBEKIT_MPI_WINDOW_BYTES (default 64 MiB) of item size per rank and up to
// 64 items per rank.
WorkPlan plan_work(const std::vector<uint64_t>& sizes, int ranks);

}  // namespace cubekit::mpi
