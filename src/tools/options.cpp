// CubeLib's option conventions, shared by the tools that follow them (tools.hpp).
#include <getopt.h>

#include <iostream>

#include "tools.hpp"

namespace cubekit::tools {

bool parse_cubelib_options(int argc, char** argv, const char* spec, const std::string& usage,
                           const std::function<void(int option, const char* argument)>& take,
                           std::ostream& usage_out) {
  optind = 1;
  opterr = 1;
  for (int c; (c = getopt(argc, argv, spec)) != -1;) {
    if (c == 'h' || c == '?') {
      usage_out << usage << std::endl;
      return false;
    }
    take(c, optarg);
  }
  return true;
}

void OutputAndSystem::take(int option, const char* argument) {
  if (option == 'o') output = argument;
  if (option == 'c') reduce = true;
  if (option == 'C') collapse = true;
}

SystemUnification OutputAndSystem::system() const {
  if (collapse) return SystemUnification::kCollapse;
  return reduce ? SystemUnification::kReduce : SystemUnification::kStrict;
}

bool operands_fit(int argc, size_t min, size_t max, const std::string& usage,
                  const std::string& error) {
  const size_t n = static_cast<size_t>(argc - optind);
  if (n >= min && n <= max) return true;
  std::cerr << usage << error;
  return false;
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

std::vector<Report> open_reports(int first, int argc, char** argv) {
  std::vector<Report> reports;
  for (int i = first; i < argc; ++i) reports.push_back(Report::open(argv[i]));
  return reports;
}

std::vector<const Report*> report_pointers(const std::vector<Report>& reports) {
  std::vector<const Report*> pointers;
  for (const Report& r : reports) pointers.push_back(&r);
  return pointers;
}

}  // namespace cubekit::tools
