// Fuzzes the tar scanner (cube-format.md §2): any byte string must either yield a member table
// whose every member lies inside the input, or a cubekit::Error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "cubekit/error.hpp"
#include "format/tar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    const auto index = cubekit::format::TarIndex::scan(bytes, "fuzz.cubex");
    for (const auto& m : index.members()) {
      // The reader hands these ranges to the decoders unchecked, so they must be in bounds.
      if (m.offset > size || m.size > size - m.offset) std::abort();
      if (index.find(m.name) != &m) std::abort();
      volatile std::byte sink{};
      if (m.size > 0) sink = bytes[m.offset + m.size - 1];
      (void)sink;
    }
  } catch (const cubekit::Error&) {
    // Rejecting the input is the expected outcome for most inputs.
  }
  return 0;
}
