// Index files (<id>.index, cube-format.md §5) and data files (<id>.data, §6).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cubekit/severity.hpp"
#include "cubekit/source.hpp"
#include "format/byte_order.hpp"

namespace cubekit::format {

struct MetricIndex {
  ByteOrder order = kHostOrder;
  bool sparse = false;
  std::vector<uint32_t> positions;  // sparse: stored positions, ascending
  size_t rows(size_t cnodes) const { return sparse ? positions.size() : cnodes; }
};

// `cnodes` is the number of call paths; positions must lie below it. Throws FormatError.
MetricIndex decode_index(std::span<const std::byte> bytes, size_t cnodes, const std::string& where);

// The columns of each row a reader decodes: [first, first + count) of the row's `locations`
// values (count SIZE_MAX: to the end). Rows in memory then hold only these values; a plain row
// is read only there, a compressed one is inflated whole first (deflate has no random access).
struct Columns {
  size_t first = 0, count = SIZE_MAX;
  size_t in(size_t locations) const { return count == SIZE_MAX ? locations - first : count; }
};

// Copies the member's bytes [offset, offset + into.size()) into `into`; throws when the file
// cannot give them all (FormatError naming the member when it ends early).
using ReadMember = std::function<void(uint64_t offset, std::span<std::byte> into)>;

// Gives back the file's pages below a byte count of the member; one per share of the rows,
// made for the share's first byte (`share_start`), called from the share's thread.
using ReleaseBehind = std::function<std::function<void(uint64_t)>(uint64_t share_start)>;

// Decodes a data member into a matrix. `order[p]` is the cnode stored at position p.
// With `read` (see stream_data), the whole rows of a plain member whose memory layout is the
// file's are read straight into the matrix, one read per share, and `bytes` is not touched.
// `release` (may be empty) lets the file's pages go as rows are decoded: the decoded copy is
// what stays. A plain member with at least `parallel_from` bytes of rows is decoded in
// `threads` shares of its rows at once.
std::shared_ptr<SeverityMatrix> decode_data(std::span<const std::byte> bytes,
                                            const MetricIndex& index,
                                            const std::vector<Index>& order, DataType type,
                                            size_t locations, const std::string& where,
                                            const ReleaseBehind& release = {}, unsigned threads = 1,
                                            uint64_t parallel_from = uint64_t{64} << 20,
                                            Columns columns = {}, const ReadMember& read = {});

// Decodes the rows of a data member one at a time into a small buffer and hands each to
// `visit(cnode, row)`: aggregations need no matrix in memory. With RowPlacement::kAnyAddress,
// rows that need no conversion are handed over where they lie (in `bytes`, or in the buffer
// a compressed row was inflated into).
// `done_below(n)` is called now and then with a byte count n: the rows still to come lie at or
// after bytes[n], so the caller may give the pages before it back (plain and compressed data).
// Only the rows of `share` are visited (the others are still checked where the layout needs it,
// e.g. the whole ZCUBEX sub-index). With `runs`, rows handed over where they lie in a plain
// member go to `runs` several at a time instead of to `visit`.
// With `read`, the whole rows of a plain member are copied in chunks of about 256 KiB into one
// buffer (which stays in cache) instead of being read where they lie in `bytes`; "where they
// lie" is then that buffer. `bytes` still gives the member's size and marker, and the rows of
// a column window (only its columns are read).
void stream_data(std::span<const std::byte> bytes, const MetricIndex& index,
                 const std::vector<Index>& order, DataType type, size_t locations,
                 const std::string& where, RowPlacement placement, const RowVisitor& visit,
                 const std::function<void(uint64_t)>& done_below = {}, RowShare share = {},
                 Columns columns = {}, const RowRunVisitor* runs = nullptr,
                 const ReadMember& read = {});
// The byte offset in a plain data member at which stored row k starts.
uint64_t plain_row_offset(DataType type, size_t locations, size_t k);
// Whether rows of this type in this byte order read the same in the file and in memory.
bool row_layout_is_native(DataType type, ByteOrder order);

// Converts one row of `locations` values from file layout to memory layout.
void decode_row(DataType type, const std::byte* src, std::byte* dst, size_t locations,
                ByteOrder order);

// Converts one row from memory layout to file layout in host byte order (the writer's order).
void encode_row(DataType type, const std::byte* src, std::byte* dst, size_t locations);

// Index member bytes: sparse with the given positions, host order.
std::string encode_sparse_index(const std::vector<uint32_t>& positions);

}  // namespace cubekit::format
