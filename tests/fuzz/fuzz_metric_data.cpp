// Fuzzes the index and data decoders (cube-format.md §5, §6). The first four bytes choose the
// value type, the number of call paths and locations (kept small: the decoder's own size checks
// are what is under test, not the allocator) and where the rest splits into index and data.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <span>
#include <vector>

#include "cubekit/data_type.hpp"
#include "cubekit/error.hpp"
#include "format/metric_data.hpp"

namespace {

// Every layout family: 1/2/4/8-byte integers, doubles, multi-lane, TAU_ATOMIC's mixed record,
// parameterised types and SCALE_FUNC's per-field swapping.
const cubekit::DataType kTypes[] = {
    {cubekit::TypeKind::kInt8},         {cubekit::TypeKind::kUInt16},
    {cubekit::TypeKind::kInt32},        {cubekit::TypeKind::kUInt64},
    {cubekit::TypeKind::kDouble},       {cubekit::TypeKind::kMinDouble},
    {cubekit::TypeKind::kComplex},      {cubekit::TypeKind::kTauAtomic},
    {cubekit::TypeKind::kHistogram, 3}, {cubekit::TypeKind::kNDoubles, 2},
    {cubekit::TypeKind::kScaleFunc},    {cubekit::TypeKind::kRate},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const cubekit::DataType type = kTypes[data[0] % std::size(kTypes)];
  const size_t cnodes = data[1] % 32 + 1;
  const size_t locations = data[2] % 8;
  const std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(data) + 4, size - 4);
  // The split point in units of 4 bytes covers a sparse index of up to 256 entries.
  const size_t split = std::min<size_t>(size_t{data[3]} * 4 + 18, rest.size());
  std::vector<cubekit::Index> order(cnodes);
  std::iota(order.begin(), order.end(), 0);
  // Reversed for odd types so rows land on cnodes in a different order than positions.
  if (data[0] & 0x80) std::reverse(order.begin(), order.end());
  try {
    const auto index =
        cubekit::format::decode_index(rest.first(split), cnodes, "fuzz.cubex:0.index");
    const auto matrix = cubekit::format::decode_data(rest.subspan(split), index, order, type,
                                                     locations, "fuzz.cubex:0.data");
    // Touch every stored row so that ASan sees any row handed out past the storage.
    unsigned char sum = 0;
    for (cubekit::Index c = 0; c < cnodes; ++c)
      if (const std::byte* row = matrix->row(c))
        for (size_t b = 0; b < matrix->row_bytes(); ++b) sum ^= static_cast<unsigned char>(row[b]);
    volatile unsigned char sink = sum;  // keeps the reads from being optimised away
    (void)sink;
  } catch (const cubekit::Error&) {
    // Rejecting the input is the expected outcome for most inputs.
  }
  return 0;
}
