// A metric's stored values in memory: one row per call path that has data, one value per
// location (column = location id), each value in the memory layout of its DataType.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "cubekit/data_type.hpp"
#include "cubekit/model.hpp"

namespace cubekit {

class SeverityMatrix {
 public:
  SeverityMatrix(DataType type, size_t cnodes, size_t locations);

  DataType type() const { return type_; }
  size_t locations() const { return locations_; }
  size_t cnodes() const { return row_of_cnode_.size(); }
  size_t stored_rows() const { return row_count_; }
  // Bytes of one row in memory.
  size_t row_bytes() const { return row_bytes_; }

  // The row of a cnode (by index into Model::cnodes), or nullptr when it has none (identity).
  const std::byte* row(Index cnode) const {
    const uint32_t r = row_of_cnode_[cnode];
    return r == kNoRow ? nullptr : bytes_.data() + size_t{r} * row_bytes_;
  }
  bool has_row(Index cnode) const { return row_of_cnode_[cnode] != kNoRow; }
  // Stored row r (rows in the order they were added, the metric's storage order), so that a
  // caller can view all rows as one strided block (row_at(0), stored_rows() × row_bytes()).
  const std::byte* row_at(size_t r) const { return bytes_.data() + r * row_bytes_; }
  // The position of a cnode's row among the stored rows, or SIZE_MAX when it has none.
  size_t row_number(Index cnode) const {
    const uint32_t r = row_of_cnode_[cnode];
    return r == kNoRow ? SIZE_MAX : r;
  }

  // Reserves `rows` rows; then add_row() hands out storage for each cnode in turn.
  void reserve_rows(size_t rows);
  std::byte* add_row(Index cnode);

  size_t memory_bytes() const { return bytes_.size() + row_of_cnode_.size() * sizeof(uint32_t); }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  DataType type_;
  size_t locations_;
  size_t row_bytes_;
  size_t row_count_ = 0;
  std::vector<uint32_t> row_of_cnode_;
  // Rows in 64-bit words (every lane type stays aligned). Not zero-filled: each row is written
  // completely by its decoder, and zero-filling gigabytes costs as much as decoding them.
  struct Storage {
    std::unique_ptr<uint64_t[]> words;
    size_t capacity = 0;  // in words
    size_t used = 0;      // in words
    std::byte* data() { return reinterpret_cast<std::byte*>(words.get()); }
    const std::byte* data() const { return reinterpret_cast<const std::byte*>(words.get()); }
    size_t size() const { return used * sizeof(uint64_t); }
    void reserve(size_t n);
  } bytes_;
};

}  // namespace cubekit
