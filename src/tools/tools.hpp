// Entry points of the command-line tools; each parses its options, calls the library, prints.
#pragma once

#include <cstddef>
#include <string>

#include "command_line.hpp"
#include "cubekit/report.hpp"
#include "cubekit/report_algebra.hpp"

namespace cubekit::tools {

int dump_main(int argc, char** argv);
int cube3to4_main(int argc, char** argv);
int cube4to3_main(int argc, char** argv);
int generate_main(int argc, char** argv);
int model_main(int argc, char** argv);
int derive_main(int argc, char** argv);
int remap2_main(int argc, char** argv);
int serve_main(int argc, char** argv);
int pop_metrics_main(int argc, char** argv);
int diff_main(int argc, char** argv);
int merge_main(int argc, char** argv);
int mean_main(int argc, char** argv);
int cmp_main(int argc, char** argv);
int calltree_main(int argc, char** argv);
int stat_main(int argc, char** argv);
int is_empty_main(int argc, char** argv);
int nodeview_main(int argc, char** argv);
int rank_main(int argc, char** argv);
int tau2cube_main(int argc, char** argv);
int topoassist_main(int argc, char** argv);
int info_main(int argc, char** argv);
int exclusify_main(int argc, char** argv);
int cut_main(int argc, char** argv);
int clean_main(int argc, char** argv);
int part_main(int argc, char** argv);
int canonize_main(int argc, char** argv);
int commoncalltree_main(int argc, char** argv);
int regioninfo_main(int argc, char** argv);
int test_main(int argc, char** argv);
int sanity_main(int argc, char** argv);
int export_peri_main(int argc, char** argv);
int import_peri_main(int argc, char** argv);
int inclusify_main(int argc, char** argv);

// -o NAME, -c (reduce the system trees) and -C (collapse them; overrides -c), as the algebra
// and transformation tools take them.
struct OutputAndSystem {
  std::string output;
  bool reduce = false, collapse = false;
  // Takes -o, -c and -C; other options are left to the caller.
  void take(char option, const char* argument);
  // Their rules, for a tool's OptionTable.
  static std::vector<OptionRule> rules();
  SystemUnification system() const;
};

// Shared by the report-writing algebra tools (algebra.cpp).
// `output`, with ".cubex" appended unless it ends so.
std::string report_name(const std::string& output);
// Writes `text` to standard output at once (CubeLib's progress lines).
void say(const std::string& text);
// The lines CubeLib's tools that compare several reports (cube_test, cube_info) print while
// they merge them ("INFO::Start operation \"MERGE\" with 0-th cube..." ...).
void say_cubelib_merge(size_t reports);
// Opens each of `paths` (the tools that compare reports); throws Error.
std::vector<Report> open_reports(const std::vector<std::string>& paths);
std::vector<const Report*> report_pointers(const std::vector<Report>& reports);
// Opens `path`, with CubeLib's "Reading <path> ... done." around it when `announce`.
Report read_report(const std::string& path, bool announce);

}  // namespace cubekit::tools
