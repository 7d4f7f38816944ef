// cubekit_open_report FILE: opens a report (tar index, anchor.xml, model) and prints
// "<seconds> <call paths> <locations>". Used by bench/open_anchor.sh to time
// opening huge anchors; values are not read (Report::open is lazy). The heap is set up as the
// tools set it up (huge pages, unless CUBEKIT_HUGE_PAGES=0).
#include <chrono>
#include <cstdio>
#include <exception>

#include "cubekit/process_heap.hpp"
#include "cubekit/report.hpp"

int main(int argc, char** argv) {
  cubekit::use_huge_page_heap();
  if (argc != 2) {
    std::fprintf(stderr, "usage: cubekit_open_report FILE\n");
    return 1;
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const cubekit::Report report = cubekit::Report::open(argv[1]);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%.3f %zu %zu\n", seconds, report.model().cnodes.size(),
                report.model().locations.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cubekit_open_report: %s\n", e.what());
    return 1;
  }
  return 0;
}
