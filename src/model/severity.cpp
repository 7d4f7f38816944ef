#include "cubekit/severity.hpp"

namespace cubekit {

SeverityMatrix::SeverityMatrix(DataType type, size_t cnodes, size_t locations)
    : type_(type),
      locations_(locations),
      row_bytes_((type.memory_size() * locations + 7) / 8 * 8),  // rows start 8-byte aligned
      row_of_cnode_(cnodes, kNoRow) {}

void SeverityMatrix::reserve_rows(size_t rows) {
  bytes_.words.reserve(rows * row_bytes_ / 8);
}

std::byte* SeverityMatrix::add_row(Index cnode) {
  const size_t words_per_row = row_bytes_ / 8;
  row_of_cnode_[cnode] = static_cast<uint32_t>(row_count_);
  ++row_count_;
  bytes_.words.resize(row_count_ * words_per_row);
  return bytes_.data() + (row_count_ - 1) * row_bytes_;
}

}  // namespace cubekit
