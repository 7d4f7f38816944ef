// One executable for every tool: `cube_dump ...` (a link named after the tool) or
// `cubekit dump ...`.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "run_guarded.hpp"
#include "run_in_job.hpp"
#include "tools.hpp"

namespace {

struct Tool {
  std::string_view name;       // as `cubekit <name>`
  std::string_view link_name;  // as CubeLib calls it
  int (*main)(int, char**);
  std::string_view summary;
};

constexpr Tool kTools[] = {
    {"dump", "cube_dump", cubekit::tools::dump_main, "print a report's structure and values"},
    {"cube3to4", "cube3to4", cubekit::tools::cube3to4_main, "convert a Cube 3 .cube into a .cubex"},
    {"cube4to3", "cube4to3", cubekit::tools::cube4to3_main, "convert a .cubex into a Cube 3 .cube"},
    {"derive", "cube_derive", cubekit::tools::derive_main,
     "write a report with one more metric defined by a CubePL expression"},
    {"remap2", "cube_remap2", cubekit::tools::remap2_main,
     "write a report with the metric hierarchy of a .spec file"},
    {"pop_metrics", "cube_pop_metrics", cubekit::tools::pop_metrics_main,
     "POP efficiency metrics of a report or a scaling series"},
    {"diff", "cube_diff", cubekit::tools::diff_main, "write the difference of two reports"},
    {"merge", "cube_merge", cubekit::tools::merge_main,
     "write one report holding the metrics of several"},
    {"mean", "cube_mean", cubekit::tools::mean_main, "write the average of several reports"},
    {"cmp", "cube_cmp", cubekit::tools::cmp_main, "compare two reports (exit 0: equal)"},
    {"cut", "cube_cut", cubekit::tools::cut_main,
     "write a report with the call tree re-rooted and/or regions inlined"},
    {"clean", "cube_clean", cubekit::tools::clean_main,
     "write a report without unused definitions, ids renumbered"},
    {"part", "cube_part", cubekit::tools::part_main,
     "write a report with the values of processes outside a rank list zeroed"},
    {"canonize", "cube_canonize", cubekit::tools::canonize_main,
     "write a report with canonical region names"},
    {"commoncalltree", "cube_commoncalltree", cubekit::tools::commoncalltree_main,
     "write each report with only the call paths all of them share"},
    {"exclusify", "cube_exclusify", cubekit::tools::exclusify_main,
     "write a report with every metric stored call-exclusive"},
    {"inclusify", "cube_inclusify", cubekit::tools::inclusify_main,
     "write a report with every metric stored call-inclusive"},
    {"calltree", "cube_calltree", cubekit::tools::calltree_main,
     "print the call tree, optionally with one metric's values"},
    {"stat", "cube_stat", cubekit::tools::stat_main,
     "summarise a routine and its callees, or the top regions"},
    {"is_empty", "cube_is_empty", cubekit::tools::is_empty_main,
     "exit 0 when every value of a report is zero"},
    {"nodeview", "cube_nodeview", cubekit::tools::nodeview_main,
     "one metric summed per system-tree node"},
    {"rank", "cube_rank", cubekit::tools::rank_main, "rank call paths and locations by one metric"},
    {"tau2cube", "tau2cube", cubekit::tools::tau2cube_main,
     "write a TAU profile directory as a report"},
    {"topoassist", "cube_topoassist", cubekit::tools::topoassist_main,
     "add, generate, rename or remove topologies (dialogue)"},
    {"info", "cube_info", cubekit::tools::info_main,
     "print the call tree with metric columns, abridged by thresholds"},
    {"regioninfo", "cube_regioninfo", cubekit::tools::regioninfo_main,
     "regions with their kind, trace buffer cost and metric shares"},
    {"test", "cube_test", cubekit::tools::test_main,
     "check that reports agree call path by call path"},
    {"sanity", "cube_sanity", cubekit::tools::sanity_main,
     "check region names, files, lines and metric signs of a report"},
    {"export-peri", "cube_export_peri", cubekit::tools::export_peri_main,
     "write a report as PERI-XML (docs/peri-xml.md)"},
    {"import-peri", "cube_import_peri", cubekit::tools::import_peri_main,
     "write a PERI-XML document as a report (docs/peri-xml.md)"},
    {"generate", "cube_generate", cubekit::tools::generate_main,
     "write a realistic synthetic profile"},
    {"model", "cube_model", cubekit::tools::model_main,
     "fit Extra-P's performance models to a series of reports"},
    {"serve", "cube_serve", cubekit::tools::serve_main,
     "serve reports to a browser: JSON API and viewer"},
};

void usage() {
  std::fprintf(stderr, "usage: cubekit <tool> [options] ...\n\ntools:\n");
  for (const Tool& t : kTools)
    std::fprintf(stderr, "  %-10s %s (also as %s)\n", std::string(t.name).c_str(),
                 std::string(t.summary).c_str(), std::string(t.link_name).c_str());
}

int run(const Tool& tool, int argc, char** argv) {
  const std::string name(tool.link_name);
  return cubekit::cli::run_in_job(name, argc, argv, [&] {
    return cubekit::cli::run_guarded(name.c_str(), [&] { return tool.main(argc, argv); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::string_view self = argv[0];
  if (const size_t slash = self.rfind('/'); slash != std::string_view::npos)
    self.remove_prefix(slash + 1);
  for (const Tool& t : kTools)
    if (self == t.link_name) return run(t, argc, argv);
  if (argc < 2) {
    usage();
    return 1;
  }
  for (const Tool& t : kTools)
    if (argv[1] == t.name || argv[1] == t.link_name) return run(t, argc - 1, argv + 1);
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage();
    return 0;
  }
  std::fprintf(stderr, "cubekit: unknown tool '%s'\n", argv[1]);
  usage();
  return 1;
}
