// cubekit serve: the JSON API and the browser viewer over the reports below a folder
// (cubekit/server.hpp, docs/server.md). Runs until SIGINT or SIGTERM, then exits 0.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <thread>

#include "cubekit/error.hpp"
#include "cubekit/server.hpp"
#include "tools.hpp"

extern char** environ;

namespace cubekit::tools {
namespace {

// Asks the desktop to open the viewer; a machine without one just says so.
void open_browser(const std::string& url) {
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
    std::fprintf(stderr, "cubekit serve: cannot start xdg-open; open %s yourself\n", url.c_str());
}

// The options, as data (command_line.hpp); -h/--help prints them.
OptionTable serve_options() {
  OptionTable table{{
      long_option('r', "root", "DIR", "folder whose reports are served (default: .)"),
      long_option('p', "port", "N", "TCP port, 0: any free one (default: 8080)"),
      long_option('b', "bind", "ADDR", "address to listen on (default: 127.0.0.1)"),
      long_option('t', "threads", "N", "requests answered at once, 1 to 256 (default: 16)"),
      long_option('s', "source-root", "DIR",
                  "folder of the measured program's sources (besides --root), for the source "
                  "view"),
      long_option('P', "plugins", "DIR",
                  "folder of viewer plugins (its .js files, docs/viewer.md)"),
      long_option('O', "open", nullptr, "open the viewer in the desktop's browser"),
  }};
  table.long_options = true;
  table.program = "cubekit serve";
  add_long_help(
      table,
      "usage: cubekit serve [options]\n"
      "Serves the reports below a folder: JSON API under /api/v1 and a browser viewer.\n");
  table.operands = OperandCount{0, 0, failure("cubekit serve: takes no operands (see --help)\n")};
  return table;
}

}  // namespace

int serve_main(int argc, char** argv) {
  ServerOptions o;
  bool open = false;
  const OptionTable table = serve_options();
  parse_command_line(table, argc, argv, [&](char key, const char* value) {
    if (key == 'r') o.root = value;
    if (key == 'p') o.port = int(whole_number_argument(table, "--port", value, 0, 65535));
    if (key == 'b') o.bind = value;
    if (key == 't') o.threads = int(whole_number_argument(table, "--threads", value, 1, 256));
    if (key == 's') o.source_root = value;
    if (key == 'P') o.plugins = value;
    if (key == 'O') open = true;
  });

  // Signals are taken by this thread only (sigwait below), never by the server's threads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    LoadedServer server(o);
    const int port = server.listen();
    const std::string url = "http://" + o.bind + ":" + std::to_string(port) + "/";
    std::printf("cubekit serve: %s (reports below %s; Ctrl-C stops)\n", url.c_str(),
                o.root.c_str());
    std::fflush(stdout);
    std::thread runner([&server] { server.run(); });
    if (open) open_browser(url);
    int received = 0;
    sigwait(&stop_signals, &received);
    server.stop();
    runner.join();
    std::printf("cubekit serve: stopped\n");
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "cubekit serve: %s\n", e.what());
    return 1;
  }
}

}  // namespace cubekit::tools
