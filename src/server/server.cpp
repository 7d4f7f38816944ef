#include "cubekit/server.hpp"

#include <httplib.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "cubekit/error.hpp"
#include "server/api.hpp"
#include "server/assets.hpp"
#include "server/http_error.hpp"
#include "server/plugin_folder.hpp"
#include "server/source_files.hpp"

namespace cubekit {

using server::Api;
using server::HttpError;
using server::Params;

namespace {

// Where region sources may lie: the served root, then --source-root.
std::vector<std::filesystem::path> source_folders(const ServerOptions& o) {
  std::vector<std::filesystem::path> folders{o.root};
  if (!o.source_root.empty()) folders.push_back(o.source_root);
  return folders;
}

}  // namespace

struct Server::Impl {
  explicit Impl(ServerOptions o)
      : options(std::move(o)),
        confinement(options.root),
        budget(options.decode_limit_bytes, options.decode_budget_bytes),
        cache(options.cache_bytes, budget),
        sources(source_folders(options)),
        api(confinement, cache, sources),
        plugins(options.plugins) {
    budget.set_reclaimer([this] { cache.drop_caches(); });
  }

  void route(const char* path, std::string (Api::*endpoint)(const Params&));
  void routes();
  void plugin_routes();
  void download_route();
  void asset_routes();

  ServerOptions options;
  server::Confinement confinement;
  server::DecodeBudget budget;
  server::ReportCache cache;
  server::SourceFiles sources;
  Api api;
  server::PluginFolder plugins;
  httplib::Server http;
  int port = -1;
  // stop() before run() (a test's server stopped at once, a signal right after listen()):
  // cpp-httplib's stop() does nothing until its loop runs, which would then never end.
  std::mutex run_mutex;
  std::condition_variable loop_started_or_run_ended;
  bool stop_asked = false;
  bool in_run = false;
};

namespace {

// With the charset named, cpp-httplib does not compress the answer: it would pick Brotli at its
// highest quality for browsers, which takes a second for the 800 KB tree of a report with 6,000
// locations, twenty times the time to compute it (bench/viewer_paint.sh). On loopback and in a
// cluster's network the plain bytes are faster.
constexpr const char* kJson = "application/json; charset=utf-8";
// Modules likewise: text/javascript would be compressed on every request (embed_assets.cmake).
constexpr const char* kJavaScript = "application/javascript; charset=utf-8";

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(nlohmann::json{{"error", message}}.dump(), kJson);
}

}  // namespace

// Scripts and pages run under this policy: only the server's own files, no inline scripts.
void set_page_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'");
}

// Answers with `fill`'s content; errors are {"error": "..."} with their status. Library errors
// not tied to a file's content (they should not happen) are 500, never a crash.
template <typename Fill>
void answer(const server::Confinement& confinement, httplib::Response& res, Fill fill) {
  try {
    fill();
    res.set_header("Cache-Control", "no-store");
  } catch (const HttpError& e) {
    send_error(res, e.status(), confinement.relative_message(e.what()));
  } catch (const Error& e) {
    send_error(res, 422, confinement.relative_message(e.what()));
  } catch (const std::bad_alloc&) {
    send_error(res, 503, "out of memory while answering; try a smaller question");
  } catch (const std::exception& e) {
    send_error(res, 500, confinement.relative_message(e.what()));
  }
}

// Every answer of an endpoint is JSON.
void Server::Impl::route(const char* path, std::string (Api::*endpoint)(const Params&)) {
  http.Get(path, [this, endpoint](const httplib::Request& req, httplib::Response& res) {
    answer(confinement, res, [&] {
      res.set_content((api.*endpoint)(Params(req.params.begin(), req.params.end())), kJson);
    });
  });
}

// The report with the viewer's derived metrics, as a file to save.
void Server::Impl::download_route() {
  http.Get("/api/v1/derived-report", [this](const httplib::Request& req, httplib::Response& res) {
    answer(confinement, res, [&] {
      const Api::Download d = api.derived_report(Params(req.params.begin(), req.params.end()));
      res.set_content(d.bytes, "application/octet-stream");
      res.set_header("Content-Disposition", "attachment; filename=\"" + d.file_name + "\"");
    });
  });
}

void Server::Impl::routes() {
  route("/api/v1/reports", &Api::reports);
  route("/api/v1/tree", &Api::tree);
  route("/api/v1/source", &Api::source);
  route("/api/v1/children", &Api::children);
  route("/api/v1/search", &Api::search);
  route("/api/v1/values", &Api::values);
  route("/api/v1/flat", &Api::flat);
  route("/api/v1/callgraph", &Api::callgraph);
  route("/api/v1/flame", &Api::flame);
  route("/api/v1/path", &Api::path);
  route("/api/v1/statistics", &Api::statistics);
  route("/api/v1/diff", &Api::diff);
  route("/api/v1/pop", &Api::pop);
  route("/api/v1/model", &Api::model);
  download_route();
  plugin_routes();
  asset_routes();
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty()) send_error(res, res.status, "cannot answer " + req.path);
  });
  // Only GET exists; a request body is never read beyond this. URLs over 8,192 bytes are 414
  // and header lines over 8,192 bytes 400 (cpp-httplib's own limits, docs/server.md).
  http.set_payload_max_length(64 * 1024);
  http.set_read_timeout(options.read_seconds, 0);
  http.set_write_timeout(30, 0);
  http.set_keep_alive_timeout(options.idle_seconds);
  http.set_keep_alive_max_count(static_cast<size_t>(options.requests_per_connection));
  // cpp-httplib sends an answer's headers and body in two writes; with Nagle's algorithm the
  // body (a few kB) then waited for the browser's delayed ACK of the headers, 40 ms on Linux:
  // the viewer's flat profile and call graph answers came 40 ms after their first byte.
  http.set_tcp_nodelay(true);
  // cpp-httplib makes its task queue once its loop counts as running (is_running()) and
  // before it accepts: the moment a waiting stop() can stop it.
  const int threads = options.threads;
  http.new_task_queue = [this, threads] {
    // Taken and given back: a stop() that found the loop not running is waiting by now.
    { std::lock_guard lock(run_mutex); }
    loop_started_or_run_ended.notify_all();
    return new httplib::ThreadPool(static_cast<size_t>(threads));
  };
}

// The user's plugins (--plugins): listed for the viewer, which imports each as a module.
void Server::Impl::plugin_routes() {
  http.Get("/api/v1/plugins", [this](const httplib::Request&, httplib::Response& res) {
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& name : plugins.list())
      list.push_back({{"name", name}, {"url", "/user-plugins/" + name}});
    res.set_content(nlohmann::json{{"plugins", list}}.dump(), kJson);
    res.set_header("Cache-Control", "no-store");
  });
  http.Get(R"(/user-plugins/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
    try {
      res.set_content(plugins.read(req.matches[1].str()), kJavaScript);
      res.set_header("Cache-Control", "no-store");
      set_page_headers(res);
    } catch (const HttpError& e) {
      send_error(res, e.status(), e.what());
    }
  });
}

// The viewer: only the files compiled in (web/ and its folders); nothing on disk is served.
void Server::Impl::asset_routes() {
  http.Get(R"(/[A-Za-z0-9_.-]*(/[A-Za-z0-9_.-]+)*)", [](const httplib::Request& req,
                                                        httplib::Response& res) {
    const server::Asset* a = server::find_asset(req.path == "/" ? "/index.html" : req.path);
    if (!a) return send_error(res, 404, "no such page: " + req.path);
    res.set_content(a->body.data(), a->body.size(), std::string(a->content_type).c_str());
    set_page_headers(res);
  });
}

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  const ServerOptions& o = impl_->options;
  if (o.threads < 1) throw Error("serve: threads must be at least 1");
  if (o.requests_per_connection < 1 || o.idle_seconds < 1 || o.read_seconds < 1)
    throw Error("serve: requests per connection and timeouts must be at least 1");
  impl_->routes();
}

Server::~Server() {
  stop();
}

int Server::listen() {
  Impl& s = *impl_;
  s.port = s.options.port == 0
               ? s.http.bind_to_any_port(s.options.bind)
               : (s.http.bind_to_port(s.options.bind, s.options.port) ? s.options.port : -1);
  if (s.port < 0)
    throw IoError("serve: cannot listen on " + s.options.bind + ":" +
                  std::to_string(s.options.port) + " (address in use or not available)");
  return s.port;
}

int Server::port() const {
  return impl_->port;
}

void Server::run() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.run_mutex);
    if (s.stop_asked) return;
    s.in_run = true;
  }
  s.http.listen_after_bind();
  {
    std::lock_guard lock(s.run_mutex);
    s.in_run = false;
  }
  s.loop_started_or_run_ended.notify_all();
}

// Once run() has begun, its loop is stopped as soon as cpp-httplib runs it (a few instructions
// after run() began: the task queue's maker wakes this wait); before, run() sees stop_asked and
// does not start it.
void Server::stop() {
  Impl& s = *impl_;
  std::unique_lock lock(s.run_mutex);
  s.stop_asked = true;
  s.loop_started_or_run_ended.wait(lock, [&] { return !s.in_run || s.http.is_running(); });
  lock.unlock();
  s.http.stop();
}

}  // namespace cubekit
