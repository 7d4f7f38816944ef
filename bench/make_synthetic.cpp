// cubekit_make_synthetic OUT.cubex CNODES LOCATIONS METRICS: writes a synthetic report for
// benchmarks (see synthetic_cubex.hpp). Bench-only stand-in until the real writer exists.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "synthetic_cubex.hpp"

namespace {

size_t positive(const char* text, const char* what) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v == 0) {
    std::fprintf(stderr, "cubekit_make_synthetic: %s must be a positive integer, got '%s'\n", what,
                 text);
    std::exit(2);
  }
  return static_cast<size_t>(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s OUT.cubex CNODES LOCATIONS METRICS\n", argv[0]);
    return 2;
  }
  cubekit::bench::SyntheticShape shape;
  shape.cnodes = positive(argv[2], "CNODES");
  shape.locations = positive(argv[3], "LOCATIONS");
  shape.metrics = positive(argv[4], "METRICS");
  try {
    const uint64_t data = cubekit::bench::write_synthetic_cubex(argv[1], shape);
    std::printf("%s: %zu cnodes, %zu locations, %zu metrics, %llu bytes of metric data\n", argv[1],
                shape.cnodes, shape.locations, shape.metrics,
                static_cast<unsigned long long>(data));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cubekit_make_synthetic: %s\n", e.what());
    return 1;
  }
  return 0;
}
