// Entry points of the command-line tools; each parses its options, calls the library, prints.
#pragma once

#include <string>

#include "cubekit/report.hpp"

namespace cubekit::tools {

int dump_main(int argc, char** argv);
int cube3to4_main(int argc, char** argv);
int cube4to3_main(int argc, char** argv);
int generate_main(int argc, char** argv);
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
int inclusify_main(int argc, char** argv);

// Shared by the report-writing algebra tools (algebra.cpp).
// `output`, with ".cubex" appended unless it ends so.
std::string report_name(const std::string& output);
// Writes `text` to standard output at once (CubeLib's progress lines).
void say(const std::string& text);
// Opens `path`, with CubeLib's "Reading <path> ... done." around it when `announce`.
Report read_report(const std::string& path, bool announce);

}  // namespace cubekit::tools
