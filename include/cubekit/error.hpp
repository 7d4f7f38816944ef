// Errors raised by cubekit. Every message says where (file, member, offset or line) and what
// (expected vs found), so that a tool can print it as is and exit 1.
#pragma once

#include <stdexcept>
#include <string>

namespace cubekit {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// The bytes of a report are not what the Cube format allows.
class FormatError : public Error {
 public:
  using Error::Error;
};

// The operating system refused (open, map, read, write, rename).
class IoError : public Error {
 public:
  using Error::Error;
};

// A request names something the report does not have (unknown metric, cnode id, ...).
class LookupError : public Error {
 public:
  using Error::Error;
};

// A CubePL expression does not compile or cannot be evaluated.
class CubePLError : public Error {
 public:
  using Error::Error;
};

}  // namespace cubekit
