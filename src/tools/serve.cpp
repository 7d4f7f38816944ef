// cubekit serve: the JSON API and the browser viewer over the reports below a folder
// (cubekit/server.hpp, docs/server.md). Runs until SIGINT or SIGTERM, then exits 0.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <CLI/CLI.hpp>

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

}  // namespace

int serve_main(int argc, char** argv) {
  CLI::App app{"Serves the reports below a folder: JSON API under /api/v1 and a browser viewer.",
               "cubekit serve"};
  ServerOptions o;
  std::string root = ".";
  bool open = false;
  app.add_option("--root", root, "folder whose reports are served")->capture_default_str();
  app.add_option("--port", o.port, "TCP port (0: any free one)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app.add_option("--bind", o.bind, "address to listen on")->capture_default_str();
  app.add_option("--threads", o.threads, "requests answered at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  std::string plugins, source_root;
  app.add_option("--source-root", source_root,
                 "folder of the measured program's sources (besides --root), for the source view");
  app.add_option("--plugins", plugins, "folder of viewer plugins (its .js files, docs/viewer.md)");
  app.add_flag("--open", open, "open the viewer in the desktop's browser");
  CLI11_PARSE(app, argc, argv);
  o.root = root;
  o.plugins = plugins;
  o.source_root = source_root;

  // Signals are taken by this thread only (sigwait below), never by the server's threads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    Server server(o);
    const int port = server.listen();
    const std::string url = "http://" + o.bind + ":" + std::to_string(port) + "/";
    std::printf("cubekit serve: %s (reports below %s; Ctrl-C stops)\n", url.c_str(), root.c_str());
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
