// An answer other than 200: the HTTP status and a message for the client's JSON {"error": ...}.
#pragma once

#include <stdexcept>
#include <string>

namespace cubekit::server {

class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace cubekit::server
