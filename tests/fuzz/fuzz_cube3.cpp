// Fuzzes the Cube 3 reader (cube-format.md §10): plain or gzip bytes must give a model whose
// severity matrices can be read in full, or a cubekit::Error.
#include <cstddef>
#include <cstdint>
#include <span>

#include "cubekit/error.hpp"
#include "format/cube3.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    const auto doc = cubekit::format::read_cube3(bytes, "fuzz.cube");
    unsigned char sum = 0;
    for (cubekit::Index m = 0; m < doc.model->metrics.size(); ++m) {
      const auto matrix = doc.source->load(*doc.model, m);
      if (!matrix) continue;
      for (cubekit::Index c = 0; c < doc.model->cnodes.size(); ++c)
        if (const std::byte* row = matrix->row(c))
          for (size_t b = 0; b < matrix->row_bytes(); ++b)
            sum ^= static_cast<unsigned char>(row[b]);
    }
    volatile unsigned char sink = sum;  // keeps the reads from being optimised away
    (void)sink;
  } catch (const cubekit::Error&) {
    // Rejecting the input is the expected outcome for most inputs.
  }
  return 0;
}
