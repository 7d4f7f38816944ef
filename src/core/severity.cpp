#include "cubekit/severity.hpp"

#include <algorithm>

#include "core/huge_pages.hpp"

namespace cubekit {

SeverityMatrix::SeverityMatrix(DataType type, size_t cnodes, size_t locations)
    : type_(type),
      locations_(locations),
      row_bytes_((type.memory_size() * locations + 7) / 8 * 8),  // rows start 8-byte aligned
      row_of_cnode_(cnodes, kNoRow) {}

void SeverityMatrix::Storage::reserve(size_t n) {
  if (n <= capacity) return;
  std::unique_ptr<uint64_t[]> grown(new uint64_t[n]);  // uninitialised on purpose
  if (used > 0) std::copy(words.get(), words.get() + used, grown.get());
  words = std::move(grown);
  capacity = n;
  core::advise_huge_pages(words.get(), n * sizeof(uint64_t));
}

void SeverityMatrix::reserve_rows(size_t rows) {
  bytes_.reserve(rows * row_bytes_ / 8);
}

std::byte* SeverityMatrix::add_row(Index cnode) {
  const size_t words_per_row = row_bytes_ / 8;
  row_of_cnode_[cnode] = static_cast<uint32_t>(row_count_);
  ++row_count_;
  // Rows of a report without locations are empty, yet callers memset/memcpy zero bytes into
  // them, which needs a non-null pointer: keep at least one word of storage.
  if (bytes_.used + words_per_row > bytes_.capacity || bytes_.capacity == 0)
    bytes_.reserve(std::max({bytes_.capacity * 2, bytes_.used + words_per_row, size_t{1}}));
  bytes_.used += words_per_row;
  std::byte* row = bytes_.data() + (row_count_ - 1) * row_bytes_;
  const size_t payload = type_.memory_size() * locations_;
  std::memset(row + payload, 0, row_bytes_ - payload);  // alignment padding only
  return row;
}

}  // namespace cubekit
