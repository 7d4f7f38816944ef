// `cubekit serve`: an HTTP server over the library that answers the JSON API of docs/server.md
// (/api/v1/...) and serves the browser viewer (web/, compiled into the binary) from `/`.
// Read-only and confined to one folder: nothing outside `root` is ever opened.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace cubekit {

struct ServerOptions {
  std::filesystem::path root = ".";  // reports are served from below this folder only
  // The viewer's user plugins: the .js files directly in this folder (empty: none).
  std::filesystem::path plugins;
  // Sources of the regions (the viewer's source view) are looked for below `root` and, when
  // set, below this folder.
  std::filesystem::path source_root;
  std::string bind = "127.0.0.1";
  int port = 8080;   // 0: any free port (see Server::port())
  int threads = 16;  // requests answered at once; more wait in the queue
  // Open reports stay cached while their file sizes add up to at most this (least recently
  // used ones are closed first; a single larger report is still opened).
  uint64_t cache_bytes = uint64_t{8} << 30;
  // A request whose values would need more bytes than this in memory (call paths × locations
  // × value size of each metric it decodes) is refused with 413.
  uint64_t decode_limit_bytes = uint64_t{4} << 30;
  // Requests decoding at the same time may hold at most this much together; beyond, 503.
  // Caches (engines' rows, answers kept for later requests) hold their share of it too, and
  // give it back when a request needs it.
  uint64_t decode_budget_bytes = uint64_t{6} << 30;
  // Connections (docs/server.md, "Limits"): a keep-alive connection answers at most this many
  // requests, then the server closes it; one idle this many seconds is closed; a request whose
  // bytes stop arriving for read_seconds is dropped.
  int requests_per_connection = 100;
  int idle_seconds = 2;
  int read_seconds = 5;
};

// Thread safety: listen() and run() once, from one thread; stop() from any thread (also while
// run() answers). Requests are answered on `threads` threads at once; what they share (open
// reports, metric engines, cached answers) is owned by whoever still uses it, so a cache may
// drop an entry that a request is still reading.
class Server {
 public:
  // Checks the root (an existing folder). Throws cubekit::IoError otherwise.
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the address; throws cubekit::IoError when it cannot. Returns the bound port.
  int listen();
  int port() const;
  // Answers requests until stop() (from another thread or a signal handler's thread); returns
  // at once when stop() came first.
  void run();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

namespace server {
struct ServerCalls;
}

// The Server of `cubekit serve`, from the module cubekit-server.so (built beside the
// executable, installed in lib/cubekit/), which the executable loads only here: every other
// tool then starts without cpp-httplib and the OpenSSL set-up that its library runs when it is
// loaded (docs/benchmarks.md). The same calls and errors as Server; Error when the module
// cannot be loaded.
class LoadedServer {
 public:
  explicit LoadedServer(const ServerOptions& options);
  ~LoadedServer();
  LoadedServer(const LoadedServer&) = delete;
  LoadedServer& operator=(const LoadedServer&) = delete;

  int listen();
  void run();
  void stop();

 private:
  const server::ServerCalls* calls_;
  Server* server_;
};

}  // namespace cubekit
