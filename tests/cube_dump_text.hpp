// cube_dump's human output of `-t aggr` (one line per call path under "Print out the data of
// the metric NAME"), read back for tests that check what it prints.
#pragma once

#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace cubekit::test {

// metric → cnode id → the text of its value.
inline std::map<std::string, std::map<uint32_t, std::string>> parse_dump(const std::string& text) {
  std::map<std::string, std::map<uint32_t, std::string>> out;
  static const std::regex kRow(R"(^(.*)\(id=(\d+)\)\s+(\S.*)$)");
  std::istringstream in(text);
  std::string metric;
  for (std::string line; std::getline(in, line);) {
    const std::string header = "Print out the data of the metric ";
    std::smatch m;
    if (line.rfind(header, 0) == 0)
      metric = line.substr(header.size());
    else if (!metric.empty() && std::regex_match(line, m, kRow))
      out[metric][static_cast<uint32_t>(std::stoul(m[2]))] = m[3];
  }
  return out;
}

}  // namespace cubekit::test
