// A bench-only writer of synthetic but valid .cubex reports (ustar archive, anchor.xml, dense
// indexes, plain CUBEX.DATA rows). It stands in for the real writer (a later issue) so that
// benchmarks can run on reports of any size; it is not part of the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cubekit::bench {

struct SyntheticShape {
  size_t cnodes = 5000;   // call tree with fan-out `fan_out`: cnode i's parent is (i-1)/fan_out
  size_t locations = 64;  // one thread per process, all on one machine/node
  size_t metrics = 2;     // alternating EXCLUSIVE UINT64 (visits) and INCLUSIVE DOUBLE (time)
  size_t fan_out = 8;
};

// Writes the report to `path`, row by row (memory stays O(cnodes + locations)). Returns the
// bytes of metric data written (sum of the .data member sizes). Throws std::runtime_error.
uint64_t write_synthetic_cubex(const std::string& path, const SyntheticShape& shape);

// The values written, so that callers can check what a reader returns.
// Visits (EXCLUSIVE UINT64) of cnode `c` (its id) at location `l`.
inline uint64_t synthetic_visits(size_t c, size_t l) {
  return 1 + (c + l) % 5;
}
// Exclusive time of cnode c at location l is own_time(c) * location_weight(l); the stored
// INCLUSIVE value is subtree_own_time(c) * location_weight(l), so a parent always exceeds the
// sum of its children by its own (positive) exclusive time.
inline double synthetic_own_time(size_t c) {
  return 1e-3 * static_cast<double>(1 + c % 10);
}
inline double synthetic_location_weight(size_t l) {
  return 1.0 + 0.125 * static_cast<double>(l % 8);
}

}  // namespace cubekit::bench
