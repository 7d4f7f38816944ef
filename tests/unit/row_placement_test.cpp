// RowPlacement::kAnyAddress hands rows over where they lie (zero copy) when the file layout is
// the memory layout, and otherwise exactly the rows kAligned gives. "Where they lie" is the
// buffer a plain member's rows are read into (MappedFile::read) or, given its bytes alone,
// the mapped member itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "cubekit/report.hpp"
#include "format/mapped_file.hpp"
#include "format/metric_data.hpp"
#include "format/tar.hpp"
#include "test_support.hpp"

namespace cubekit {
namespace {

namespace fs = std::filesystem;

using Rows = std::map<Index, std::vector<std::byte>>;

// How rows were handed over: `adjacent`, some row right after the one before it in memory
// (where both lie, not copied into one reused row of scratch memory, which gives every row the
// same address); `unaligned`, some row not 8-aligned.
struct RowAddresses {
  bool adjacent = false, unaligned = false;
};

Rows rows_of(const Report& r, Index metric, RowPlacement placement, RowAddresses* seen) {
  Rows rows;
  const size_t bytes = r.model().metrics[metric].dtype.memory_size() * r.model().locations.size();
  const std::byte* previous = nullptr;
  r.visit_rows(
      metric,
      [&](Index c, const std::byte* row) {
        if (previous != nullptr && bytes > 0 && row == previous + bytes) seen->adjacent = true;
        if (reinterpret_cast<uintptr_t>(row) % 8 != 0) seen->unaligned = true;
        previous = row;
        rows[c].assign(row, row + bytes);
      },
      placement);
  return rows;
}

// The shares of a metric's rows (1, 2 and 3 parts) are the whole, each row once, in order.
void expect_shares_make_the_whole(const Report& r, Index metric) {
  const Rows whole = [&] {
    RowAddresses unused;
    return rows_of(r, metric, RowPlacement::kAligned, &unused);
  }();
  const size_t bytes = r.model().metrics[metric].dtype.memory_size() * r.model().locations.size();
  for (size_t parts : {1u, 2u, 3u}) {
    Rows joined;
    size_t visits = 0;
    for (size_t part = 0; part < parts; ++part)
      r.visit_rows(
          metric,
          [&](Index c, const std::byte* row) {
            ++visits;
            joined[c].assign(row, row + bytes);
          },
          RowPlacement::kAnyAddress, RowShare{part, parts});
    EXPECT_EQ(visits, whole.size())
        << r.path() << " metric " << metric << ", " << parts << " parts";
    EXPECT_EQ(joined, whole) << r.path() << " metric " << metric << ", " << parts << " parts";
  }
}

using RowSequence = std::vector<std::pair<Index, std::vector<std::byte>>>;

// The rows as visit_rows hands them over, in order.
RowSequence rows_in_order(const Report& r, Index metric, RowPlacement placement, RowShare share) {
  RowSequence rows;
  const size_t bytes = r.model().metrics[metric].dtype.memory_size() * r.model().locations.size();
  r.visit_rows(
      metric,
      [&](Index c, const std::byte* row) { rows.emplace_back(c, std::vector(row, row + bytes)); },
      placement, share);
  return rows;
}

// visit_row_runs hands over the rows visit_rows does, in the same order, for every placement
// and share; returns the longest run.
size_t expect_runs_are_the_rows(const Report& r, Index metric) {
  const size_t bytes = r.model().metrics[metric].dtype.memory_size() * r.model().locations.size();
  size_t longest = 0;
  for (RowPlacement placement : {RowPlacement::kAligned, RowPlacement::kAnyAddress})
    for (size_t parts : {1u, 3u})
      for (size_t part = 0; part < parts; ++part) {
        RowSequence runs;
        r.visit_row_runs(
            metric,
            [&](const Index* cnodes, size_t count, const std::byte* rows, size_t stride) {
              longest = std::max(longest, count);
              for (size_t j = 0; j < count; ++j)
                runs.emplace_back(cnodes[j],
                                  std::vector(rows + j * stride, rows + j * stride + bytes));
            },
            placement, RowShare{part, parts});
        EXPECT_EQ(runs, rows_in_order(r, metric, placement, RowShare{part, parts}))
            << r.path() << " metric " << metric << ", part " << part << " of " << parts;
      }
  return longest;
}

// Every metric: same rows either way; returns whether kAnyAddress handed over rows where they
// lie (kAligned copies each into one row of scratch memory).
bool same_rows_either_way(const std::string& path, size_t* longest_run = nullptr) {
  const Report r = Report::open(path);
  bool zero_copy = false;
  for (Index m = 0; m < r.model().metrics.size(); ++m) {
    const size_t longest = expect_runs_are_the_rows(r, m);  // streamed from the file
    if (longest_run) *longest_run = std::max(*longest_run, longest);
    RowAddresses seen_aligned, seen_any;
    const Rows aligned = rows_of(r, m, RowPlacement::kAligned, &seen_aligned);
    EXPECT_FALSE(seen_aligned.unaligned) << path << " metric " << m << ": kAligned row not aligned";
    const Rows any = rows_of(r, m, RowPlacement::kAnyAddress, &seen_any);
    zero_copy = zero_copy || seen_any.adjacent;
    EXPECT_EQ(aligned, any) << path << " metric " << r.model().metrics[m].uniq_name;
    expect_shares_make_the_whole(r, m);  // streamed from the file
    r.severities(m);
    expect_shares_make_the_whole(r, m);  // from the decoded cache
    EXPECT_LE(expect_runs_are_the_rows(r, m), 1u) << "decoded rows come one at a time";
    r.drop(m);
  }
  return zero_copy;
}

class RowPlacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cubekit-placement-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string generate(const std::string& name, bool compress) {
    GeneratorOptions o;
    o.call_paths = 300;
    o.all_types = true;  // TAU_ATOMIC among them: converted, never handed over in place
    o.compress = compress;
    const std::string path = (dir_ / name).string();
    generate_report(path, o);
    return path;
  }
  fs::path dir_;
};

// Plain rows come in place and, through visit_row_runs, several at a time (runs of up to 32).
TEST_F(RowPlacementTest, PlainRowsAreFoldedInPlace) {
  size_t longest_run = 0;
  EXPECT_TRUE(same_rows_either_way(generate("plain.cubex", false), &longest_run));
  EXPECT_EQ(longest_run, 32u);
}

// Compressed rows are inflated one at a time: runs of one.
TEST_F(RowPlacementTest, CompressedRowsGiveTheSameValues) {
  size_t longest_run = 0;
  same_rows_either_way(generate("z.cubex", true), &longest_run);
  EXPECT_EQ(longest_run, 1u);
}

// Calls `check(metric, data member bytes, index)` for every metric of the report at `path` that
// has a data member (the raw members, as the format layer reads them).
template <class Check>
void for_each_member(const std::string& path, const Check& check) {
  const Report r = Report::open(path);
  const format::MappedFile file(path);
  const format::TarIndex tar = format::TarIndex::scan(file.bytes(), path);
  for (Index m = 0; m < r.model().metrics.size(); ++m) {
    const std::string id = std::to_string(r.model().metrics[m].id);
    const format::TarMember* data = tar.find(id + ".data");
    if (data == nullptr) continue;
    const format::TarMember* index = tar.find(id + ".index");
    check(r, m, file.bytes().subspan(data->offset, data->size),
          format::decode_index(file.bytes().subspan(index->offset, index->size),
                               r.model().cnodes.size(), path));
  }
}

// What streaming tells the caller it may give back: never a byte a later row needs, and in
// the end the whole member. (Checked on the raw members of generated reports.)
void expect_progress_is_safe(const std::string& path) {
  for_each_member(path, [&](const Report& r, Index m, std::span<const std::byte> bytes,
                            const format::MetricIndex& index) {
    const Metric& metric = r.model().metrics[m];
    uint64_t below = 0, calls = 0;
    const std::byte* last_row = nullptr;
    format::stream_data(
        bytes, index, storage_order(r.model(), metric.kind), metric.dtype,
        r.model().locations.size(), path, RowPlacement::kAnyAddress,
        [&](Index, const std::byte* row) {
          if (row >= bytes.data() && row < bytes.data() + bytes.size()) {  // in place: in the map
            EXPECT_GE(row, bytes.data() + below) << "row before what was declared done";
          }
          last_row = row;
        },
        [&](uint64_t n) {
          EXPECT_GE(n, below) << "progress went backwards";
          EXPECT_LE(n, bytes.size());
          below = n;
          ++calls;
        });
    if (last_row != nullptr) {
      EXPECT_GT(calls, 0u);
      EXPECT_EQ(below, bytes.size()) << metric.uniq_name << ": the whole member is done";
    }
  });
}

// Decoding a plain member in shares on several threads (large metrics; here forced for every
// size) gives the matrix one thread gives, and each share gives back only its own bytes; so
// does reading the member instead of looking at it through the map.
void expect_parallel_decode_equals_serial(const std::string& path) {
  for_each_member(path, [&](const Report& r, Index m, std::span<const std::byte> bytes,
                            const format::MetricIndex& index) {
    const Metric& metric = r.model().metrics[m];
    const auto order = storage_order(r.model(), metric.kind);
    const size_t locations = r.model().locations.size();
    const auto serial = format::decode_data(bytes, index, order, metric.dtype, locations, path);
    std::vector<uint64_t> share_starts;
    std::mutex mutex;
    const format::ReleaseBehind release = [&](uint64_t start) {
      std::lock_guard lock(mutex);
      share_starts.push_back(start);
      return std::function<void(uint64_t)>([start](uint64_t below) { EXPECT_GE(below, start); });
    };
    const auto parallel =
        format::decode_data(bytes, index, order, metric.dtype, locations, path, release, 3, 0);
    // Read from the file (here: copied from the member) instead of the map: straight into the
    // matrix when its rows are the file's, on one thread and in three shares.
    const format::ReadMember read = [&](uint64_t offset, std::span<std::byte> into) {
      ASSERT_LE(offset + into.size(), bytes.size());
      std::memcpy(into.data(), bytes.data() + offset, into.size());
    };
    const auto read_serial = format::decode_data(bytes, index, order, metric.dtype, locations, path,
                                                 {}, 1, uint64_t{64} << 20, {}, read);
    const auto read_parallel =
        format::decode_data(bytes, index, order, metric.dtype, locations, path, {}, 3, 0, {}, read);
    const size_t row_bytes = metric.dtype.memory_size() * locations;
    for (const auto& other : {parallel, read_serial, read_parallel}) {
      ASSERT_EQ(other->stored_rows(), serial->stored_rows()) << metric.uniq_name;
      for (Index c = 0; c < r.model().cnodes.size(); ++c) {
        ASSERT_EQ(other->has_row(c), serial->has_row(c)) << metric.uniq_name << " cnode " << c;
        if (serial->has_row(c)) {
          EXPECT_EQ(std::memcmp(other->row(c), serial->row(c), row_bytes), 0)
              << metric.uniq_name << " cnode " << c;
        }
      }
    }
    const bool plain = bytes.size() >= 10 && std::memcmp(bytes.data(), "CUBEX", 5) == 0;
    if (plain && serial->stored_rows() > 1) {
      EXPECT_EQ(share_starts.size(), 3u) << metric.uniq_name;
    }
  });
}

TEST_F(RowPlacementTest, ParallelDecodeEqualsSerial) {
  expect_parallel_decode_equals_serial(generate("par.cubex", false));
  expect_parallel_decode_equals_serial(generate("parz.cubex", true));  // stays serial
}

TEST_F(RowPlacementTest, StreamingProgressNeverPassesARowStillToCome) {
  expect_progress_is_safe(generate("p.cubex", false));
  expect_progress_is_safe(generate("pz.cubex", true));
}

// The rows of every member as stream_data hands them over, with the member's bytes alone (read
// where they are mapped) or through `read` (copied in chunks into a buffer): the same rows in
// the same order, for every share and placement, and the buffer is filled more than once.
TEST_F(RowPlacementTest, RowsReadThroughABufferAreTheMappedRows) {
  GeneratorOptions o;
  o.call_paths = 3000;  // rows of 32 doubles: a DOUBLE metric is several 256 KiB chunks
  o.all_types = true;
  const std::string path = (dir_ / "chunks.cubex").string();
  generate_report(path, o);
  size_t most_reads = 0;
  for_each_member(path, [&](const Report& r, Index m, std::span<const std::byte> bytes,
                            const format::MetricIndex& index) {
    const Metric& metric = r.model().metrics[m];
    const auto order = storage_order(r.model(), metric.kind);
    const size_t locations = r.model().locations.size();
    const size_t row_bytes = metric.dtype.memory_size() * locations;
    for (RowPlacement placement : {RowPlacement::kAligned, RowPlacement::kAnyAddress})
      for (size_t parts : {1u, 2u, 3u})
        for (size_t part = 0; part < parts; ++part) {
          RowSequence mapped, copied;
          size_t reads = 0;
          const format::ReadMember read = [&](uint64_t offset, std::span<std::byte> into) {
            ASSERT_LE(offset + into.size(), bytes.size());
            std::memcpy(into.data(), bytes.data() + offset, into.size());
            ++reads;
          };
          for (auto* rows : {&mapped, &copied})
            format::stream_data(
                bytes, index, order, metric.dtype, locations, path, placement,
                [&](Index c, const std::byte* row) {
                  rows->emplace_back(c, std::vector(row, row + row_bytes));
                },
                {}, RowShare{part, parts}, {}, nullptr,
                rows == &copied ? read : format::ReadMember());
          EXPECT_EQ(copied, mapped) << metric.uniq_name << " part " << part << " of " << parts;
          most_reads = std::max(most_reads, reads);
        }
  });
  EXPECT_GE(most_reads, 3u) << "no member took several chunks: the test reads too little";
}

// A plain member cut short after the report was opened (the file truncated under the reader)
// is an error naming the member, not a crash: its index and rows are read, not touched through
// the map. Cut before the rows are read, the index (which this writer puts after the data) is
// gone; cut while they are read, the rows of a later chunk are.
TEST_F(RowPlacementTest, AFileCutShortWhileReadIsAnErrorNamingTheMember) {
  GeneratorOptions o;
  o.call_paths = 3000;  // the largest member is several 256 KiB chunks
  const std::string path = (dir_ / "cut.cubex").string();
  generate_report(path, o);
  const format::MappedFile file(path);
  const format::TarIndex tar = format::TarIndex::scan(file.bytes(), path);
  for (const bool while_read : {false, true}) {
    const std::string copy = (dir_ / "cut-copy.cubex").string();
    fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
    const Report r = Report::open(copy);
    const format::TarMember* largest = nullptr;
    Index metric = 0;
    for (Index m = 0; m < r.model().metrics.size(); ++m)
      if (const auto* data = tar.find(std::to_string(r.model().metrics[m].id) + ".data"))
        if (largest == nullptr || data->size > largest->size) largest = data, metric = m;
    ASSERT_NE(largest, nullptr);
    ASSERT_GT(largest->size, size_t{600} << 10);
    const auto cut = [&] { fs::resize_file(copy, largest->offset + largest->size / 2); };
    if (!while_read) cut();
    bool first = true;
    try {
      r.visit_rows(
          metric,
          [&](Index, const std::byte*) {
            if (first && while_read) cut();
            first = false;
          },
          RowPlacement::kAnyAddress);
      ADD_FAILURE() << "no error for a file cut short, while read: " << while_read;
    } catch (const FormatError& e) {
      const std::string message = e.what();
      const std::string member = std::to_string(r.model().metrics[metric].id) +
                                 (while_read ? ".data: the file ends within the rows"
                                             : ".index: the file ends within the member");
      EXPECT_NE(message.find(copy + ":" + member), std::string::npos) << message;
    }
  }
}

// A file opened while the process is short of descriptors (past half its limit: a tool given a
// thousand reports) keeps none and reads from its map: the same bytes, the same rows.
TEST_F(RowPlacementTest, FilesOpenedShortOfDescriptorsReadFromTheirMap) {
  const std::string path = generate("fd.cubex", false);
  const Report usual = Report::open(path);
  const format::MappedFile kept(path);
  ASSERT_TRUE(kept.keeps_descriptor());
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  const int next = ::open("/dev/null", O_RDONLY);  // the lowest free descriptor
  ASSERT_GE(next, 0);
  ::close(next);
  struct rlimit low = before;
  low.rlim_cur = static_cast<rlim_t>(next) + 4;  // the next open is past half of it
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::optional<format::MappedFile> short_of;
  std::optional<Report> opened;
  try {
    short_of.emplace(path);
    opened.emplace(Report::open(path));
  } catch (...) {
    ::setrlimit(RLIMIT_NOFILE, &before);
    throw;
  }
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  EXPECT_FALSE(short_of->keeps_descriptor());
  std::vector<std::byte> a(kept.bytes().size() + 100), b(a.size());
  EXPECT_EQ(kept.read(7, a), kept.bytes().size() - 7);
  EXPECT_EQ(short_of->read(7, b), kept.bytes().size() - 7);
  EXPECT_EQ(a, b);
  for (Index m = 0; m < usual.model().metrics.size(); ++m) {
    RowAddresses unused;
    EXPECT_EQ(rows_of(*opened, m, RowPlacement::kAnyAddress, &unused),
              rows_of(usual, m, RowPlacement::kAnyAddress, &unused))
        << usual.model().metrics[m].uniq_name;
  }
}

// Big-endian, Cube 3, ZCUBEX and every data type of the real reports.
// A report's column window (one rank's share of a report split by locations, docs/mpi.md) holds
// exactly those columns of every row, decoded or streamed, and its model those locations.
void expect_windows_hold_the_columns(const std::string& path) {
  const Report whole = Report::open(path);
  const size_t columns = whole.model().locations.size();
  for (const auto& [first, count] : std::vector<std::pair<size_t, size_t>>{
           {0, 5}, {7, 9}, {columns - 3, 3}, {0, columns}, {4, 0}}) {
    const Report window = whole.column_window(first, count);
    ASSERT_EQ(window.model().locations.size(), count);
    for (Index l = 0; l < count; ++l) {
      const Location& mine = window.model().locations[l];
      EXPECT_EQ(mine.id, l);
      EXPECT_EQ(mine.name, whole.model().locations[first + l].name);  // ids follow the order
      const auto& listed = window.model().groups[mine.group].locations;
      EXPECT_NE(std::find(listed.begin(), listed.end(), l), listed.end());
    }
    for (Index m = 0; m < whole.model().metrics.size(); ++m) {
      const size_t size = whole.model().metrics[m].dtype.memory_size();
      RowAddresses unused;
      const Rows all = rows_of(whole, m, RowPlacement::kAligned, &unused);
      Rows expected;
      for (const auto& [c, row] : all)
        expected[c].assign(row.begin() + first * size, row.begin() + (first + count) * size);
      for (RowPlacement placement : {RowPlacement::kAligned, RowPlacement::kAnyAddress})
        EXPECT_EQ(rows_of(window, m, placement, &unused), expected)
            << path << " metric " << m << " columns " << first << "+" << count;
      window.severities(m);  // decoded, then visited from the cache
      EXPECT_EQ(rows_of(window, m, RowPlacement::kAligned, &unused), expected);
      window.drop(m);
    }
  }
}

TEST_F(RowPlacementTest, ColumnWindowsHoldTheirColumns) {
  expect_windows_hold_the_columns(generate("w.cubex", false));
  expect_windows_hold_the_columns(generate("wz.cubex", true));
}

// A window streamed from a plain member reads each row only at its columns: rows handed over in
// place lie at the window's first column of their row in the member.
TEST_F(RowPlacementTest, ColumnWindowsReadOnlyTheirBytesOfAPlainRow) {
  for_each_member(
      generate("wp.cubex", false), [&](const Report& r, Index m, std::span<const std::byte> bytes,
                                       const format::MetricIndex& index) {
        const Metric& metric = r.model().metrics[m];
        const size_t locations = r.model().locations.size(), disk = metric.dtype.disk_size();
        if (!format::row_layout_is_native(metric.dtype, index.order)) return;
        size_t rows = 0;
        format::stream_data(
            bytes, index, storage_order(r.model(), metric.kind), metric.dtype, locations, "wp",
            RowPlacement::kAnyAddress,
            [&](Index, const std::byte* row) {
              const auto offset = static_cast<size_t>(row - bytes.data());
              EXPECT_EQ((offset - 10) % (disk * locations), 6 * disk) << metric.uniq_name;
              ++rows;
            },
            {}, {}, format::Columns{6, 4});
        EXPECT_EQ(rows, index.rows(r.model().cnodes.size())) << metric.uniq_name;
      });
}

TEST(RowPlacement, OnlyCubexReportsHaveColumnWindows) {
  CUBEKIT_REQUIRE_SHARED();
  const fs::path cube3 = test::shared_dir() / "data" / "real";
  for (const auto& e : fs::recursive_directory_iterator(cube3)) {
    if (!e.is_regular_file() || !e.path().string().ends_with(".cube")) continue;
    const Report r = Report::open(e.path().string());
    EXPECT_FALSE(r.reads_by_columns());
    EXPECT_THROW(r.column_window(0, 1), Error);
    return;
  }
}

TEST(RowPlacement, RealReportsGiveTheSameRowsEitherWay) {
  const fs::path shared = test::shared_dir();
  CUBEKIT_REQUIRE_SHARED();
  size_t checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(shared / "data" / "real")) {
    const std::string p = e.path().string();
    if (!e.is_regular_file() || (!p.ends_with(".cubex") && !p.ends_with(".cube"))) continue;
    try {
      Report::open(p);
    } catch (const std::exception&) {
      continue;  // the deliberately broken inputs are tested elsewhere
    }
    same_rows_either_way(p);
    ++checked;
  }
  EXPECT_GE(checked, 20u);
}

}  // namespace
}  // namespace cubekit
