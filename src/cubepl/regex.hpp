// Regular expressions of `=~` on PCRE2 (8-bit). Compiled once with the program; matching is a
// search anywhere in the subject, case-sensitive, no flags (cubepl.md §2.6).
#pragma once

#include <string>
#include <string_view>

namespace cubekit::cubepl::detail {

class Regex {
 public:
  // Throws CubePLError with PCRE2's message when `pattern` does not compile; `error_prefix`
  // is the "line:column: " of the regex in the program.
  Regex(const std::string& pattern, const std::string& error_prefix);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  bool search(std::string_view subject) const;

 private:
  void* code_;  // pcre2_code_8*; kept opaque so that pcre2.h stays out of the headers
};

}  // namespace cubekit::cubepl::detail
