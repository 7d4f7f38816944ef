// The module cubekit-server.so (server_calls.hpp): the server layer, cpp-httplib and the
// library, loaded by `cubekit serve` only. Only its entry point is visible outside it.
#include "server/module/server_calls.hpp"

namespace cubekit::server {
namespace {

Server* open(const ServerOptions& options) {
  return new Server(options);
}
void close(Server* server) {
  delete server;
}
int listen(Server* server) {
  return server->listen();
}
void run(Server* server) {
  server->run();
}
void stop(Server* server) {
  server->stop();
}

constexpr ServerCalls kCalls{kServerCallsVersion, open, close, listen, run, stop};

}  // namespace
}  // namespace cubekit::server

extern "C" __attribute__((visibility("default"))) const cubekit::server::ServerCalls*
cubekit_server_calls() {
  return &cubekit::server::kCalls;
}
