// The value types a metric can have (<dtype> in anchor.xml) and their sizes on disk.
// The algebra of each type (identity, plus, minus, scalar) lives in cubekit/algebra.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cubekit {

enum class TypeKind : uint8_t {
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kDouble,
  kMinDouble,
  kMaxDouble,
  kComplex,
  kRate,
  kTauAtomic,
  kHistogram,
  kNDoubles,
  kScaleFunc,
};

// How a value is kept in memory after decoding: integers stay in their own width; every other
// type becomes `lanes()` doubles (TAU_ATOMIC's u32 count included, exact in a double).
// SCALE_FUNC keeps its 848-byte slot, byte-swapped per field.
enum class LaneType : uint8_t {
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kDouble,
  kScaleFunc
};

class DataType {
 public:
  DataType() = default;
  constexpr DataType(TypeKind kind, uint32_t param = 0) : kind_(kind), param_(param) {}

  // Parses a <dtype> text ("UINT64", "HISTOGRAM(5)", CubeLib's aliases such as "INTEGER").
  // Throws FormatError (without location; the caller adds it) for unknown or malformed names.
  static DataType parse(std::string_view text);

  TypeKind kind() const { return kind_; }
  // The n of HISTOGRAM(n) and NDOUBLES(n); 0 otherwise.
  uint32_t param() const { return param_; }

  // Canonical name as CubeLib prints it in `cube_dump -w` ("HISTOGRAM", without argument).
  std::string_view base_name() const;
  // Name as written in <dtype> ("HISTOGRAM(5)").
  std::string dtype_text() const;

  // Bytes of one value in an index/data file.
  size_t disk_size() const;
  LaneType lane_type() const;
  // Number of lanes of one value in memory (see LaneType).
  size_t lanes() const;
  // Bytes of one value in memory.
  size_t memory_size() const;

  bool is_integer() const { return kind_ <= TypeKind::kUInt64; }
  // One number per value (an integer, DOUBLE, MIN/MAXDOUBLE): what Cube 3 rows can hold, what
  // converts into another such type, what row folds read at any address.
  bool is_single_number() const { return kind_ <= TypeKind::kMaxDouble; }
  // CubeLib refuses INCLUSIVE storage for types without an inverse.
  bool allows_inclusive_storage() const;

  friend bool operator==(const DataType&, const DataType&) = default;

 private:
  TypeKind kind_ = TypeKind::kDouble;
  uint32_t param_ = 0;
};

// SCALE_FUNC slot on disk and in memory (cube-format.md §7.3).
inline constexpr size_t kScaleFuncSize = 848;
inline constexpr size_t kScaleFuncMaxTerms = 30;
inline constexpr size_t kScaleFuncMaxMeasurements = 10;

}  // namespace cubekit
