// Shared helpers for tests: where ../shared is, running the cubekit executable.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cubekit::test {

// ../shared beside the clone (real profiles and the original tools' outputs), or empty.
inline std::filesystem::path shared_dir() {
  const std::filesystem::path p = CUBEKIT_SHARED_DIR;
  return std::filesystem::is_directory(p / "data" / "real") ? p : std::filesystem::path();
}

// The real input behind an oracle folder name (oracle/README.md, "Layout"), e.g.
// "pycubexr__blast.p64.r1__profile.cubex" → data/real/pycubexr/blast.p64.r1/profile.cubex.
std::filesystem::path oracle_input(const std::string& folder);

// True under CI=true: CI has ../shared beside its clone, so tests that need it must not skip.
bool shared_required();

// First statement of a test that needs ../shared: skips it with a message when ../shared is
// absent, or fails it under CI=true.
#define CUBEKIT_REQUIRE_SHARED()                                                       \
  do {                                                                                 \
    if (::cubekit::test::shared_dir().empty()) {                                       \
      if (::cubekit::test::shared_required())                                          \
        GTEST_FAIL() << "../shared not found beside the clone (" CUBEKIT_SHARED_DIR    \
                        "), and CI=true needs it";                                     \
      GTEST_SKIP() << "../shared not found beside the clone (" CUBEKIT_SHARED_DIR ")"; \
    }                                                                                  \
  } while (false)

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

struct RunLimits {
  size_t stack_bytes = 0;  // the tool's stack limit (RLIMIT_STACK); 0: unchanged
  // The largest file the tool may write (RLIMIT_FSIZE, SIGXFSZ ignored): a write beyond it
  // fails as on a full disk. 0: unchanged.
  size_t file_bytes = 0;
  std::vector<std::pair<std::string, std::string>> env;  // variables set for the tool
  std::filesystem::path working_dir;  // the tool's current folder; empty: the test's own
  std::filesystem::path stdin_file;   // the tool's standard input; empty: /dev/null
  std::filesystem::path executable;   // what runs; empty: the cubekit executable
};

// Runs the cubekit executable as `argv0` (e.g. "cube_dump") with `args`; captures output in a
// temporary folder of its own, removed before returning.
RunResult run_tool(const std::string& argv0, const std::vector<std::string>& args,
                   const RunLimits& limits = {});

std::string read_file(const std::filesystem::path& p);

// A fresh folder under the system temp dir ("cubekit-<tag>-XXXXXX"), removed with everything
// in it when the object goes (after giving the owner back the rights a test took away).
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `bytes` to `name` inside the folder and returns the full path.
  std::string write(const std::string& name, std::string_view bytes) const;

 private:
  std::filesystem::path path_;
};

// The names of the entries of `dir`, sorted.
std::vector<std::string> listing(const std::filesystem::path& dir);

// "" when the texts are equal, otherwise the first line where they differ, ready for a
// failure message (two whole dumps would bury it).
std::string first_difference(const std::string& ours, const std::string& original);

}  // namespace cubekit::test
