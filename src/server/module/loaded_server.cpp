// LoadedServer (cubekit/server.hpp): the executable's side of the module cubekit-server.so.
#include <string>

#include "core/modules.hpp"
#include "cubekit/error.hpp"
#include "cubekit/server.hpp"
#include "server/module/server_calls.hpp"

namespace cubekit {
namespace {

const server::ServerCalls& server_calls() {
  static const server::ServerCalls* const calls = [] {
    const auto entry = reinterpret_cast<const server::ServerCalls* (*)()>(
        core::module_entry(CUBEKIT_SERVER_MODULE_FILE, CUBEKIT_SERVER_MODULE_ENTRY));
    const server::ServerCalls* table = entry();
    if (table->version != server::kServerCallsVersion)
      throw Error(std::string(CUBEKIT_SERVER_MODULE_FILE) + ": version " +
                  std::to_string(table->version) + " of the server calls, this build needs " +
                  std::to_string(server::kServerCallsVersion));
    return table;
  }();
  return *calls;
}

}  // namespace

LoadedServer::LoadedServer(const ServerOptions& options)
    : calls_(&server_calls()), server_(calls_->open(options)) {}

LoadedServer::~LoadedServer() {
  calls_->close(server_);
}

int LoadedServer::listen() {
  return calls_->listen(server_);
}

void LoadedServer::run() {
  calls_->run(server_);
}

void LoadedServer::stop() {
  calls_->stop(server_);
}

}  // namespace cubekit
