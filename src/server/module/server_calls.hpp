// The server as the module cubekit-server.so exposes it to the executable (LoadedServer,
// cubekit/server.hpp): a table of functions over a Server the module owns.
#pragma once

#include "cubekit/server.hpp"

namespace cubekit::server {

// Raised whenever the table changes: a module of another build is refused.
constexpr int kServerCallsVersion = 1;

struct ServerCalls {
  int version;
  Server* (*open)(const ServerOptions& options);  // new Server(options); throws as it does
  void (*close)(Server* server);                  // delete
  int (*listen)(Server* server);
  void (*run)(Server* server);
  void (*stop)(Server* server);
};

}  // namespace cubekit::server

#define CUBEKIT_SERVER_MODULE_FILE "cubekit-server.so"
#define CUBEKIT_SERVER_MODULE_ENTRY "cubekit_server_calls"
