// Byte order of index and data files: the one place that knows about swapping.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cubekit::format {

enum class ByteOrder : uint8_t { kLittle, kBig };

inline constexpr ByteOrder kHostOrder =
    std::endian::native == std::endian::little ? ByteOrder::kLittle : ByteOrder::kBig;

template <class T>
T load(const std::byte* p, ByteOrder order) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if (order != kHostOrder && sizeof(T) > 1) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    std::memcpy(&v, b, sizeof(T));
  }
  return v;
}

template <class T>
void store(std::byte* p, T v, ByteOrder order) {
  if (order != kHostOrder && sizeof(T) > 1) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    std::memcpy(p, b, sizeof(T));
  } else {
    std::memcpy(p, &v, sizeof(T));
  }
}

// Copies `count` elements of width sizeof(T) from `src` (file order) to `dst` (host order), both
// bytes at any address. The swap goes through memcpy'd words, not a word pointer over memory
// that holds values of another type (that would break strict aliasing); a plain loop over whole
// elements, which the compiler vectorizes.
template <class T>
void load_array(std::byte* dst, const std::byte* src, size_t count, ByteOrder order) {
  // Empty arrays may come with null pointers (an empty vector's data()); memcpy forbids those.
  if (count == 0) return;
  if (order == kHostOrder || sizeof(T) == 1) {
    std::memcpy(dst, src, count * sizeof(T));
    return;
  }
  using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  for (size_t i = 0; i < count; ++i) {
    U u;
    std::memcpy(&u, src + i * sizeof(U), sizeof(U));
    if constexpr (sizeof(U) == 2) u = __builtin_bswap16(u);
    if constexpr (sizeof(U) == 4) u = __builtin_bswap32(u);
    if constexpr (sizeof(U) == 8) u = __builtin_bswap64(u);
    std::memcpy(dst + i * sizeof(U), &u, sizeof(U));
  }
}

// The same into an array of T.
template <class T>
void load_array(T* dst, const std::byte* src, size_t count, ByteOrder order) {
  load_array<T>(reinterpret_cast<std::byte*>(dst), src, count, order);
}

}  // namespace cubekit::format
