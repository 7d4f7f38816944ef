// What a client meets at each of the server's limits (docs/server.md, "Limits"): over-long URLs
// and header lines, too many requests on one connection, idle connections, senders that stop
// half-way. Each is a clear status or a closed connection, and the server goes on answering.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "cubekit/error.hpp"
#include "cubekit/generator.hpp"
#include "server/running_server.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cubekit::test::RawConnection;
using cubekit::test::RunningServer;
using cubekit::test::TempDir;

namespace {

// A server over a folder holding one small generated report, r.cubex.
struct LimitedServer {
  explicit LimitedServer(cubekit::ServerOptions o) : dir("limits"), server((o.root = init(), o)) {}
  fs::path init() {
    cubekit::GeneratorOptions g;
    g.call_paths = 50;
    cubekit::generate_report((dir.path() / "r.cubex").string(), g);
    return dir.path();
  }
  TempDir dir;
  RunningServer server;
};

std::string status_line(const std::string& answer) {
  return answer.substr(0, answer.find("\r\n"));
}

TEST(ServerLimits, OverLongUrlsAndHeaderLinesAreRefused) {
  LimitedServer s({});
  const std::string long_metric(9000, 'x');
  EXPECT_EQ(s.server.get("/api/v1/values?report=r.cubex&metric=" + long_metric).first, 414);
  RawConnection raw(s.server.port());
  raw.send_text("GET /api/v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " +
                std::string(9000, 'y') + "\r\n\r\n");
  EXPECT_EQ(status_line(raw.receive_all()), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(s.server.get("/api/v1/reports").first, 200);
}

// The third request on a connection limited to three is answered with Connection: close, and
// the server then closes the connection: a fourth request sent on it gets no answer.
TEST(ServerLimits, AConnectionAnswersAtMostItsRequestCount) {
  cubekit::ServerOptions o;
  o.requests_per_connection = 3;
  LimitedServer s(o);
  RawConnection raw(s.server.port());
  const std::string request = "GET /api/v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  for (int i = 1; i <= 3; ++i) {
    raw.send_text(request);
    const std::string answer = raw.receive_answer();
    EXPECT_EQ(status_line(answer), "HTTP/1.1 200 OK") << i;
    EXPECT_EQ(answer.find("Connection: close") != std::string::npos, i == 3) << answer;
  }
  raw.send_text(request);
  EXPECT_EQ(raw.receive_all(), "");
}

TEST(ServerLimits, IdleConnectionsAndStalledSendersAreClosed) {
  cubekit::ServerOptions o;
  o.idle_seconds = 1;
  o.read_seconds = 1;
  LimitedServer s(o);
  const auto started = std::chrono::steady_clock::now();
  {
    RawConnection idle(s.server.port(), 10);
    idle.send_text("GET /api/v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    EXPECT_EQ(status_line(idle.receive_answer()), "HTTP/1.1 200 OK");  // all of it
    EXPECT_EQ(idle.receive_all(), "");  // closed after a second without a request
  }
  {
    // The header never ends: after a second without a byte the request is answered 400 and
    // the connection closed.
    RawConnection stalled(s.server.port(), 10);
    stalled.send_text("GET /api/v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const std::string answer = stalled.receive_all();
    EXPECT_EQ(status_line(answer), "HTTP/1.1 400 Bad Request");
    EXPECT_NE(answer.find("\"error\""), std::string::npos) << answer;
  }
  // Both were closed by the server's timeouts, not by the 10 s receive timeout here.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
  EXPECT_EQ(s.server.get("/api/v1/reports").first, 200);
}

TEST(ServerLimits, OptionsOutOfRangeAreRefused) {
  cubekit::ServerOptions o;
  o.root = fs::temp_directory_path();
  o.requests_per_connection = 0;
  EXPECT_THROW(cubekit::Server{o}, cubekit::Error);
}

}  // namespace
