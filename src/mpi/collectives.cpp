// The MPI layer's collectives (collectives.hpp): the failure agreement before each gather, the
// records gathered on rank 0, and the plan of who reads what; MPI itself is behind mpi_calls().
#include "mpi/collectives.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>

#include "core/modules.hpp"
#include "cubekit/error.hpp"
#include "mpi/mpi_calls.hpp"

namespace cubekit::mpi {
namespace {

constexpr size_t kUnit = kUnitBytes;
constexpr uint64_t kEndOfRecords = UINT64_MAX;

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
  mpi_calls().gather_int(units, counts.data());
  Gathered g;
  if (job.root()) {
    std::exclusive_scan(counts.begin(), counts.end(), starts.begin(), 0);
    g.storage.resize((static_cast<size_t>(starts.back()) + counts.back()) * kUnit);
  }
  mpi_calls().gather_units(records.data(), units, g.storage.data(), counts.data(), starts.data());
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

const MpiCalls& mpi_calls() {
  static const MpiCalls* const calls = [] {
    const auto entry = reinterpret_cast<const MpiCalls* (*)()>(
        core::module_entry(CUBEKIT_MPI_MODULE_FILE, CUBEKIT_MPI_MODULE_ENTRY));
    const MpiCalls* table = entry();
    if (table->version != kMpiCallsVersion)
      throw Error(std::string(CUBEKIT_MPI_MODULE_FILE) + ": version " +
                  std::to_string(table->version) + " of the MPI calls, this build needs " +
                  std::to_string(kMpiCallsVersion));
    return table;
  }();
  return *calls;
}

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
  FirstRank first{};
  mpi_calls().first_by_key(key, &first.key, &first.rank);
  return first;
}

void broadcast(std::string& text, int from) {
  uint64_t size = text.size();
  mpi_calls().broadcast_words(&size, 1, from);
  text.resize(size);
  mpi_calls().broadcast_chars(text.data(), static_cast<int>(size), from);
}

void broadcast(std::vector<uint64_t>& values, int from) {
  mpi_calls().broadcast_words(values.data(), static_cast<int>(values.size()), from);
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
