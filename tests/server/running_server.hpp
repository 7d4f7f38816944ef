// A `cubekit serve` server inside the test process, on a free loopback port, answering on its
// own thread until the object goes.
#pragma once

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>

#include "cubekit/server.hpp"

namespace cubekit::test {

class RunningServer {
 public:
  explicit RunningServer(cubekit::ServerOptions o) : server_((o.port = 0, o)) {
    port_ = server_.listen();
    thread_ = std::thread([this] { server_.run(); });
  }
  ~RunningServer() {
    server_.stop();
    thread_.join();
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  int port() const { return port_; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }
  // GET `path` (already encoded); status and parsed body (-1 when no answer came).
  std::pair<int, nlohmann::json> get(const std::string& path) const {
    auto c = client();
    const auto res = c.Get(path);
    if (!res) return {-1, nlohmann::json()};
    return {res->status, nlohmann::json::parse(res->body, nullptr, false)};
  }

 private:
  cubekit::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// A raw loopback connection, for what httplib's client does not do: hanging up mid-answer,
// reading slowly, sending bytes that are not HTTP or stopping half-way.
class RawConnection {
 public:
  explicit RawConnection(int port, int receive_timeout_seconds = 10)
      : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{receive_timeout_seconds, 0};
    if (fd_ >= 0) setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return connected_; }
  void send_text(const std::string& text) const {
    (void)!send(fd_, text.data(), text.size(), MSG_NOSIGNAL);
  }
  // Up to `n` bytes; "" when the server closed the connection or nothing came in time.
  std::string receive(size_t n) const {
    std::string buf(n, '\0');
    const ssize_t got = recv(fd_, buf.data(), n, 0);
    buf.resize(got > 0 ? static_cast<size_t>(got) : 0);
    return buf;
  }
  // One whole answer: the header, then as many bytes as its Content-Length says ("" when the
  // connection closed first).
  std::string receive_answer() {
    size_t header_end;
    while ((header_end = pending_.find("\r\n\r\n")) == std::string::npos) {
      const std::string piece = receive(65536);
      if (piece.empty()) return "";
      pending_ += piece;
    }
    const size_t length_at = pending_.find("Content-Length: ");
    const size_t length =
        length_at < header_end ? std::stoul(pending_.substr(length_at + 16)) : size_t{0};
    while (pending_.size() < header_end + 4 + length) {
      const std::string piece = receive(65536);
      if (piece.empty()) return "";
      pending_ += piece;
    }
    std::string answer = pending_.substr(0, header_end + 4 + length);
    pending_.erase(0, answer.size());
    return answer;
  }
  // Everything until the server closes the connection (or nothing comes in time).
  std::string receive_all() const {
    std::string all;
    for (std::string piece; !(piece = receive(65536)).empty();) all += piece;
    return all;
  }

 private:
  int fd_;
  bool connected_ = false;
  std::string pending_;  // received beyond the last whole answer
};

// A query parameter's value, percent-encoded.
inline std::string encode_param(const std::string& s) {
  return httplib::detail::encode_query_param(s);
}

}  // namespace cubekit::test
