#include "cubepl/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>

#include "cubekit/error.hpp"

namespace cubekit::cubepl::detail {

Regex::Regex(const std::string& pattern, const std::string& error_prefix) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), 0, &error,
                        &offset, nullptr);
  if (code_ == nullptr) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(error, buffer, sizeof buffer);
    throw CubePLError(error_prefix + "invalid regular expression /" + pattern + "/ at offset " +
                      std::to_string(offset) + ": " + reinterpret_cast<const char*>(buffer));
  }
}

Regex::~Regex() {
  pcre2_code_free(static_cast<pcre2_code*>(code_));
}

bool Regex::search(std::string_view subject) const {
  auto* code = static_cast<pcre2_code*>(code_);
  // Match data per call keeps search() const and thread-safe; it is small.
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  const int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0,
                             0, data.get(), nullptr);
  return rc >= 0;
}

}  // namespace cubekit::cubepl::detail
