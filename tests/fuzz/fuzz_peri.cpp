// Fuzzes the PERI-XML reader (cubekit import-peri): any bytes must read or raise a
// cubekit::Error, and what reads must be a model whose links stay inside it, with one row of
// values per metric at most, of the model's size — read by guessed ranges where it can be.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cubekit/error.hpp"
#include "io/peri_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // Ranges of 16 bytes: small inputs take the reading by guessed ranges too, and, on a wrong
    // guess or an error, the reading again in order.
    const cubekit::io::PeriDocument doc = cubekit::io::read_peri_xml(text, "fuzz.xml", nullptr, 16);
    const cubekit::Model& m = *doc.model;
    if (doc.values.size() != m.metrics.size()) std::abort();
    for (const auto& row : doc.values)
      if (!row.empty() && row.size() != m.cnodes.size() * m.locations.size()) std::abort();
    for (const cubekit::Cnode& c : m.cnodes)
      if (c.region >= m.regions.size() ||
          (c.parent != cubekit::kNoIndex && c.parent >= m.cnodes.size()))
        std::abort();
    for (const cubekit::Location& l : m.locations)
      if (l.group >= m.groups.size()) std::abort();
  } catch (const cubekit::Error&) {
    // Rejecting the input is the expected outcome for most inputs.
  }
  return 0;
}
