// The MPI layer's collectives (collectives.hpp): non-blocking MPI-3 collectives waited on
// gently, the failure agreement before each gather, and the plan of who reads what.
#include "mpi/collectives.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <numeric>

#include "cubekit/error.hpp"

namespace cubekit::mpi {
namespace {

// Tests the request with growing pauses (20 µs to 1 ms): a rank that waits for rank 0 to write
// does not take a core from it (MPI's blocking calls spin).
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

// Records travel in units of 4 KiB so that MPI's int counts reach 8 TiB per step.
constexpr size_t kUnit = 4096;
constexpr uint64_t kEndOfRecords = UINT64_MAX;

MPI_Datatype unit_type() {
  static MPI_Datatype unit = [] {
    MPI_Datatype t;
    MPI_Type_contiguous(kUnit, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
  }();
  return unit;
}

void append_word(std::string& out, uint64_t word) {
  out.append(reinterpret_cast<const char*>(&word), sizeof word);
}

uint64_t word_at(const std::string& in, size_t at) {
  uint64_t word;
  std::memcpy(&word, in.data() + at, sizeof word);
  return word;
}

// Rank r's records start at `at` in `storage`; they end with kEndOfRecords.
void index_records(Gathered& g, size_t at) {
  for (;;) {
    const uint64_t item = word_at(g.storage, at);
    if (item == kEndOfRecords) return;
    const uint64_t size = word_at(g.storage, at + 8);
    g.by_item[item] = std::string_view(g.storage).substr(at + 16, size);
    at += 16 + size;
  }
}

// Every rank's records on rank 0, padded to whole units.
Gathered gather_records(Job& job, std::string& records) {
  append_word(records, kEndOfRecords);
  records.resize((records.size() + kUnit - 1) / kUnit * kUnit);
  int units = static_cast<int>(records.size() / kUnit);
  std::vector<int> counts(job.root() ? job.size() : 0), starts(counts.size());
  MPI_Request request;
  MPI_Igather(&units, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  wait_gently(request);
  Gathered g;
  if (job.root()) {
    std::exclusive_scan(counts.begin(), counts.end(), starts.begin(), 0);
    g.storage.resize((static_cast<size_t>(starts.back()) + counts.back()) * kUnit);
  }
  MPI_Igatherv(records.data(), units, unit_type(), g.storage.data(), counts.data(), starts.data(),
               unit_type(), 0, MPI_COMM_WORLD, &request);
  wait_gently(request);
  for (int start : starts) index_records(g, static_cast<size_t>(start) * kUnit);
  return g;
}

// Items [begin, end) to ranks: largest first, each to the rank with the least bytes so far.
void assign(const std::vector<uint64_t>& sizes, size_t begin, size_t end, int ranks,
            std::vector<int>& owner) {
  std::vector<size_t> order(end - begin);
  std::iota(order.begin(), order.end(), begin);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  std::vector<uint64_t> load(static_cast<size_t>(ranks));
  for (size_t item : order) {
    const auto least = std::min_element(load.begin(), load.end());
    owner[item] = static_cast<int>(least - load.begin());
    *least += std::max<uint64_t>(sizes[item], 1);
  }
}

}  // namespace

Job& running_job() {
  Job* job = Job::current();
  if (!job) throw Error("the MPI layer was used outside an MPI job");
  return *job;
}

uint64_t window_bytes() {
  const char* asked = std::getenv("CUBEKIT_MPI_WINDOW_BYTES");
  const uint64_t bytes = asked ? std::strtoull(asked, nullptr, 10) : 0;
  return bytes > 0 ? bytes : uint64_t{64} << 20;
}

FirstRank first_by_key(int key) {
  FirstRank mine{key, 0}, first{};
  MPI_Comm_rank(MPI_COMM_WORLD, &mine.rank);
  MPI_Request request;
  MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &request);
  wait_gently(request);
  return first;
}

void broadcast(std::string& text, int from) {
  uint64_t size = text.size();
  MPI_Request request;
  MPI_Ibcast(&size, 1, MPI_UINT64_T, from, MPI_COMM_WORLD, &request);
  wait_gently(request);
  text.resize(size);
  MPI_Ibcast(text.data(), static_cast<int>(size), MPI_CHAR, from, MPI_COMM_WORLD, &request);
  wait_gently(request);
}

void broadcast(std::vector<uint64_t>& values, int from) {
  MPI_Request request;
  MPI_Ibcast(values.data(), static_cast<int>(values.size()), MPI_UINT64_T, from, MPI_COMM_WORLD,
             &request);
  wait_gently(request);
}

std::string ranks_text(const Job& job) {
  return " on " + std::to_string(job.size()) + (job.size() == 1 ? " rank" : " ranks");
}

void ByteReader::raw(void* data, size_t size) {
  if (size > in_.size() - at_) throw Error("MPI: gathered results are cut short");
  std::memcpy(data, in_.data() + at_, size);
  at_ += size;
}

void append_record(std::string& records, uint64_t item, std::string_view bytes) {
  append_word(records, item);
  append_word(records, bytes.size());
  records.append(bytes);
}

Gathered gather_step(Job& job,
                     const std::function<void(std::string& records, size_t& item)>& prepare) {
  std::string records, failure;
  bool failed = true;
  size_t item = 0;
  try {
    prepare(records, item);
    failed = false;
  } catch (const std::bad_alloc&) {
    failure = "out of memory";
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (failed) records.clear();
  job.agree(failed ? &failure : nullptr, item);
  return gather_records(job, records);
}

WorkPlan plan_work(const std::vector<uint64_t>& sizes, int ranks) {
  const uint64_t budget = window_bytes() * static_cast<uint64_t>(ranks);
  const size_t most_items = 64 * static_cast<size_t>(ranks);
  WorkPlan plan;
  plan.owner.assign(sizes.size(), 0);
  for (size_t begin = 0; begin < sizes.size();) {
    size_t end = begin + 1;
    uint64_t total = sizes[begin];
    for (; end < sizes.size() && end - begin < most_items && total + sizes[end] <= budget; ++end)
      total += sizes[end];
    assign(sizes, begin, end, ranks, plan.owner);
    plan.window_ends.push_back(end);
    begin = end;
  }
  return plan;
}

}  // namespace cubekit::mpi
