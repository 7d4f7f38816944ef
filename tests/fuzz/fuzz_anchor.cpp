// Fuzzes the anchor.xml parser (cube-format.md §3) and the call-tree orders built from its
// result (§4): any text must either give a consistent Model or a cubekit::Error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cubekit/error.hpp"
#include "cubekit/model.hpp"
#include "format/anchor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const cubekit::Model model = cubekit::format::parse_anchor(text, "fuzz.cubex:anchor.xml");
    // Both row orders must be permutations of the cnodes: the data decoder indexes with them.
    for (const auto kind : {cubekit::MetricKind::kExclusive, cubekit::MetricKind::kInclusive}) {
      const auto order = cubekit::storage_order(model, kind);
      if (order.size() != model.cnodes.size()) std::abort();
      for (const cubekit::Index c : order)
        if (c >= model.cnodes.size()) std::abort();
    }
    for (const auto& l : model.locations)
      if (l.id >= model.locations.size()) std::abort();
    for (const auto& m : model.metrics) (void)m.dtype.disk_size();
  } catch (const cubekit::Error&) {
    // Rejecting the input is the expected outcome for most inputs.
  }
  return 0;
}
