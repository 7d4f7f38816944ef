// Fuzzes the remapping-specification reader (.spec, cube_remap2 -r): any text must parse or
// raise a cubekit::Error, and what parses must be a forest whose links stay inside it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cubekit/error.hpp"
#include "cubekit/remap.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const cubekit::RemapSpec spec = cubekit::parse_remap_spec(text, "fuzz.spec");
    const size_t n = spec.metrics.size();
    for (size_t i = 0; i < n; ++i) {
      const cubekit::Metric& m = spec.metrics[i];
      if (m.parent != cubekit::kNoIndex && m.parent >= i) std::abort();  // pre-order
      for (const cubekit::Index k : m.children)
        if (k >= n || spec.metrics[k].parent != i) std::abort();
    }
  } catch (const cubekit::Error&) {
    // Rejecting the input is the expected outcome for most inputs.
  }
  return 0;
}
