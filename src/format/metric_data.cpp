#include "format/metric_data.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "cubekit/error.hpp"
#include "cubekit/parallel.hpp"
#include "format/compression.hpp"

namespace cubekit::format {
namespace {

constexpr std::string_view kIndexMarker = "CUBEX.INDEX";
constexpr std::string_view kDataMarker = "CUBEX.DATA";
constexpr std::string_view kZDataMarker = "ZCUBEX.DATA";
// Bytes of plain rows copied at once when a member is read through a buffer: small enough to
// stay in a core's L2 cache, large enough that the copy, not the call, is the cost.
constexpr size_t kReadChunk = size_t{256} << 10;
// Largest expansion of a deflate stream (RFC 1951): a 258-byte match costs at least 2 bits.
constexpr uint64_t kMaxInflateRatio = 1032;

bool starts_with(std::span<const std::byte> bytes, std::string_view marker) {
  return bytes.size() >= marker.size() &&
         std::memcmp(bytes.data(), marker.data(), marker.size()) == 0;
}

void decode_scale_func(const std::byte* src, std::byte* dst, ByteOrder order) {
  std::memcpy(dst, src, kScaleFuncSize);
  if (order == kHostOrder) return;
  const uint32_t terms = load<uint32_t>(src, order);
  const uint32_t measurements = load<uint32_t>(src + 4, order);
  store<uint32_t>(dst, terms, kHostOrder);
  store<uint32_t>(dst + 4, measurements, kHostOrder);
  size_t at = 8;
  for (uint32_t t = 0; t < terms && t < kScaleFuncMaxTerms; ++t, at += 20) {
    store(dst + at, load<double>(src + at, order), kHostOrder);
    store(dst + at + 8, load<int32_t>(src + at + 8, order), kHostOrder);
    store(dst + at + 12, load<uint32_t>(src + at + 12, order), kHostOrder);
    store(dst + at + 16, load<int32_t>(src + at + 16, order), kHostOrder);
  }
  // The measurements follow the terms (cube-format.md §7.3), where `at` now is.
  for (uint32_t m = 0; m < measurements && m < kScaleFuncMaxMeasurements; ++m, at += 20) {
    store(dst + at, load<uint32_t>(src + at, order), kHostOrder);
    store(dst + at + 4, load<double>(src + at + 4, order), kHostOrder);
    store(dst + at + 12, load<double>(src + at + 12, order), kHostOrder);
  }
}

// The member's first bytes as far as a data marker goes, read with `read` (not the map).
std::string read_marker(const ReadMember& read, uint64_t member_bytes) {
  std::string marker(std::min<uint64_t>(member_bytes, kDataMarker.size()), '\0');
  read(0, std::as_writable_bytes(std::span(marker)));
  return marker;
}

}  // namespace

MetricIndex decode_index(std::span<const std::byte> bytes, size_t cnodes,
                         const std::string& where) {
  MetricIndex index;
  if (!starts_with(bytes, kIndexMarker))
    throw FormatError(where + ": offset 0: expected marker 'CUBEX.INDEX'");
  if (bytes.size() < 18)
    throw FormatError(where + ": " + std::to_string(bytes.size()) +
                      " bytes, an index header needs 18");
  if (load<uint32_t>(bytes.data() + 11, ByteOrder::kLittle) == 1)
    index.order = ByteOrder::kLittle;
  else if (load<uint32_t>(bytes.data() + 11, ByteOrder::kBig) == 1)
    index.order = ByteOrder::kBig;
  else
    throw FormatError(where + ": offset 11: byte-order probe is not 1 in either byte order");
  const uint8_t format = static_cast<uint8_t>(bytes[17]);
  if (format == 3) {
    if (bytes.size() != 18)
      throw FormatError(where + ": dense index must be 18 bytes, found " +
                        std::to_string(bytes.size()));
    return index;
  }
  if (format != 1)
    throw FormatError(where + ": offset 17: index format " + std::to_string(format) +
                      ", expected 1 (sparse) or 3 (dense)");
  index.sparse = true;
  // CubeLib's writer (cube_diff, cube_mean, cube_cut, ...) ends a sparse index without rows
  // right after the format byte, leaving out the count: read it as zero entries.
  if (bytes.size() == 18) return index;
  if (bytes.size() < 22)
    throw FormatError(where + ": sparse index of " + std::to_string(bytes.size()) +
                      " bytes has no entry count");
  const uint32_t n = load<uint32_t>(bytes.data() + 18, index.order);
  if (bytes.size() != 22 + uint64_t{n} * 4)
    throw FormatError(where + ": sparse index declares " + std::to_string(n) +
                      " entries, so needs " + std::to_string(22 + uint64_t{n} * 4) +
                      " bytes, found " + std::to_string(bytes.size()));
  index.positions.resize(n);
  load_array(index.positions.data(), bytes.data() + 22, n, index.order);
  for (uint32_t k = 0; k < n; ++k) {
    if (index.positions[k] >= cnodes)
      throw FormatError(where + ": entry " + std::to_string(k) + " names position " +
                        std::to_string(index.positions[k]) + ", but the call tree has " +
                        std::to_string(cnodes) + " call paths");
    if (k > 0 && index.positions[k] <= index.positions[k - 1])
      throw FormatError(
          where + ": entry " + std::to_string(k) + ": positions not strictly increasing (" +
          std::to_string(index.positions[k - 1]) + ", " + std::to_string(index.positions[k]) + ")");
  }
  return index;
}

void decode_row(DataType type, const std::byte* src, std::byte* dst, size_t locations,
                ByteOrder order) {
  switch (type.lane_type()) {
    case LaneType::kInt8:
    case LaneType::kUInt8:
      std::memcpy(dst, src, locations);
      return;
    case LaneType::kInt16:
    case LaneType::kUInt16:
      load_array<uint16_t>(dst, src, locations, order);
      return;
    case LaneType::kInt32:
    case LaneType::kUInt32:
      load_array<uint32_t>(dst, src, locations, order);
      return;
    case LaneType::kInt64:
    case LaneType::kUInt64:
      load_array<uint64_t>(dst, src, locations, order);
      return;
    case LaneType::kScaleFunc:
      for (size_t l = 0; l < locations; ++l)
        decode_scale_func(src + l * kScaleFuncSize, dst + l * kScaleFuncSize, order);
      return;
    case LaneType::kDouble:
      break;
  }
  if (type.kind() == TypeKind::kTauAtomic) {
    // On disk: u32 count, then min, max, sum, sum of squares; in memory: five doubles.
    for (size_t l = 0; l < locations; ++l, src += 36, dst += 40) {
      store(dst, static_cast<double>(load<uint32_t>(src, order)), kHostOrder);
      for (int f = 0; f < 4; ++f)
        store(dst + 8 + 8 * f, load<double>(src + 4 + 8 * f, order), kHostOrder);
    }
    return;
  }
  load_array<double>(dst, src, locations * type.lanes(), order);
}

namespace {

// Walks the stored rows of a data member in file order. `target(cnode)` gives the memory a row
// is decoded into; `done(cnode, row)` is called after each row. `reserve(n)` announces the row
// count. The one place that knows both data layouts and checks them.
// With `in_place`, rows are handed to `done` where they lie and `target` is not called.
// `done_below(n)` (may be empty) hears after each row that no later row starts before bytes[n].
template <class Reserve, class Target, class Done>
void decode_rows(std::span<const std::byte> bytes, const MetricIndex& index,
                 const std::vector<Index>& order, DataType type, size_t locations,
                 const std::string& where, bool in_place, Reserve reserve, Target target, Done done,
                 const std::function<void(uint64_t)>& done_below = {}, RowShare share = {},
                 Columns columns = {}, const RowRunVisitor* runs = nullptr,
                 const ReadMember& read = {}) {
  const size_t rows = index.rows(order.size());
  const size_t share_begin = rows * share.part / share.parts;
  const size_t share_end = rows * (share.part + 1) / share.parts;
  const size_t disk_row = type.disk_size() * locations;
  const size_t skipped = type.disk_size() * columns.first, kept = columns.in(locations);
  const bool whole_rows = kept == locations;
  auto position = [&](size_t k) { return index.sparse ? index.positions[k] : k; };
  auto emit = [&](size_t k, const std::byte* src) {
    const Index cnode = order[position(k)];
    if (in_place) return done(cnode, src + skipped);
    std::byte* dst = target(cnode);
    decode_row(type, src + skipped, dst, kept, index.order);
    done(cnode, dst);
  };
  if (starts_with(bytes, kZDataMarker)) {
    if (bytes.size() < 19) throw FormatError(where + ": compressed data has no sub-index");
    const uint64_t m = load<uint64_t>(bytes.data() + 11, index.order);
    if (m > (bytes.size() - 19) / 24)
      throw FormatError(where + ": sub-index of " + std::to_string(m) +
                        " entries extends past the member end (" + std::to_string(bytes.size()) +
                        " bytes)");
    const uint64_t base = 19 + m * 24;
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> blocks;  // row start → (offset, size)
    for (uint64_t e = 0; e < m; ++e) {
      const std::byte* p = bytes.data() + 19 + e * 24;
      const uint64_t start = load<uint64_t>(p, index.order);
      const uint64_t off = load<uint64_t>(p + 8, index.order);
      const uint64_t size = load<uint64_t>(p + 16, index.order);
      if (size == 0) continue;  // row never written: identity
      if (off > bytes.size() - base || size > bytes.size() - base - off)
        throw FormatError(where + ": sub-index entry " + std::to_string(e) +
                          " points outside the member");
      // Deflate cannot expand more than 1032:1, so a row larger than that is corrupt; checking
      // it here keeps a hostile anchor (huge dtype, many locations) from making us allocate
      // far more memory than the member could ever fill.
      if (disk_row / kMaxInflateRatio > size)
        throw FormatError(where + ": sub-index entry " + std::to_string(e) + ": " +
                          std::to_string(size) + " compressed bytes cannot inflate to a row of " +
                          std::to_string(disk_row) + " bytes");
      if (disk_row == 0 || start % disk_row != 0 || start / disk_row >= rows)
        throw FormatError(where + ": sub-index entry " + std::to_string(e) +
                          " starts at uncompressed byte " + std::to_string(start) +
                          ", not a row of this metric");
      if (!blocks.emplace(start, std::make_pair(base + off, size)).second)
        throw FormatError(where + ": two sub-index entries for row " +
                          std::to_string(start / disk_row));
    }
    // Rows whose memory layout is the file's are inflated straight into their destination
    // (no copy); the others go through one row of scratch memory, decoded from there. Only
    // allocated when some row is stored: a report without rows must cost nothing.
    const bool direct = !in_place && whole_rows && row_layout_is_native(type, index.order);
    std::vector<std::byte> raw(blocks.empty() || direct ? 0 : disk_row);
    reserve(blocks.size());
    // Blocks are inflated in row order; writers store them in that order too, but nothing
    // requires it, so the bytes still needed start at the lowest offset of the blocks to come.
    std::vector<uint64_t> lowest_ahead(blocks.size() + 1, bytes.size());
    if (done_below) {
      size_t i = blocks.size();
      for (auto it = blocks.rbegin(); it != blocks.rend(); ++it, --i)
        lowest_ahead[i - 1] = std::min(lowest_ahead[i], it->second.first);
    }
    size_t visited = 0;
    for (const auto& [start, block] : blocks) {
      const size_t k = start / disk_row;
      if (k < share_begin || k >= share_end) {
        ++visited;
        continue;
      }
      const auto packed = bytes.subspan(block.first, block.second);
      const std::string row_where = where + ": row " + std::to_string(k);
      if (direct) {
        const Index cnode = order[position(k)];
        std::byte* dst = target(cnode);
        zlib_inflate_exact(packed, {dst, disk_row}, row_where);
        done(cnode, dst);
      } else {
        zlib_inflate_exact(packed, raw, row_where);
        emit(k, raw.data());
      }
      if (done_below) done_below(lowest_ahead[++visited]);
    }
    return;
  }
  if (!starts_with(bytes, kDataMarker))
    throw FormatError(where + ": offset 0: expected marker 'CUBEX.DATA' or 'ZCUBEX.DATA'");
  const bool fits = disk_row == 0 || rows <= (bytes.size() - 10) / disk_row;
  const long double need = 10.0L + static_cast<long double>(rows) * disk_row;
  if (!fits)
    throw FormatError(where + ": " + std::to_string(rows) + " rows of " +
                      std::to_string(locations) + " values need " +
                      std::to_string(static_cast<unsigned long long>(need)) +
                      " bytes, the member has " + std::to_string(bytes.size()));
  reserve(share_end - share_begin);
  // Rows [k, end), stored one after the other from `first`: handed over together where they
  // lie (in_place with runs) or one by one.
  const auto hand_over = [&](size_t k, size_t end, const std::byte* first) {
    if (in_place && runs != nullptr) {
      constexpr size_t kRunRows = 32;  // rows per call of `runs`
      Index cnodes[kRunRows];
      for (; k < end; k += kRunRows, first += kRunRows * disk_row) {
        const size_t count = std::min(kRunRows, end - k);
        for (size_t j = 0; j < count; ++j) cnodes[j] = order[position(k + j)];
        (*runs)(cnodes, count, first + skipped, disk_row);
      }
      return;
    }
    for (; k < end; ++k, first += disk_row) emit(k, first);
  };
  // A column window's rows stay mapped: only its columns of each row are touched there.
  if (read && disk_row > 0 && whole_rows) {
    const size_t chunk_rows = std::max<size_t>(1, kReadChunk / disk_row);
    const size_t buffer_rows = std::min(chunk_rows, share_end - share_begin);
    std::vector<uint64_t> buffer((buffer_rows * disk_row + 7) / 8);
    auto* chunk = reinterpret_cast<std::byte*>(buffer.data());
    for (size_t k = share_begin; k < share_end; k += chunk_rows) {
      const size_t end = std::min(share_end, k + chunk_rows);
      read(10 + k * disk_row, {chunk, (end - k) * disk_row});
      hand_over(k, end, chunk);
    }
    return;
  }
  const size_t step = in_place && runs != nullptr ? 32 : 1;  // rows between calls of done_below
  for (size_t k = share_begin; k < share_end; k += step) {
    const size_t end = std::min(share_end, k + step);
    hand_over(k, end, bytes.data() + 10 + k * disk_row);
    if (done_below) done_below(10 + end * disk_row);
  }
}

}  // namespace

std::shared_ptr<SeverityMatrix> decode_data(
    std::span<const std::byte> bytes, const MetricIndex& index, const std::vector<Index>& order,
    DataType type, size_t locations, const std::string& where, const ReleaseBehind& release,
    unsigned threads, uint64_t parallel_from, Columns columns, const ReadMember& read) {
  auto matrix = std::make_shared<SeverityMatrix>(type, order.size(), columns.in(locations));
  const size_t rows = index.rows(order.size());
  const uint64_t disk_row = uint64_t{type.disk_size()} * locations;
  // Rows the matrix holds as the file does (stored one after the other, in storage order) are
  // read straight into it: no mapping, no copy through a buffer.
  if (read && disk_row > 0 && disk_row == matrix->row_bytes() &&
      columns.in(locations) == locations && row_layout_is_native(type, index.order) &&
      rows <= (bytes.size() - std::min<size_t>(bytes.size(), 10)) / disk_row &&
      read_marker(read, bytes.size()) == kDataMarker) {
    matrix->reserve_rows(rows);
    for (size_t k = 0; k < rows; ++k) matrix->add_row(order[index.sparse ? index.positions[k] : k]);
    if (rows == 0) return matrix;
    auto* first = const_cast<std::byte*>(matrix->row_at(0));
    const size_t parts =
        threads > 1 && rows * disk_row >= parallel_from ? std::min<size_t>(threads, rows) : 1;
    parallel_for(parts, [&](size_t part) {
      const size_t begin = rows * part / parts, end = rows * (part + 1) / parts;
      read(10 + begin * disk_row, {first + begin * disk_row, (end - begin) * disk_row});
    });
    return matrix;
  }
  // Shares of a plain member are contiguous byte ranges (threads pay off from tens of MB on).
  const bool plain = starts_with(bytes, kDataMarker);
  if (threads > 1 && plain && disk_row > 0 && rows > 1 && rows * disk_row >= parallel_from &&
      rows <= (bytes.size() - 10) / disk_row) {
    // Rows are laid out first (in the order a single pass would add them), then filled in
    // parallel: each share writes only its own rows.
    matrix->reserve_rows(rows);
    for (size_t k = 0; k < rows; ++k) matrix->add_row(order[index.sparse ? index.positions[k] : k]);
    const unsigned parts = static_cast<unsigned>(std::min<size_t>(threads, rows));
    parallel_for(parts, [&](size_t part) {
      const RowShare share{part, parts};
      const uint64_t start = plain_row_offset(type, locations, rows * part / parts);
      decode_rows(
          bytes, index, order, type, locations, where, false, [](size_t) {},
          [&](Index cnode) { return const_cast<std::byte*>(matrix->row(cnode)); },
          [](Index, const std::byte*) {}, release ? release(start) : nullptr, share, columns);
    });
    return matrix;
  }
  decode_rows(
      bytes, index, order, type, locations, where, false,
      [&](size_t rows_to_come) { matrix->reserve_rows(rows_to_come); },
      [&](Index cnode) { return matrix->add_row(cnode); }, [](Index, const std::byte*) {},
      release ? release(0) : nullptr, {}, columns);
  return matrix;
}

bool row_layout_is_native(DataType type, ByteOrder order) {
  return order == kHostOrder && type.kind() != TypeKind::kTauAtomic &&
         type.memory_size() == type.disk_size();
}

void stream_data(std::span<const std::byte> bytes, const MetricIndex& index,
                 const std::vector<Index>& order, DataType type, size_t locations,
                 const std::string& where, RowPlacement placement, const RowVisitor& visit,
                 const std::function<void(uint64_t)>& done_below, RowShare share, Columns columns,
                 const RowRunVisitor* runs, const ReadMember& read) {
  const bool in_place =
      placement == RowPlacement::kAnyAddress && row_layout_is_native(type, index.order);
  // One row of scratch memory, 8-byte aligned for every lane type; it stays in cache.
  std::vector<uint64_t> scratch(
      in_place ? 0 : (type.memory_size() * columns.in(locations) + 7) / 8 + 1);
  std::byte* row = reinterpret_cast<std::byte*>(scratch.data());
  decode_rows(
      bytes, index, order, type, locations, where, in_place, [](size_t) {},
      [&](Index) { return row; }, visit, done_below, share, columns, runs, read);
}

uint64_t plain_row_offset(DataType type, size_t locations, size_t k) {
  return 10 + static_cast<uint64_t>(k) * type.disk_size() * locations;
}

void encode_row(DataType type, const std::byte* src, std::byte* dst, size_t locations) {
  if (type.kind() != TypeKind::kTauAtomic) {
    // Every other type keeps its file layout in memory (SCALE_FUNC included).
    std::memcpy(dst, src, type.disk_size() * locations);
    return;
  }
  for (size_t l = 0; l < locations; ++l, src += 40, dst += 36) {
    store<uint32_t>(dst, static_cast<uint32_t>(load<double>(src, kHostOrder)), kHostOrder);
    for (int f = 0; f < 4; ++f)
      store<double>(dst + 4 + 8 * f, load<double>(src + 8 + 8 * f, kHostOrder), kHostOrder);
  }
}

namespace {

std::string index_header(uint8_t format) {
  std::string s(kIndexMarker);
  char probe[4], version[2] = {0, 0};
  store<uint32_t>(reinterpret_cast<std::byte*>(probe), 1, kHostOrder);
  s.append(probe, 4);
  s.append(version, 2);
  s.push_back(static_cast<char>(format));
  return s;
}

}  // namespace

std::string encode_sparse_index(const std::vector<uint32_t>& positions) {
  std::string s = index_header(1);
  char n[4];
  store<uint32_t>(reinterpret_cast<std::byte*>(n), static_cast<uint32_t>(positions.size()),
                  kHostOrder);
  s.append(n, 4);
  s.append(reinterpret_cast<const char*>(positions.data()), positions.size() * 4);
  return s;
}

}  // namespace cubekit::format
