// Generated reports for the server tests, with what cube_dump says of them: the independent
// expectation every answer of the server is checked against.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "cubekit/generator.hpp"
#include "test_support.hpp"

namespace cubekit::test {

// CUBEKIT_SOAK_SCALE=n makes the long server tests n times longer (bench/soak.sh runs them large).
inline int soak_scale() {
  const char* text = std::getenv("CUBEKIT_SOAK_SCALE");
  const int scale = text ? std::atoi(text) : 1;
  return std::clamp(scale, 1, 1000);
}

// Per cnode id, a value as cube_dump printed it (6 significant digits).
using DumpedValues = std::map<uint32_t, double>;

// `cube_dump -m METRIC -z FLAVOUR -t aggr REPORT`, parsed.
inline DumpedValues dumped(const std::filesystem::path& report, const std::string& metric,
                           const char* flavour) {
  const auto r = run_tool("cube_dump", {"-m", metric, "-z", flavour, "-t", "aggr", report});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  static const std::regex kRow(R"(^.*\(id=(\d+)\)\s+(\S+)$)");
  DumpedValues out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kRow))
      out[static_cast<uint32_t>(std::stoul(m[1]))] = std::stod(m[2]);
  }
  return out;
}

// An exact value and one cube_dump printed with 6 significant digits (or computed from such).
inline bool agrees(double printed, double exact) {
  return std::fabs(printed - exact) <= 1e-5 * std::fabs(exact) + 1e-9;
}

// A generated report and what cube_dump says of it: inclusive time and exclusive visits.
struct KnownReport {
  std::string name;  // relative to the served root
  DumpedValues time_incl, visits_excl;
  // metric::time(i)*k + metric::visits(e) at a cnode, as cube_dump's numbers give it.
  double expression(uint32_t cnode, int k) const {
    return time_incl.at(cnode) * k + visits_excl.at(cnode);
  }
};

// Generates `dir/name` with the given shape and asks cube_dump about it.
inline KnownReport make_known_report(const std::filesystem::path& dir, const std::string& name,
                                     uint64_t seed, size_t call_paths, size_t threads) {
  GeneratorOptions o;
  o.seed = seed;
  o.call_paths = call_paths;
  o.threads_per_process = threads;
  const std::filesystem::path path = dir / name;
  generate_report(path.string(), o);
  return {name, dumped(path, "time", "incl"), dumped(path, "visits", "excl")};
}

}  // namespace cubekit::test
