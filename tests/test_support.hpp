// Shared helpers for tests: where ../shared is, running the cubekit executable.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cubekit::test {

// ../shared beside the clone (real profiles and the original tools' outputs), or empty.
inline std::filesystem::path shared_dir() {
  const std::filesystem::path p = CUBEKIT_SHARED_DIR;
  return std::filesystem::is_directory(p / "data" / "real") ? p : std::filesystem::path();
}

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs the cubekit executable as `argv0` (e.g. "cube_dump") with `args`; captures output.
RunResult run_tool(const std::string& argv0, const std::vector<std::string>& args);

std::string read_file(const std::filesystem::path& p);

// "" when the texts are equal, otherwise the first line where they differ, ready for a
// failure message (two whole dumps would bury it).
std::string first_difference(const std::string& ours, const std::string& original);

}  // namespace cubekit::test
