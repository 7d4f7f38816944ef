// The few collectives the MPI layer is made of (collectives.cpp, over the MPI calls of
// mpi_calls.hpp). Every rank calls each of them in the same order; a rank waiting in one sleeps
// between tests of its request instead of spinning, so that waiting ranks leave the cores to
// the working ones (oversubscribed runs).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cubekit/mpi.hpp"

namespace cubekit::mpi {

struct MpiCalls;
// The MPI calls (mpi_calls.hpp), from the module cubekit-mpi.so, loaded at the first call.
// Throws Error when the module cannot be loaded.
const MpiCalls& mpi_calls();
// The job of this process; Error when there is none (the layer used outside a job).
Job& running_job();

// The rank with the smallest `key` (ties: the lowest rank), and that key.
struct FirstRank {
  int key, rank;
};
FirstRank first_by_key(int key);
// `text` / `values` of rank `from` on every rank.
void broadcast(std::string& text, int from);
void broadcast(std::vector<uint64_t>& values, int from);

// Results as bytes that travel (the same binary on every rank: numbers as their bytes).
class ByteWriter {
 public:
  void raw(const void* data, size_t size) { out.append(static_cast<const char*>(data), size); }
  void word(uint64_t w) { raw(&w, sizeof w); }
  void text(const std::string& s) {
    word(s.size());
    out += s;
  }
  std::string out;
};

// Reads what a ByteWriter wrote; Error when the bytes end early.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  void raw(void* data, size_t size);
  uint64_t word() {
    uint64_t w;
    raw(&w, sizeof w);
    return w;
  }
  std::string text() {
    std::string s(word(), '\0');
    raw(s.data(), s.size());
    return s;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  std::string_view in_;
  size_t at_ = 0;
};

// " on 4 ranks" (" on 1 rank"), for the progress lines.
std::string ranks_text(const Job& job);

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

// Bytes of work per rank and step: CUBEKIT_MPI_WINDOW_BYTES, default 64 MiB.
uint64_t window_bytes();

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
