// One executable for every tool: `cube_dump ...` (a link named after the tool) or
// `cubekit dump ...`.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "cubekit/process_heap.hpp"

#include "command_line.hpp"
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
#define CUBEKIT_TOOL(name, link, entry_point, summary) \
  {name, #link, cubekit::tools::entry_point, summary},
#include "tools.def"
#undef CUBEKIT_TOOL
};

void usage() {
  std::fprintf(stderr, "usage: cubekit <tool> [options] ...\n\ntools:\n");
  for (const Tool& t : kTools)
    std::fprintf(stderr, "  %-10s %s (also as %s)\n", std::string(t.name).c_str(),
                 std::string(t.summary).c_str(), std::string(t.link_name).c_str());
}

// The tools' one error path: an EarlyExit (command_line.hpp: the help, a usage error) thrown
// anywhere in a tool prints its text and ends it with its status; run_guarded takes the rest.
// stdout is not flushed first: the originals' interleaving of the two streams stays.
int run(const Tool& tool, int argc, char** argv) {
  // The heap in huge pages, except for the server: it runs long and gives memory back.
  if (tool.name != "serve") cubekit::use_huge_page_heap();
  const std::string name(tool.link_name);
  return cubekit::cli::run_in_job(name, argc, argv, [&] {
    return cubekit::cli::run_guarded(name.c_str(), [&] {
      try {
        return tool.main(argc, argv);
      } catch (const cubekit::tools::EarlyExit& exit) {
        return cubekit::tools::print_stop(exit);
      }
    });
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
