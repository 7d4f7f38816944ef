// Values at any address: rows inside a mapped file are not aligned for their type (they start
// 10 bytes into a data member). memcpy compiles to plain, vectorizable loads and stores.
#pragma once

#include <cstddef>
#include <cstring>

namespace cubekit::core {

// x[i] of a row of T at any address.
template <class T>
T load_any(const std::byte* x, size_t i = 0) {
  T v;
  std::memcpy(&v, x + i * sizeof(T), sizeof(T));
  return v;
}

template <class T>
void store_any(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// A double at any address that may alias the bytes it lies in (GCC and Clang): for the few
// loops whose select GCC vectorizes over such pointers but not over memcpy'd values.
using AnyDouble = double __attribute__((may_alias, aligned(1)));

}  // namespace cubekit::core
