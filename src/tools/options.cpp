// What several tools share: -o/-c/-C, CubeLib's merge lines, opening reports (tools.hpp).
#include <iostream>

#include "tools.hpp"

namespace cubekit::tools {

void OutputAndSystem::take(char option, const char* argument) {
  if (option == 'o') output = argument;
  if (option == 'c') reduce = true;
  if (option == 'C') collapse = true;
}

std::vector<OptionRule> OutputAndSystem::rules() {
  return {{'o', Argument::kRequired}, {'c'}, {'C'}};
}

SystemUnification OutputAndSystem::system() const {
  if (collapse) return SystemUnification::kCollapse;
  return reduce ? SystemUnification::kReduce : SystemUnification::kStrict;
}

void say_cubelib_merge(size_t reports) {
  for (size_t i = 0; i < reports; ++i)
    say("INFO::Start operation \"MERGE\" with " + std::to_string(i) +
        "-th cube...\n"
        "INFO::Merging metric dimension... done.\n"
        "INFO::Merging program dimension... done.\n"
        "INFO::Merging system dimension... done.\n"
        "INFO::Merging topologies... done.\n");
  say("INFO::Merge operation... done.\n");
}

std::vector<Report> open_reports(const std::vector<std::string>& paths) {
  std::vector<Report> reports;
  for (const std::string& path : paths) reports.push_back(Report::open(path));
  return reports;
}

std::vector<const Report*> report_pointers(const std::vector<Report>& reports) {
  std::vector<const Report*> pointers;
  for (const Report& r : reports) pointers.push_back(&r);
  return pointers;
}

}  // namespace cubekit::tools
