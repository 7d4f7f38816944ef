// Entry points of the command-line tools; each parses its options, calls the library, prints.
#pragma once

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

}  // namespace cubekit::tools
